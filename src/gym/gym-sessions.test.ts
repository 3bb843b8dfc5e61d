import { describe, expect, it } from "vitest";
import { builtinDomains } from "../domains/registry.js";
import { DomainData } from "../formats/tau2/domain-data.js";
import { tau2DataDir } from "../testing/tau2-fixtures.js";
import { AgentGym } from "./agent-gym.js";
import { GymSessionNotFoundError, GymSessions, GymSessionsFullError } from "./gym-sessions.js";

const airline = new DomainData(builtinDomains.get("airline")!, tau2DataDir());

describe("GymSessions", () => {
  it("closes a session left idle past its limit, freeing its place; a used one stays", async () => {
    let clock = 0;
    const sessions = new GymSessions(
      () => new AgentGym({ domain: () => airline }),
      { maxSessions: 2, idleMs: 1_000 },
      () => clock,
    );
    const idle = await sessions.create({ domain: "airline", taskId: "0" });
    const used = await sessions.create({ domain: "airline", taskId: "1" });
    await expect(sessions.create({ domain: "airline", taskId: "2" })).rejects.toThrow(GymSessionsFullError);
    clock = 800;
    await sessions.step(used.session, { content: "Let me check." });
    clock = 1_500;
    expect(sessions.size).toBe(1);
    await expect(sessions.step(idle.session, { content: "hello?" })).rejects.toThrow(GymSessionNotFoundError);
    const third = await sessions.create({ domain: "airline", taskId: "2" });
    expect(third.observation.done).toBe(false);
    sessions.closeAll();
    expect(sessions.size).toBe(0);
  });
});
