import { describe, expect, it } from "vitest";
import { parseVoiceAgentSpec, voiceAgentFactory } from "../src/voice/agents/voice-agent-spec.js";

describe("--voice-agent specs", () => {
  it("reads realtime providers, Gemini Live, the cascade and a team's own agent", () => {
    expect(parseVoiceAgentSpec("openai")).toEqual({
      kind: "realtime",
      provider: "openai",
      model: "gpt-realtime",
    });
    expect(parseVoiceAgentSpec("xai:grok-voice")).toEqual({
      kind: "realtime",
      provider: "xai",
      model: "grok-voice",
    });
    expect(parseVoiceAgentSpec("gemini:gemini-live-x")).toEqual({ kind: "gemini", model: "gemini-live-x" });
    expect(parseVoiceAgentSpec("cascaded")).toEqual({ kind: "cascaded" });
    expect(parseVoiceAgentSpec("ws:ws://127.0.0.1:9000/call")).toEqual({
      kind: "ws",
      spec: "ws:ws://127.0.0.1:9000/call",
    });
  });

  it("refuses what it cannot run with a sentence naming the fix, before any call", () => {
    expect(() => parseVoiceAgentSpec("acme:voice")).toThrow(
      /unknown voice agent "acme"; use one of openai, xai, azure, gemini, cascaded, ws/,
    );
    expect(() => parseVoiceAgentSpec("azure")).toThrow(/name the model \(or Azure deployment\)/);
    expect(() => parseVoiceAgentSpec("ws:http://x")).toThrow(/is not a WebSocket URL/);
    expect(() => voiceAgentFactory(parseVoiceAgentSpec("openai"), { env: {} })).toThrow(
      /needs OPENAI_API_KEY/,
    );
    expect(() => voiceAgentFactory(parseVoiceAgentSpec("gemini"), { env: {} })).toThrow(
      /needs GEMINI_API_KEY/,
    );
    expect(() =>
      voiceAgentFactory(parseVoiceAgentSpec("azure:dep"), { env: { AZURE_API_KEY: "k".repeat(20) } }),
    ).toThrow(/needs --voice-agent-url/);
    expect(() => voiceAgentFactory(parseVoiceAgentSpec("cascaded"), { env: {} })).toThrow(
      /needs --agent-llm/,
    );
    const made = voiceAgentFactory(parseVoiceAgentSpec("xai:grok-voice"), {
      env: { XAI_API_KEY: "xai-secret-key-000" },
    });
    expect(made.make().model).toBe("xai:grok-voice");
    expect(JSON.stringify(made)).not.toContain("xai-secret-key-000");
  });
});
