import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { InvalidInputFileError } from "../core/errors.js";
import { callCost, isPriced, loadPriceOverrides } from "./cost.js";

const usage = { inputTokens: 1_000, outputTokens: 100 };

describe("callCost", () => {
  it("prices a known model from the genai-prices table", () => {
    // gpt-4o: $2.50 per million input tokens, $10 per million output tokens.
    const cost = callCost({ provider: "openai", model: "gpt-4o", usage, lookup: { providerId: "openai" } });
    expect(cost).toBeCloseTo(1_000 * 2.5e-6 + 100 * 10e-6, 12);
  });

  it("is null, not 0, for a model the table does not know", () => {
    expect(
      callCost({ provider: "openai", model: "no-such-model", usage, lookup: { providerId: "openai" } }),
    ).toBeNull();
    // A local OpenAI-compatible server is recognised by no one: unknown price.
    expect(
      callCost({
        provider: "openai-compatible",
        model: "gpt-4o",
        usage,
        lookup: { providerApiUrl: "http://127.0.0.1:11434/v1" },
      }),
    ).toBeNull();
  });

  it("prefers an override, by full spec first and bare model name second", () => {
    const overrides = {
      models: {
        "openai-compatible:llama3.1:8b": { input_mtok: 1, output_mtok: 2 },
        "gpt-4o": { input_mtok: 100, output_mtok: 0 },
      },
    };
    const local = callCost({
      provider: "openai-compatible",
      model: "llama3.1:8b",
      usage,
      lookup: { providerApiUrl: "http://127.0.0.1:11434/v1" },
      overrides,
    });
    expect(local).toBeCloseTo(1_000 * 1e-6 + 100 * 2e-6, 12);
    const bare = callCost({
      provider: "openai",
      model: "gpt-4o",
      usage,
      lookup: { providerId: "openai" },
      overrides,
    });
    expect(bare).toBeCloseTo(0.1, 12);
  });

  it("charges cached prompt tokens at the cache-read rate", () => {
    const overrides = { models: { m: { input_mtok: 10, output_mtok: 0, cache_read_mtok: 1 } } };
    const cost = callCost({
      provider: "openai-compatible",
      model: "m",
      usage: { inputTokens: 1_000, outputTokens: 0, cacheReadTokens: 400 },
      lookup: {},
      overrides,
    });
    expect(cost).toBeCloseTo(600 * 10e-6 + 400 * 1e-6, 12);
  });
});

describe("isPriced", () => {
  it("is true exactly when callCost can price the model", () => {
    const local = { providerApiUrl: "http://127.0.0.1:11434/v1" };
    expect(isPriced({ provider: "openai", model: "gpt-4o", lookup: { providerId: "openai" } })).toBe(true);
    expect(isPriced({ provider: "openai", model: "no-such-model", lookup: { providerId: "openai" } })).toBe(
      false,
    );
    expect(isPriced({ provider: "openai-compatible", model: "gpt-4o", lookup: local })).toBe(false);
    expect(isPriced({ provider: "openai-compatible", model: "gpt-4o", lookup: {} })).toBe(false);
    const overrides = { models: { "llama3.1:8b": { input_mtok: 0, output_mtok: 0 } } };
    expect(isPriced({ provider: "openai-compatible", model: "llama3.1:8b", lookup: local, overrides })).toBe(
      true,
    );
  });
});

describe("loadPriceOverrides", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "passk-prices-"));

  it("reads a valid file", () => {
    const file = path.join(dir, "ok.json");
    writeFileSync(file, JSON.stringify({ models: { "openai:gpt-4o": { input_mtok: 2, output_mtok: 8 } } }));
    expect(loadPriceOverrides(file)).toEqual({
      models: { "openai:gpt-4o": { input_mtok: 2, output_mtok: 8 } },
    });
  });

  it("reports each problem with its path", () => {
    const file = path.join(dir, "bad.json");
    writeFileSync(file, JSON.stringify({ models: { "openai:gpt-4o": { input_mtok: -1 } } }));
    let error: unknown;
    try {
      loadPriceOverrides(file);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidInputFileError);
    const paths = (error as InvalidInputFileError).problems.map((problem) => problem.path);
    expect(paths).toEqual(['$.models["openai:gpt-4o"].input_mtok', '$.models["openai:gpt-4o"].output_mtok']);
  });

  it("names the line and column of a JSON syntax error", () => {
    const file = path.join(dir, "syntax.json");
    writeFileSync(file, '{"models": {\n  "gpt-4o": {"input_mtok": 1,}\n}}');
    expect(() => loadPriceOverrides(file)).toThrow(InvalidInputFileError);
    expect(() => loadPriceOverrides(file)).toThrow(/line 2, column \d+/);
  });
});
