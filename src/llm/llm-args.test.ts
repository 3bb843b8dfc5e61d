import { describe, expect, it } from "vitest";
import { ConfigError } from "../core/errors.js";
import { mergeLlmArgs, parseLlmArgs } from "./llm-args.js";

describe("parseLlmArgs", () => {
  it("reads τ²-style snake_case settings and camelCase aliases", () => {
    expect(
      parseLlmArgs('{"temperature": 0, "maxTokens": 512, "topP": 0.9, "seed": 7, "stop": "END"}'),
    ).toEqual({
      temperature: 0,
      max_tokens: 512,
      top_p: 0.9,
      seed: 7,
      stop: "END",
    });
  });

  it("names the flag when the text is not JSON", () => {
    expect(() => parseLlmArgs("{temperature: 0}", "--user-llm-args")).toThrow(ConfigError);
    expect(() => parseLlmArgs("{temperature: 0}", "--user-llm-args")).toThrow(
      /^--user-llm-args is not valid JSON/,
    );
  });

  it("rejects unknown keys with a suggestion, and out-of-range values with the path", () => {
    expect(() => parseLlmArgs('{"temprature": 0.2}', "--agent-llm-args")).toThrow(
      /--agent-llm-args is not valid:\n {2}- "temprature" is not a known setting; did you mean "temperature"\?/,
    );
    expect(() => parseLlmArgs('{"temperature": 3}', "--judge-llm-args")).toThrow(
      /--judge-llm-args is not valid:\n {2}- temperature: /,
    );
    expect(() => parseLlmArgs('{"max_tokens": 1.5}')).toThrow(/max_tokens/);
    expect(() => parseLlmArgs("[1]")).toThrow(/must be a JSON object/);
  });

  it("refuses a setting given twice under two names", () => {
    expect(() => parseLlmArgs('{"max_tokens": 5, "maxTokens": 6}')).toThrow(/sets "max_tokens" twice/);
  });
});

describe("mergeLlmArgs", () => {
  it("lets request settings override model settings key by key", () => {
    expect(
      mergeLlmArgs(
        { temperature: 0, seed: 1, provider_options: { openai: { a: 1, b: 2 } } },
        { seed: 2, provider_options: { openai: { b: 3 } } },
      ),
    ).toEqual({ temperature: 0, seed: 2, provider_options: { openai: { a: 1, b: 3 } } });
  });
});
