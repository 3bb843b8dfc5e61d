import { describe, expect, it } from "vitest";
import { redactSecrets } from "./redact.js";

describe("redactSecrets", () => {
  it("removes known secrets wherever they appear", () => {
    expect(redactSecrets("key=abc-123-xyz; again abc-123-xyz", ["abc-123-xyz"])).toBe(
      "key=[redacted]; again [redacted]",
    );
  });

  it("removes bearer tokens, sk- keys and api-key headers it was not told about", () => {
    expect(redactSecrets("Authorization: Bearer tok_0123456789abcdef")).toBe(
      "Authorization: Bearer [redacted]",
    );
    expect(redactSecrets("Incorrect API key provided: sk-proj-AbCdEf0123456789.")).toBe(
      "Incorrect API key provided: [redacted].",
    );
    expect(redactSecrets('{"x-api-key": "ak-0123456789"}')).toBe('{"x-api-key": "[redacted]"}');
  });

  it("leaves ordinary text alone", () => {
    expect(redactSecrets("HTTP 500: the server is overloaded", ["secret-value"])).toBe(
      "HTTP 500: the server is overloaded",
    );
  });
});
