import { describe, expect, it } from "vitest";
import { ConfigError } from "../core/errors.js";
import { InfrastructureError, type LanguageModel, type LlmRequest, type LlmResponse } from "../core/llm.js";
import { composeLanguageModel } from "./compose-language-model.js";
import { openResponseCache } from "./response-cache.js";
import { resolveRetryOptions } from "./retry.js";
import { withTimeout } from "./with-timeout.js";

// The layers hold for any LanguageModel, not only the AI SDK's: here a hand-written model (as a remote
// agent would be) that fails, hangs or answers as each test scripts it.

const HELLO: LlmRequest = { system: "s", messages: [{ role: "user", content: "Hi" }] };
const ANSWER: LlmResponse = {
  text: "Hello",
  toolCalls: [],
  usage: { promptTokens: 1_000, completionTokens: 100, cacheReadTokens: 600 },
  cost: null,
};

/** A model that plays `steps` one per call and records the requests it got. */
function scripted(steps: Array<"answer" | "hang" | Error>) {
  const seen: LlmRequest[] = [];
  const model: LanguageModel = {
    spec: "remote:agent",
    async generate(request) {
      seen.push(request);
      const step = steps[seen.length - 1] ?? "answer";
      if (step === "answer") return ANSWER;
      if (step === "hang")
        return new Promise((_resolve, reject) =>
          request.signal?.addEventListener("abort", () => reject(new Error("aborted"))),
        );
      throw step;
    },
  };
  return { model, seen };
}

const retry = (maxAttempts: number) => ({
  retry: resolveRetryOptions({ maxAttempts, initialDelayMs: 1, jitter: 0 }),
});
// gpt-4.1: $2 input, $0.50 cached input, $8 output per million tokens.
const cost = {
  provider: "openai",
  model: "gpt-4.1",
  lookup: { providerId: "openai" },
  now: () => new Date(),
};
const GPT_41_COST = (400 * 2 + 600 * 0.5 + 100 * 8) / 1e6;

describe("composeLanguageModel over any LanguageModel", () => {
  it("abandons a hung attempt at the timeout, retries it, and prices the answer once, cached tokens at their rate", async () => {
    const { model, seen } = scripted(["hang", "answer"]);
    const composed = composeLanguageModel(model, { timeoutMs: 50, retry: retry(3), cost });
    const response = await composed.generate(HELLO);
    expect(seen).toHaveLength(2);
    expect(response.cost).toBeCloseTo(GPT_41_COST, 15);
    expect(composed.priced).toBe(true);
  });

  it("ends in an InfrastructureError once retries are spent, and never retries what cannot pass", async () => {
    const { model: hanging, seen: hung } = scripted(["hang", "hang"]);
    const error = await composeLanguageModel(hanging, { timeoutMs: 20, retry: retry(2) })
      .generate(HELLO)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InfrastructureError);
    expect((error as Error).message).toBe(
      "remote:agent: the provider call failed 2 times (last: no answer within 20 ms (timeout)); not the agent's " +
        "fault — the simulation ends as an infrastructure error and can be re-run",
    );
    expect(hung).toHaveLength(2);

    const { model: broken, seen } = scripted([new TypeError("bad reply shape")]);
    const final = await composeLanguageModel(broken, { timeoutMs: 1_000, retry: retry(3) })
      .generate(HELLO)
      .catch((caught: unknown) => caught);
    expect(final).toBeInstanceOf(InfrastructureError);
    expect((final as Error).message).toContain("not retryable (TypeError: bad reply shape)");
    expect(seen).toHaveLength(1);
  });

  it("merges settings under the request's before anything, and refuses bad ones naming the model", async () => {
    const { model, seen } = scripted([]);
    const composed = composeLanguageModel(model, {
      args: { temperature: 0.5, seed: 1 },
      timeoutMs: 1_000,
      retry: retry(1),
    });
    await composed.generate({ ...HELLO, params: { seed: 7 } });
    expect(seen[0]!.params).toEqual({ temperature: 0.5, seed: 7 });
    const error = await composed
      .generate({ ...HELLO, params: { temprature: 0 } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(
      'remote:agent request params is not valid:\n  - "temprature" is not a known setting',
    );
    expect(seen).toHaveLength(1);
  });

  it("answers a repeated request from the response cache at its first cost, settings and salt in the key", async () => {
    const cache = openResponseCache(":memory:");
    const { model, seen } = scripted([]);
    const composed = composeLanguageModel(model, { timeoutMs: 1_000, retry: retry(1), cost, cache });
    const first = await composed.generate({ ...HELLO, params: { seed: 1 } });
    const again = await composed.generate({ ...HELLO, params: { seed: 1 } });
    await composed.generate({ ...HELLO, params: { seed: 2 } });
    await composed.generate({ ...HELLO, params: { seed: 1 }, cacheSalt: "trial-2" });
    expect(seen).toHaveLength(3);
    expect(again).toEqual({ ...first, cached: true });
    expect(again.usage.cacheReadTokens).toBe(600);
    cache.close();
  });

  it("refuses a timeout that is not a positive number when wired, not at the first call", () => {
    const { model } = scripted([]);
    expect(() => withTimeout(model, 0)).toThrow(
      "the LLM timeout must be a positive number of milliseconds, got 0",
    );
  });
});
