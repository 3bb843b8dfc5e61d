import { describe, expect, it } from "vitest";
import type { MockPromptLayout } from "./mock-llm-codec.js";
import { createMockPromptCache } from "./mock-llm-prompt-cache.js";

/** Blocks of the given sizes (in characters), with markers ending at the given blocks. */
function layout(sizes: number[], markers: number[] = []): MockPromptLayout {
  return {
    blocks: sizes.map((size, i) => String.fromCharCode(97 + i).repeat(size)),
    breakpoints: markers.map((block) => ({
      at: "messages",
      index: block,
      marker: { type: "ephemeral" },
      block,
    })),
  };
}

// Three blocks of 400, 400 and 200 characters in a prompt of 2,000 tokens: prefixes of 800, 1,600 and
// 2,000 tokens. With a fourth block of 1,000 characters and 4,000 tokens, the same prefixes keep their
// sizes and the whole prompt is 4,000.
describe("the mock's explicit prompt cache (Anthropic, Bedrock)", () => {
  it("writes up to the last marker, reads back the longest prefix cached before", () => {
    const cache = createMockPromptCache({ minTokens: 1024, capacity: 100 });
    expect(cache.use("m", layout([400, 400, 200], [1, 2]), "explicit", 2_000)).toEqual({
      readTokens: 0,
      writeTokens: 2_000,
    });
    expect(cache.use("m", layout([400, 400, 200], [1, 2]), "explicit", 2_000)).toEqual({
      readTokens: 2_000,
      writeTokens: 0,
    });
    // The next turn: the old prompt is read at a block boundary before the new marker; the rest is written.
    expect(cache.use("m", layout([400, 400, 200, 1_000], [1, 3]), "explicit", 4_000)).toEqual({
      readTokens: 2_000,
      writeTokens: 2_000,
    });
    // Another model shares nothing; no marker caches nothing; a prefix under the minimum is not cached.
    expect(cache.use("other", layout([400, 400, 200], [2]), "explicit", 2_000).readTokens).toBe(0);
    expect(cache.use("m", layout([400, 400, 200]), "explicit", 2_000)).toEqual({
      readTokens: 0,
      writeTokens: 0,
    });
    expect(cache.use("short", layout([400, 600], [0]), "explicit", 2_000)).toEqual({
      readTokens: 0,
      writeTokens: 0,
    });
    expect(cache.use("short", layout([400, 600], [0, 1]), "explicit", 2_000)).toEqual({
      readTokens: 0,
      writeTokens: 2_000,
    });
  });

  it("forgets the oldest prefixes past its capacity", () => {
    const cache = createMockPromptCache({ minTokens: 1, capacity: 1 });
    cache.use("m", layout([400], [0]), "explicit", 2_000);
    cache.use("m", layout([300], [0]), "explicit", 2_000);
    expect(cache.use("m", layout([400], [0]), "explicit", 2_000).readTokens).toBe(0);
  });
});

describe("the mock's automatic prompt cache (OpenAI)", () => {
  it("reads the longest prefix of at least 1024 tokens seen before, in steps of 128 tokens", () => {
    const cache = createMockPromptCache({ minTokens: 1024, capacity: 100 });
    expect(cache.use("m", layout([400, 400, 200]), "automatic", 2_000)).toEqual({
      readTokens: 0,
      writeTokens: 0,
    });
    // The 2,000-token prefix was seen: 1,024 + 7 × 128 = 1,920 tokens are read.
    expect(cache.use("m", layout([400, 400, 200, 1_000]), "automatic", 4_000)).toEqual({
      readTokens: 1_920,
      writeTokens: 0,
    });
    // A prompt that shares only its first 800 tokens shares nothing cacheable.
    expect(cache.use("m", layout([400, 500, 100]), "automatic", 2_000).readTokens).toBe(0);
  });
});
