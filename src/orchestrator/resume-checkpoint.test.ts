import { describe, expect, it } from "vitest";
import type { Agent, UserSimulator } from "../core/agent.js";
import { hasToolCalls, type Message, type UserMessage } from "../core/message.js";
import type { TurnCheckpoint } from "../core/run-store.js";
import { goldAgent } from "../agents/gold-agent.js";
import { replayAgent } from "../agents/replay-agent.js";
import { builtinDomains } from "../domains/registry.js";
import { evaluateSimulation } from "../evaluation/evaluate-simulation.js";
import { DomainData } from "../formats/tau2/domain-data.js";
import { conversationSetup } from "../runner/simulation-setup.js";
import { tau2DataDir } from "../testing/tau2-fixtures.js";
import { goldUser } from "../users/gold-user.js";
import { runSimulation, type SimulationSetup } from "./simulate.js";
import { CheckpointMismatchError } from "./resume-checkpoint.js";

const telecom = new DomainData(builtinDomains.get("telecom")!, tau2DataDir());
// A task where both sides call tools (the customer on their phone), so both worlds must be rebuilt.
const task = telecom.tasks.find(
  (t) =>
    (t.evaluation_criteria?.actions ?? []).some((a) => a.requestor === "user") &&
    (t.evaluation_criteria?.actions ?? []).some((a) => a.requestor === "assistant"),
)!;

/** A customer that re-sends the user messages of a recording; where it is follows from the history. */
function replayUser(recorded: readonly Message[]): UserSimulator {
  const messages = recorded.filter((m): m is UserMessage => m.role === "user");
  return {
    name: "replay-user",
    resumesFromHistory: true,
    start(init) {
      let index = init.history.filter((m) => m.role === "user").length;
      return {
        respond: async () => {
          const next = messages[index++];
          return next
            ? {
                role: "user",
                content: next.content ?? null,
                ...(next.tool_calls ? { tool_calls: next.tool_calls } : {}),
                cost: 0,
              }
            : { role: "user", content: "###STOP###", cost: 0 };
        },
      };
    },
  };
}

/** Counts the turns a participant is asked for. */
function counted<T extends Agent | UserSimulator>(participant: T, calls: { n: number }): T {
  return {
    ...participant,
    start: async (init: never) => {
      const session = await participant.start(init);
      return {
        ...session,
        respond: (incoming: never) => {
          calls.n++;
          return session.respond(incoming);
        },
      };
    },
  } as T;
}

const clock = () => {
  let t = Date.parse("2026-01-01T00:00:00Z");
  return () => new Date((t += 1000));
};

function setupOf(agent: Agent, user: UserSimulator, extra: Partial<SimulationSetup> = {}): SimulationSetup {
  return {
    ...conversationSetup({ data: telecom, task, agent, user, seed: 7, trial: 0 }),
    now: clock(),
    ...extra,
  };
}

const shape = (messages: readonly Message[]) =>
  messages.map((m) => ({
    role: m.role,
    content: m.content ?? null,
    tool_calls: "tool_calls" in m ? (m.tool_calls ?? null) : null,
  }));

describe("a conversation continued from a turn checkpoint", async () => {
  const gold = await runSimulation(setupOf(goldAgent, goldUser));
  const agent = replayAgent(gold.messages);
  const user = replayUser(gold.messages);
  const saved: TurnCheckpoint[] = [];
  const referenceSetup = setupOf(agent, user, {
    checkpoint: async (c) => void saved.push(structuredClone(c)),
  });
  const reference = await runSimulation(referenceSetup);
  /** Both databases as they stand (the world after the conversation), as JSON. */
  const worldOf = (setup: SimulationSetup) => JSON.stringify([setup.world.agentDb, setup.world.userDb]);
  const grade = (run: typeof reference) =>
    evaluateSimulation(run, task, { newWorld: (o) => telecom.newWorld(o) });
  const referenceReward = await grade(reference);

  it("is the gold conversation, saved after every turn but those whose tool calls are pending", () => {
    expect(referenceReward.reward).toBe(1);
    expect(shape(reference.messages)).toEqual(shape(gold.messages));
    // One checkpoint per completed turn, each a prefix of the conversation.
    expect(saved.length).toBeGreaterThan(4);
    for (const checkpoint of saved) {
      expect(shape(checkpoint.messages)).toEqual(
        shape(reference.messages.slice(0, checkpoint.messages.length)),
      );
      expect(hasToolCalls(checkpoint.messages.at(-1)!)).toBe(false);
    }
    expect(saved.map((c) => c.steps)).toEqual([...saved.map((c) => c.steps)].sort((a, b) => a - b));
  });

  it("from every checkpoint: the same messages, world and grade, asking only for the turns left", async () => {
    for (const checkpoint of saved) {
      const agentCalls = { n: 0 };
      const userCalls = { n: 0 };
      const resumedSetup = setupOf(counted(agent, agentCalls), counted(user, userCalls), {
        resume: structuredClone(checkpoint),
      });
      const resumed = await runSimulation(resumedSetup);
      // The world was rebuilt: both databases end as the uninterrupted conversation's.
      expect(worldOf(resumedSetup)).toBe(worldOf(referenceSetup));
      expect(shape(resumed.messages)).toEqual(shape(reference.messages));
      expect(resumed.termination_reason).toBe(reference.termination_reason);
      expect(resumed.id).toBe(reference.id);
      expect((resumed.info as { resumed_at_message?: number }).resumed_at_message).toBe(
        checkpoint.messages.length,
      );
      const rest = reference.messages.slice(checkpoint.messages.length);
      expect(agentCalls.n).toBe(rest.filter((m) => m.role === "assistant").length);
      expect(userCalls.n).toBe(rest.filter((m) => m.role === "user").length);
      const reward = await grade(resumed);
      expect(reward).toEqual(referenceReward);
      expect(resumed.duration).toBeGreaterThanOrEqual(checkpoint.elapsedSeconds);
    }
  });

  it("a checkpoint that cannot be saved is said once and costs the conversation nothing", async () => {
    let attempts = 0;
    const run = await runSimulation(
      setupOf(agent, user, {
        checkpoint: async () => {
          attempts++;
          throw new Error("the disk is full");
        },
      }),
    );
    expect(shape(run.messages)).toEqual(shape(reference.messages));
    expect(run.termination_reason).toBe(reference.termination_reason);
    expect(attempts).toBe(1);
    expect((run.info as { checkpoint_error?: string }).checkpoint_error).toBe("the disk is full");
  });

  it("a recorded tool answer the world no longer gives is refused before anyone is called", async () => {
    const checkpoint = structuredClone(saved.at(-1)!);
    const toolIndex = checkpoint.messages.findIndex((m) => m.role === "tool");
    checkpoint.messages[toolIndex] = {
      ...checkpoint.messages[toolIndex]!,
      content: "something else",
    } as Message;
    const calls = { n: 0 };
    await expect(
      runSimulation(setupOf(counted(agent, calls), counted(user, calls), { resume: checkpoint })),
    ).rejects.toThrow(CheckpointMismatchError);
    expect(calls.n).toBe(0);
  });
});
