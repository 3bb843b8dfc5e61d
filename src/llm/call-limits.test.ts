import { RateLimiterMemory } from "rate-limiter-flexible";
import { describe, expect, it } from "vitest";
import type { LanguageModel, LlmResponse } from "../core/llm.js";
import { createCallLimiter, parseCallLimits, withCallLimits } from "./call-limits.js";

const memory = (options: { keyPrefix: string; points: number; duration: number }) =>
  new RateLimiterMemory(options);

/** A model that answers after `ms`, counting the calls it is answering at once. */
function slowModel(ms: number, usage = { promptTokens: 10, completionTokens: 5 }) {
  const state = { answering: 0, peak: 0, calls: 0 };
  const model: LanguageModel = {
    spec: "openai:gpt-4.1",
    async generate(): Promise<LlmResponse> {
      state.calls++;
      state.answering++;
      state.peak = Math.max(state.peak, state.answering);
      await new Promise((resolve) => setTimeout(resolve, ms));
      state.answering--;
      return { message: { role: "assistant", content: "ok" }, usage, cost: null } as unknown as LlmResponse;
    },
  };
  return { model, state };
}

const request = { system: "", messages: [] };

describe("call limits", () => {
  it("holds concurrent calls of a provider to the limit, a model spec's own rule first", async () => {
    const limits = parseCallLimits({ "--max-concurrent-requests": ["openai=3", "openai:gpt-4.1=2"] })!;
    const { model, state } = slowModel(20);
    const limited = withCallLimits(model, createCallLimiter(limits, memory, "test"), () => undefined);
    await Promise.all(Array.from({ length: 10 }, () => limited.generate(request)));
    expect(state.calls).toBe(10);
    expect(state.peak).toBe(2);
  });

  it("a 429 holds every caller of the model for its Retry-After", async () => {
    const limits = parseCallLimits({ "--requests-per-minute": ["openai=600"] })!;
    const limiter = createCallLimiter(limits, memory, "test-429");
    let first = true;
    const model: LanguageModel = {
      spec: "openai:gpt-4.1",
      generate: () => {
        if (first) {
          first = false;
          return Promise.reject(new Error("HTTP 429: slow down"));
        }
        return Promise.resolve({ message: { role: "assistant", content: "ok" } } as unknown as LlmResponse);
      },
    };
    const limited = withCallLimits(model, limiter, () => ({ retryAfterMs: 1000 }));
    await expect(limited.generate(request)).rejects.toThrow("HTTP 429");
    const started = performance.now();
    await limited.generate(request);
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("tokens per minute: once a window's tokens are spent, the next call waits for the next window", async () => {
    const limits = parseCallLimits({ "--tokens-per-minute": ["openai=60"] }, 1)!; // 1 token a 1-second window
    const { model } = slowModel(1, { promptTokens: 30, completionTokens: 20 });
    const limited = withCallLimits(model, createCallLimiter(limits, memory, "test-tokens"), () => undefined);
    await limited.generate(request);
    const started = performance.now();
    await limited.generate(request);
    expect(performance.now() - started).toBeGreaterThanOrEqual(800);
  });

  it("a malformed limit is one sentence naming the flag", () => {
    expect(() => parseCallLimits({ "--tokens-per-minute": ["openai=0"] })).toThrow(
      '--tokens-per-minute "openai=0" is not TARGET=N with a whole number N ≥ 1; e.g. --tokens-per-minute openai=10',
    );
    expect(parseCallLimits({})).toBeNull();
  });
});
