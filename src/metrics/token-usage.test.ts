import { describe, expect, it } from "vitest";
import {
  cachingSaving,
  describeTokenUsage,
  roleTokens,
  tokenUsage,
  type TokenRates,
  type UsageSimulation,
} from "./token-usage.js";

// claude-sonnet-4-5's rates in USD per million tokens: input 3, cache read 0.3, cache write 3.75.
const SONNET: TokenRates = { input_mtok: 3, cache_read_mtok: 0.3, cache_write_mtok: 3.75 };
// gpt-4.1's: input 2, cache read 0.5, no cache write (OpenAI caches on its own, at the input rate).
const GPT41: TokenRates = { input_mtok: 2, cache_read_mtok: 0.5, cache_write_mtok: 2 };

const usage = (prompt: number, completion: number, read = 0, write = 0) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  ...(read ? { cache_read_tokens: read } : {}),
  ...(write ? { cache_write_tokens: write } : {}),
});

/** A conversation: customer opens, agent calls a tool, tool answers, agent replies, customer stops. */
function conversation(trial: number, costs: { agent: number | null; user: number | null }): UsageSimulation {
  return {
    domain: "airline",
    task_id: "7",
    trial,
    agent_cost: costs.agent,
    user_cost: costs.user,
    messages: [
      { role: "user", usage: usage(1_200, 30) },
      { role: "assistant", usage: usage(5_000, 40, 0, 4_900) },
      { role: "tool" },
      { role: "assistant", usage: usage(5_200, 60, 4_900, 250) },
      { role: "user", usage: usage(1_300, 10, 1_150) },
      // A scripted message records no usage: it is no model call.
      { role: "assistant" },
    ],
  };
}

describe("roleTokens", () => {
  it("adds up the usage of one role's model calls, cached tokens as part of the input", () => {
    const messages = conversation(0, { agent: 0, user: 0 }).messages;
    expect(roleTokens(messages, "assistant")).toEqual({
      calls: 2,
      input: 10_200,
      cache_read: 4_900,
      cache_write: 5_150,
      output: 100,
    });
    expect(roleTokens(messages, "user")).toEqual({
      calls: 2,
      input: 2_500,
      cache_read: 1_150,
      cache_write: 0,
      output: 40,
    });
  });
});

describe("cachingSaving", () => {
  const tokens = { calls: 1, input: 10_000, cache_read: 4_000, cache_write: 1_000, output: 0 };

  it("is the cached tokens at the full input rate minus what they cost; writes above the input rate count against it", () => {
    // reads: 4,000 × (3 − 0.3) = 10,800; writes: 1,000 × (3 − 3.75) = −750; per million.
    expect(cachingSaving(tokens, SONNET)).toBeCloseTo((10_800 - 750) / 1e6, 15);
    expect(cachingSaving({ ...tokens, cache_read: 0 }, SONNET)).toBeCloseTo(-750 / 1e6, 15);
  });

  it("is 0 when nothing was cached, priced or not, and unknown when something was and there is no price", () => {
    expect(cachingSaving({ ...tokens, cache_read: 0, cache_write: 0 }, null)).toBe(0);
    expect(cachingSaving(tokens, null)).toBeNull();
  });
});

describe("tokenUsage", () => {
  it("gives each conversation's tokens, cost and saving, their means and totals, hand-checked", () => {
    const summary = tokenUsage(
      [conversation(0, { agent: 0.04, user: 0.005 }), conversation(1, { agent: 0.02, user: 0.003 })],
      { agent: SONNET, user: GPT41 },
    );
    // agent: 4,900 read × 2.7 + 5,150 written × −0.75 = 13,230 − 3,862.5 = 9,367.5 per million;
    // customer: 1,150 read × 1.5 = 1,725 per million.
    const saving = (9_367.5 + 1_725) / 1e6;
    expect(summary.conversations).toBe(2);
    expect(summary.per_conversation.map((c) => c.trial)).toEqual([0, 1]);
    expect(summary.per_conversation[0]!.cost).toBeCloseTo(0.045, 15);
    expect(summary.per_conversation[0]!.caching_saving).toBeCloseTo(saving, 15);
    expect(summary.total.agent).toEqual({
      calls: 4,
      input: 20_400,
      cache_read: 9_800,
      cache_write: 10_300,
      output: 200,
    });
    expect(summary.mean.user).toEqual({
      calls: 2,
      input: 2_500,
      cache_read: 1_150,
      cache_write: 0,
      output: 40,
    });
    expect(summary.total.cost).toBeCloseTo(0.068, 15);
    expect(summary.mean.cost).toBeCloseTo(0.034, 15);
    expect(summary.total.caching_saving).toBeCloseTo(2 * saving, 15);
    expect(summary.mean.caching_saving).toBeCloseTo(saving, 15);
    expect(summary.total.saving_share).toBeCloseTo((2 * saving) / (0.068 + 2 * saving), 12);
  });

  it("never reads an unknown cost or price as 0", () => {
    const unknownCost = tokenUsage([conversation(0, { agent: 0.04, user: null })], {
      agent: SONNET,
      user: GPT41,
    });
    expect(unknownCost.per_conversation[0]!.cost).toBeNull();
    expect(unknownCost.total.cost).toBeNull();
    expect(unknownCost.total.saving_share).toBeNull();
    const unknownPrice = tokenUsage([conversation(0, { agent: 0.04, user: 0.005 })], {
      agent: SONNET,
      user: null,
    });
    expect(unknownPrice.total.caching_saving).toBeNull();
    expect(unknownPrice.mean.caching_saving).toBeNull();
  });

  it("is empty, not NaN, for no conversations", () => {
    const summary = tokenUsage([], { agent: null, user: null });
    expect(summary.mean.agent).toEqual({ calls: 0, input: 0, cache_read: 0, cache_write: 0, output: 0 });
    expect(summary.mean.cost).toBeNull();
    expect(summary.total.cost).toBe(0);
    expect(summary.total.saving_share).toBeNull();
  });
});

describe("describeTokenUsage", () => {
  it("says the mean tokens per side, the cost and the caching saving, and nothing when no call recorded usage", () => {
    const lines = describeTokenUsage(
      tokenUsage(
        [conversation(0, { agent: 0.04, user: 0.005 }), conversation(1, { agent: 0.02, user: 0.003 })],
        { agent: SONNET, user: GPT41 },
      ),
    );
    expect(lines[0]).toBe(
      "tokens per conversation (mean over 2 conversations, infrastructure errors included):",
    );
    expect(lines[1]).toBe(
      "  agent    2 calls  input 10,200 (cache read 4,900, cache write 5,150)  output 100",
    );
    expect(lines[3]).toBe("cost per conversation: $0.0340 ($0.0680 in all)");
    expect(lines[4]).toMatch(/^prompt caching saved \$0\.0111 per conversation \(\$0\.0222 in all, 25% of /);
    const unpriced = describeTokenUsage(
      tokenUsage([conversation(0, { agent: null, user: 0.005 })], { agent: null, user: GPT41 }),
    );
    expect(unpriced.slice(3)).toEqual([
      "cost per conversation: unknown (a model has no price)",
      "prompt caching: the saving is unknown (a model has no price)",
    ]);
    expect(describeTokenUsage(tokenUsage([], { agent: null, user: null }))).toEqual([]);
  });
});
