import { describe, expect, it } from "vitest";
import { participantOf } from "./run-info.js";

describe("participantOf", () => {
  it("names a side by its model, else its implementation, else nothing", () => {
    const info = {
      agent_info: { implementation: "llm_agent", llm: "openai:gpt-4.1" },
      user_info: { implementation: "gold_user", llm: null },
    };
    expect(participantOf(info, "agent_info")).toBe("openai:gpt-4.1");
    expect(participantOf(info, "user_info")).toBe("gold_user");
    expect(participantOf({ agent_info: null }, "agent_info")).toBeNull();
    expect(participantOf(null, "user_info")).toBeNull();
  });
});
