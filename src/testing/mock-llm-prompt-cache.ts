import { createHash } from "node:crypto";
import type { MockPromptLayout } from "./mock-llm-codec.js";

/** What the simulated prompt cache did for one request, in prompt tokens. */
export interface MockPromptCacheUsage {
  /** Read from the cache: the longest prefix cached by an earlier request. */
  readTokens: number;
  /** Written to the cache (explicit caching only): from the read prefix up to the last marker. */
  writeTokens: number;
}

export interface MockPromptCacheOptions {
  /** The shortest prefix a provider caches (Anthropic's Claude Sonnet and Opus, OpenAI: 1024 tokens). */
  minTokens: number;
  /** Prefixes remembered at most; the oldest are forgotten first (a provider's cache expires). */
  capacity: number;
}

/** Anthropic looks for a cached prefix at each of the 20 block boundaries before a breakpoint. */
const LOOKBACK_BLOCKS = 20;
/** OpenAI caches prefixes in steps of 128 tokens past the first 1024. */
const AUTOMATIC_STEP_TOKENS = 128;

/**
 * A provider's prompt cache, deterministically: prefixes are told apart by a SHA-256 of their blocks'
 * bytes (markers left out), and a prefix's tokens are its share of the prompt's characters times the
 * prompt's tokens, so a cached part never exceeds the whole.
 *
 * - explicit (Anthropic, Bedrock): a request reads the longest prefix an earlier request cached at a
 *   block boundary up to 20 blocks before one of its markers, and writes the rest up to its last marker
 *   long enough to be cached;
 * - automatic (OpenAI): every prefix of at least `minTokens` is cached at each block boundary, and read
 *   back rounded down to 1024 + 128·k tokens.
 */
export function createMockPromptCache(options: MockPromptCacheOptions) {
  const cached = new Map<string, true>();
  const remember = (key: string) => {
    cached.delete(key);
    cached.set(key, true);
    if (cached.size > options.capacity) cached.delete(cached.keys().next().value!);
  };

  return {
    minTokens: options.minTokens,
    /** What the cache reads and writes for a prompt of `promptTokens` laid out as `layout`; `scope` separates models. */
    use(
      scope: string,
      layout: MockPromptLayout,
      mode: "explicit" | "automatic",
      promptTokens: number,
    ): MockPromptCacheUsage {
      const { blocks } = layout;
      const cumulative: number[] = [];
      let characters = 0;
      for (const block of blocks) cumulative.push((characters += block.length));
      const tokensAt = (block: number) =>
        characters === 0 ? 0 : Math.floor((promptTokens * cumulative[block]!) / characters);
      const hashes: string[] = [];
      const keyAt = (block: number) => {
        for (let i = hashes.length; i <= block; i++) {
          hashes.push(
            createHash("sha256")
              .update(hashes[i - 1] ?? scope)
              .update(blocks[i]!)
              .digest("hex"),
          );
        }
        return hashes[block]!;
      };
      const long = (block: number) => tokensAt(block) >= options.minTokens;

      if (mode === "automatic") {
        let readTokens = 0;
        for (let block = blocks.length - 1; block >= 0 && long(block); block--) {
          if (cached.has(keyAt(block))) {
            const over = tokensAt(block) - options.minTokens;
            readTokens = options.minTokens + over - (over % AUTOMATIC_STEP_TOKENS);
            break;
          }
        }
        for (let block = 0; block < blocks.length; block++) if (long(block)) remember(keyAt(block));
        return { readTokens, writeTokens: 0 };
      }

      const markers = [...new Set(layout.breakpoints.map((breakpoint) => breakpoint.block))].sort(
        (a, b) => a - b,
      );
      let readTokens = 0;
      let readAt = -1;
      for (const marker of markers) {
        for (let block = marker; block >= 0 && block > marker - LOOKBACK_BLOCKS; block--) {
          if (!cached.has(keyAt(block))) continue;
          if (block > readAt) {
            readAt = block;
            readTokens = tokensAt(block);
          }
          break;
        }
      }
      const written = markers.filter(long);
      for (const marker of written) remember(keyAt(marker));
      const last = written.at(-1);
      const writeTokens = last !== undefined && last > readAt ? tokensAt(last) - readTokens : 0;
      return { readTokens, writeTokens };
    },
  };
}

export type MockPromptCache = ReturnType<typeof createMockPromptCache>;
