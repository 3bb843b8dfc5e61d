import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { LlmMessage, LlmToolSpec } from "../src/core/llm.js";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { parseResults } from "../src/formats/tau2/results.js";
import { createLanguageModel, modelPricing } from "../src/llm/index.js";
import {
  goldScript,
  isUserSimulatorRequest,
  mockReply,
  startMockLlmServer,
  type MockLlmRequest,
  type MockLlmServer,
} from "../src/testing/index.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";

// Prompt caching over real HTTP: Anthropic gets cache breakpoints on the stable prefix of every call
// (tools, system prompt) and on the conversation so far; the prefix is byte-identical from turn to turn;
// the mock caches as the provider does; cached tokens are recorded on each message and priced at the
// price table's cache rates; the τ² texts the models are shown do not change; `passk report` shows the
// tokens and what caching saved. OpenAI caches on its own: its cached_tokens are counted and priced.

/** USD per million tokens, written out by hand from the providers' price lists. */
const SONNET_45 = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const GPT_41 = { input: 2, output: 8, cacheRead: 0.5 };
const HAIKU_35 = { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 };

const dir = mkdtempSync(path.join(tmpdir(), "passk-prompt-caching-"));
const ENV = {
  PASSK_DATA_DIR: tau2DataDir(),
  ANTHROPIC_API_KEY: "sk-ant-test-0123456789",
  OPENAI_API_KEY: "sk-test-0123456789",
  AWS_BEARER_TOKEN_BEDROCK: "bedrock-test-0123456789",
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A body with every Anthropic `cache_control` and Bedrock `cachePoint` taken out: what the model reads. */
function withoutMarkers(value: Json): Json {
  if (Array.isArray(value))
    return value
      .filter((v) => !(v !== null && typeof v === "object" && !Array.isArray(v) && "cachePoint" in v))
      .map(withoutMarkers);
  if (value === null || typeof value !== "object") return value;
  const out: { [key: string]: Json } = {};
  for (const [key, child] of Object.entries(value))
    if (key !== "cache_control") out[key] = withoutMarkers(child);
  return out;
}

interface AnthropicBody {
  system?: Json[];
  tools?: Json[];
  messages: Json[];
}
const anthropicBody = (request: MockLlmRequest) => request.body as AnthropicBody;
const bytes = (value: Json | undefined) => JSON.stringify(withoutMarkers(value ?? null));

let servers: MockLlmServer[] = [];
afterEach(async () => {
  for (const server of servers) await server.close();
  servers = [];
});
async function serve(...args: Parameters<typeof startMockLlmServer>): Promise<MockLlmServer> {
  const server = await startMockLlmServer(...args);
  servers.push(server);
  return server;
}

describe("Anthropic: a τ² airline conversation through `passk run`", () => {
  const TASK = "8"; // get_user_details, get_reservation_details, search_direct_flight, book_reservation
  const data = new DomainData(builtinDomains.get("airline")!, tau2DataDir());

  beforeAll(() => {
    // The table's rates for the model are the hand-written ones the costs below are checked with.
    expect(
      modelPricing({
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        lookup: { providerId: "anthropic" },
      }),
    ).toMatchObject({
      inputMtok: SONNET_45.input,
      outputMtok: SONNET_45.output,
      cacheReadMtok: SONNET_45.cacheRead,
      cacheWriteMtok: SONNET_45.cacheWrite,
    });
  });

  async function run(name: string, extra: string[] = []) {
    const server = await serve({ script: goldScript(data.task(TASK)) });
    const saveTo = path.join(dir, `${name}.json`);
    const model = "anthropic:claude-sonnet-4-5";
    const result = await runCliInProcess(
      [
        "run",
        "--domain",
        "airline",
        "--task-ids",
        TASK,
        "--agent-llm",
        model,
        "--agent-llm-base-url",
        server.baseUrl,
        "--user-llm",
        model,
        "--user-llm-base-url",
        server.baseUrl,
        "--store",
        path.join(dir, `${name}.db`),
        "--save-to",
        saveTo,
        "--progress",
        "none",
        ...extra,
      ],
      ENV,
    );
    expect(result.code, result.stderr).toBe(0);
    const requests = [...server.requests];
    const results = parseResults(readFileSync(saveTo, "utf8"), saveTo).results;
    return {
      saveTo,
      agent: requests.filter((r) => !isUserSimulatorRequest(r)),
      user: requests.filter(isUserSimulatorRequest),
      simulation: results.simulations[0]!,
      info: results.info,
    };
  }

  it("marks the stable prefix on every turn, keeps it byte-identical, shows the models the same texts, and records and prices the cached tokens", async () => {
    const cached = await run("cached");
    const uncached = await run("uncached", ["--no-prompt-cache"]);
    expect(cached.simulation.reward_info?.reward).toBe(1);
    expect(cached.agent.length).toBe(5); // four gold tool calls and the final answer
    expect(cached.user.length).toBe(2);

    const ephemeral = { type: "ephemeral" };
    for (const request of cached.agent) {
      const body = anthropicBody(request);
      expect(request.cacheBreakpoints).toEqual([
        { at: "tools", index: body.tools!.length - 1, marker: ephemeral },
        { at: "system", index: 0, marker: ephemeral },
        { at: "messages", index: body.messages.length - 1, marker: ephemeral },
      ]);
    }
    for (const request of cached.user) {
      // The airline customer has no tools: its system prompt and the conversation are marked.
      expect(request.cacheBreakpoints).toEqual([
        { at: "system", index: 0, marker: ephemeral },
        { at: "messages", index: anthropicBody(request).messages.length - 1, marker: ephemeral },
      ]);
    }

    // The prefix is byte-stable: tools and system prompt identical on every turn, and each turn's
    // messages start with the previous turn's, byte for byte.
    for (const side of [cached.agent, cached.user]) {
      const [first, ...rest] = side.map(anthropicBody);
      for (const [i, body] of rest.entries()) {
        expect(bytes(body.tools)).toBe(bytes(first!.tools));
        expect(bytes(body.system)).toBe(bytes(first!.system));
        const previous = i === 0 ? first! : rest[i - 1]!;
        expect(bytes(body.messages.slice(0, previous.messages.length))).toBe(bytes(previous.messages));
      }
    }

    // Markers are transport metadata: without them, every request is the same, byte for byte, and the
    // models read the same system prompts, messages and tools.
    const all = (r: Awaited<ReturnType<typeof run>>) => [...r.agent, ...r.user];
    expect(all(uncached).every((r) => r.cacheBreakpoints.length === 0)).toBe(true);
    expect(all(uncached).map((r) => JSON.stringify(r.body))).toEqual(
      all(cached).map((r) => bytes(r.body as Json)),
    );
    const shown = (r: MockLlmRequest) => ({ system: r.system, messages: r.messages, tools: r.tools });
    expect(all(uncached).map(shown)).toEqual(all(cached).map(shown));
    expect((uncached.info as { passk?: { config?: unknown } }).passk?.config).toMatchObject({
      promptCache: false,
    });

    // Each model call's cached tokens, as the mock reported them, are on its message and priced at the
    // cache rates: reads at 0.3, writes at 3.75, the rest of the prompt at 3, output at 15 (per million).
    const calls = cached.simulation.messages.filter(
      (m) => (m.role === "assistant" || m.role === "user") && m.usage,
    );
    const requests = [...cached.agent, ...cached.user].sort((a, b) => a.index - b.index);
    expect(calls.length).toBe(requests.length);
    let agentCost = 0;
    for (const [i, message] of calls.entries()) {
      const reported = requests[i]!.promptCache!;
      const usage = message.usage as {
        prompt_tokens: number;
        completion_tokens: number;
        cache_read_tokens?: number;
        cache_write_tokens?: number;
      };
      expect(usage.cache_read_tokens ?? 0).toBe(reported.readTokens);
      expect(usage.cache_write_tokens ?? 0).toBe(reported.writeTokens);
      const read = usage.cache_read_tokens ?? 0;
      const write = usage.cache_write_tokens ?? 0;
      const expected =
        ((usage.prompt_tokens - read - write) * SONNET_45.input +
          read * SONNET_45.cacheRead +
          write * SONNET_45.cacheWrite +
          usage.completion_tokens * SONNET_45.output) /
        1e6;
      expect(message.cost).toBeCloseTo(expected, 12);
      if (message.role === "assistant") agentCost += expected;
    }
    expect(cached.simulation.agent_cost).toBeCloseTo(agentCost, 12);
    // From its second call on, the agent reads at least its tools and system prompt from the cache.
    const agentCalls = calls.filter((m) => m.role === "assistant");
    const prefixTokens = (agentCalls[0]!.usage as { cache_write_tokens: number }).cache_write_tokens;
    expect(prefixTokens).toBeGreaterThan(1024);
    for (const message of agentCalls.slice(1))
      expect((message.usage as { cache_read_tokens: number }).cache_read_tokens).toBeGreaterThanOrEqual(
        prefixTokens,
      );
    // Without markers nothing is cached, and the agent pays for every prompt token in full.
    expect(uncached.simulation.messages.some((m) => JSON.stringify(m.usage ?? {}).includes("cache_"))).toBe(
      false,
    );
    expect(cached.simulation.agent_cost!).toBeLessThan(uncached.simulation.agent_cost!);

    // `passk report` shows the tokens per conversation and what caching saved, hand-checked.
    let read = 0;
    let write = 0;
    let input = 0;
    for (const message of calls) {
      const usage = message.usage as {
        prompt_tokens: number;
        cache_read_tokens?: number;
        cache_write_tokens?: number;
      };
      read += usage.cache_read_tokens ?? 0;
      write += usage.cache_write_tokens ?? 0;
      input += usage.prompt_tokens;
    }
    const saving =
      (read * (SONNET_45.input - SONNET_45.cacheRead) + write * (SONNET_45.input - SONNET_45.cacheWrite)) /
      1e6;
    expect(saving).toBeGreaterThan(0);
    const json = await runCliInProcess(["report", cached.saveTo, "--json"], ENV);
    expect(json.code, json.stderr).toBe(0);
    const usage = (
      JSON.parse(json.stdout) as {
        token_usage: {
          conversations: number;
          total: {
            agent: { input: number; cache_read: number; cache_write: number };
            user: { input: number; cache_read: number; cache_write: number };
            cost: number;
            caching_saving: number;
          };
        };
      }
    ).token_usage;
    expect(usage.conversations).toBe(1);
    expect(usage.total.agent.input + usage.total.user.input).toBe(input);
    expect(usage.total.agent.cache_read + usage.total.user.cache_read).toBe(read);
    expect(usage.total.agent.cache_write + usage.total.user.cache_write).toBe(write);
    expect(usage.total.cost).toBeCloseTo(cached.simulation.agent_cost! + cached.simulation.user_cost!, 12);
    expect(usage.total.caching_saving).toBeCloseTo(saving, 12);

    const text = await runCliInProcess(["report", cached.saveTo], ENV);
    expect(text.code, text.stderr).toBe(0);
    const agentTokens = usage.total.agent;
    expect(text.stdout).toContain("tokens per conversation (mean over 1 conversations");
    expect(text.stdout).toContain(
      `input ${agentTokens.input.toLocaleString("en-US")} (cache read ${agentTokens.cache_read.toLocaleString("en-US")}, ` +
        `cache write ${agentTokens.cache_write.toLocaleString("en-US")})`,
    );
    expect(text.stdout).toContain(`prompt caching saved $${saving.toFixed(4)} per conversation`);
    const plain = await runCliInProcess(["report", uncached.saveTo], ENV);
    expect(plain.stdout).toContain("prompt caching: no cached tokens reported");
  });
});

const SYSTEM = `You are an airline agent. ${"Follow the policy to the letter. ".repeat(200)}`;
const TOOLS: LlmToolSpec[] = [
  {
    name: "get_reservation_details",
    description: "Get the details of a reservation.",
    parameters: {
      type: "object",
      properties: { reservation_id: { type: "string" } },
      required: ["reservation_id"],
    },
  },
];

/** Three turns of one conversation; each request carries the previous one whole. */
async function converse(spec: string, server: MockLlmServer, options: { promptCache?: boolean } = {}) {
  const model = createLanguageModel(spec, {
    baseUrl: server.baseUrl,
    env: ENV,
    retry: { maxAttempts: 1 },
    ...options,
  });
  const messages: LlmMessage[] = [{ role: "user", content: "I want to check reservation ABC123." }];
  const replies = [];
  for (let turn = 0; turn < 3; turn++) {
    const reply = await model.generate({ system: SYSTEM, messages, tools: TOOLS });
    replies.push(reply);
    messages.push({ role: "assistant", content: reply.text }, { role: "user", content: `And turn ${turn}?` });
  }
  return replies;
}

describe("OpenAI: automatic prefix caching", () => {
  it("counts the cached_tokens of a repeated prefix of at least 1024 tokens and prices them at the cache-read rate", async () => {
    expect(
      modelPricing({ provider: "openai", model: "gpt-4.1", lookup: { providerId: "openai" } }),
    ).toMatchObject({
      inputMtok: GPT_41.input,
      outputMtok: GPT_41.output,
      cacheReadMtok: GPT_41.cacheRead,
    });
    const server = await serve({ script: () => mockReply.text("Let me look.") });
    const replies = await converse("openai:gpt-4.1", server);
    // OpenAI takes no markers: nothing in the body asks for caching.
    for (const request of server.requests) {
      expect(request.cacheBreakpoints).toEqual([]);
      expect(JSON.stringify(request.body)).not.toMatch(/cache_control|cachePoint/);
    }
    expect(replies[0]!.usage.cacheReadTokens).toBeUndefined();
    for (const [i, reply] of replies.entries()) {
      const read = reply.usage.cacheReadTokens ?? 0;
      expect(read).toBe(server.requests[i]!.promptCache!.readTokens);
      if (i > 0) {
        // Cached in steps of 128 tokens past the first 1024, never more than the prompt.
        expect(read).toBeGreaterThanOrEqual(1024);
        expect((read - 1024) % 128).toBe(0);
        expect(read).toBeLessThanOrEqual(reply.usage.promptTokens);
      }
      expect(reply.cost).toBeCloseTo(
        ((reply.usage.promptTokens - read) * GPT_41.input +
          read * GPT_41.cacheRead +
          reply.usage.completionTokens * GPT_41.output) /
          1e6,
        12,
      );
    }
  });

  it("prices a provider's reported cached_tokens exactly (scripted usage)", async () => {
    const server = await serve({
      script: [
        mockReply.text("ok", { usage: { promptTokens: 2_048, completionTokens: 100, cachedTokens: 1_536 } }),
      ],
    });
    const reply = await createLanguageModel("openai:gpt-4.1", { baseUrl: server.baseUrl, env: ENV }).generate(
      {
        system: SYSTEM,
        messages: [{ role: "user", content: "Hi" }],
      },
    );
    expect(reply.usage).toEqual({ promptTokens: 2_048, completionTokens: 100, cacheReadTokens: 1_536 });
    // 512 uncached × 2 + 1,536 cached × 0.5 + 100 output × 8, per million.
    expect(reply.cost).toBeCloseTo((512 * 2 + 1_536 * 0.5 + 100 * 8) / 1e6, 15);
  });
});

describe("Anthropic and Bedrock markers", () => {
  it("Anthropic reads the conversation back from its cache on every later turn; promptCache: false sends no markers", async () => {
    const server = await serve({ script: () => mockReply.text("Let me look.") });
    const replies = await converse("anthropic:claude-sonnet-4-5", server);
    expect(replies[0]!.usage.cacheReadTokens).toBeUndefined();
    expect(replies[0]!.usage.cacheWriteTokens).toBe(replies[0]!.usage.promptTokens);
    for (const reply of replies.slice(1)) {
      // Everything but the newest turn is read; the newest is written for the next call.
      const { promptTokens, cacheReadTokens = 0, cacheWriteTokens = 0 } = reply.usage;
      expect(cacheReadTokens + cacheWriteTokens).toBe(promptTokens);
      expect(cacheReadTokens).toBeGreaterThan(0.9 * promptTokens);
      expect(reply.cost).toBeCloseTo(
        (cacheReadTokens * SONNET_45.cacheRead +
          cacheWriteTokens * SONNET_45.cacheWrite +
          reply.usage.completionTokens * SONNET_45.output) /
          1e6,
        12,
      );
    }

    const off = await serve({ script: () => mockReply.text("Let me look.") });
    const uncached = await converse("anthropic:claude-sonnet-4-5", off, { promptCache: false });
    expect(off.requests.every((r) => r.cacheBreakpoints.length === 0)).toBe(true);
    expect(uncached.every((r) => r.usage.cacheReadTokens === undefined)).toBe(true);
    expect(off.requests.map((r) => JSON.stringify(r.body))).toEqual(
      server.requests.map((r) => bytes(r.body as Json)),
    );
  });

  it("Bedrock: cache points after the system prompt and the last message for Claude and Nova, none for other models", async () => {
    expect(
      modelPricing({
        provider: "amazon-bedrock",
        model: "us.anthropic.claude-3-5-haiku-20241022-v1:0",
        lookup: { providerId: "aws" },
      }),
    ).toMatchObject({
      inputMtok: HAIKU_35.input,
      outputMtok: HAIKU_35.output,
      cacheReadMtok: HAIKU_35.cacheRead,
      cacheWriteMtok: HAIKU_35.cacheWrite,
    });
    const server = await serve({ script: () => mockReply.text("Let me look.") });
    const replies = await converse("amazon-bedrock:us.anthropic.claude-3-5-haiku-20241022-v1:0", server);
    for (const request of server.requests) {
      const body = request.body as { system: Json[]; messages: Array<{ content: Json[] }> };
      expect(request.cacheBreakpoints).toEqual([
        { at: "system", index: 1, marker: { type: "default" } },
        { at: "messages", index: body.messages.length - 1, marker: { type: "default" } },
      ]);
      expect(body.system.at(-1)).toEqual({ cachePoint: { type: "default" } });
    }
    const last = replies.at(-1)!;
    const { promptTokens, cacheReadTokens = 0, cacheWriteTokens = 0 } = last.usage;
    expect(cacheReadTokens).toBeGreaterThan(0);
    expect(last.cost).toBeCloseTo(
      ((promptTokens - cacheReadTokens - cacheWriteTokens) * HAIKU_35.input +
        cacheReadTokens * HAIKU_35.cacheRead +
        cacheWriteTokens * HAIKU_35.cacheWrite +
        last.usage.completionTokens * HAIKU_35.output) /
        1e6,
      12,
    );

    // Llama on Bedrock rejects cache points: it gets none.
    const llama = await serve({ script: () => mockReply.text("Let me look.") });
    await converse("amazon-bedrock:meta.llama3-3-70b-instruct-v1:0", llama);
    expect(llama.requests.every((r) => r.cacheBreakpoints.length === 0)).toBe(true);
    expect(JSON.stringify(llama.requests.map((r) => r.body))).not.toContain("cachePoint");
  });
});
