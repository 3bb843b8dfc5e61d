import { describe, expect, it } from "vitest";
import { ConfigError, UnknownNameError } from "../core/errors.js";
import { parseModelSpec } from "./model-spec.js";

const PROVIDERS = ["openai", "anthropic", "openai-compatible"];

describe("parseModelSpec", () => {
  it("splits at the first colon, so model names may contain colons", () => {
    expect(parseModelSpec("openai:gpt-4o", PROVIDERS)).toEqual({ provider: "openai", model: "gpt-4o" });
    expect(parseModelSpec("openai-compatible:llama3.1:8b", PROVIDERS)).toEqual({
      provider: "openai-compatible",
      model: "llama3.1:8b",
    });
  });

  it("asks for a provider when there is none", () => {
    expect(() => parseModelSpec("gpt-4o", PROVIDERS)).toThrow(ConfigError);
    expect(() => parseModelSpec("gpt-4o", PROVIDERS)).toThrow(
      'model "gpt-4o" has no provider; write <provider>:<model>, e.g. openai:gpt-4o',
    );
  });

  it("names the known providers and the closest one for a typo", () => {
    let error: unknown;
    try {
      parseModelSpec("opnai:gpt-4o", PROVIDERS);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UnknownNameError);
    expect((error as Error).message).toContain(
      'provider "opnai" is not known (known: openai, anthropic, openai-compatible)',
    );
    expect((error as Error).message).toContain('did you mean "openai"?');
  });

  it("rejects an empty provider or model", () => {
    expect(() => parseModelSpec(":gpt-4o", PROVIDERS)).toThrow(/empty provider/);
    expect(() => parseModelSpec("openai:", PROVIDERS)).toThrow(/empty model name/);
  });
});
