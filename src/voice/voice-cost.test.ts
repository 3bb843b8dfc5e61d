import { describe, expect, it } from "vitest";
import { describeVoiceRunCost } from "./voice-cost.js";

describe("describeVoiceRunCost", () => {
  it("adds both sides when both are known, and says why a side is unknown otherwise", () => {
    expect(describeVoiceRunCost({ agent: 0.5, user: 0.125 })).toBe(
      "cost $0.6250: agent $0.5000, customer $0.1250",
    );
    expect(describeVoiceRunCost({ agent: 0.5, user: null, userUnknown: "elevenlabs has no price" })).toBe(
      "cost: agent $0.5000, customer unknown (elevenlabs has no price)",
    );
    expect(describeVoiceRunCost({ agent: null, user: null })).toBe(
      "cost: agent unknown (no usage), customer unknown (no usage)",
    );
  });
});
