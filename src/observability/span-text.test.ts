import { describe, expect, it } from "vitest";
import { environmentSecrets } from "../llm/environment-secrets.js";
import { spanTextFilter } from "./span-text.js";

describe("spanTextFilter", () => {
  it("removes the environment's keys, base-URL credentials and anything shaped like a key, then bounds the text", () => {
    const secrets = environmentSecrets(
      {
        ANTHROPIC_API_KEY: "ant-key-0123456789",
        OPENAI_BASE_URL: "https://me:proxy-pass-42@proxy.example/v1",
        OPENAI_API_KEY: " ",
        HOME: "/home/someone",
      },
      ["Basic b3RscDpzZWNyZXQ="],
    );
    expect(secrets.sort()).toEqual(
      ["Basic b3RscDpzZWNyZXQ=", "ant-key-0123456789", "me", "proxy-pass-42"].sort(),
    );
    const text = spanTextFilter(secrets);
    expect(
      text(
        '{"note":"key ant-key-0123456789, pass proxy-pass-42, header Basic b3RscDpzZWNyZXQ=, Bearer abcdefgh1234, sk-live1234567890"}',
      ),
    ).toBe('{"note":"key [redacted], pass [redacted], header [redacted], Bearer [redacted], [redacted]"}');
    expect(text("/home/someone")).toBe("/home/someone");
    expect(text("x".repeat(10), 4)).toBe("xxxx… [6 more characters]");
    expect(text("x".repeat(4), 4)).toBe("xxxx");
  });
});
