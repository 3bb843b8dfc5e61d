import { describe, expect, it } from "vitest";
import type { Agent, UserSimulator } from "../core/agent.js";
import type { AssistantMessage, UserMessage } from "../core/message.js";
import type { SimulationRun } from "../core/simulation.js";
import { goldAgent } from "../agents/gold-agent.js";
import { builtinDomains } from "../domains/registry.js";
import { toolSpecs } from "../env/tool-schema.js";
import { DomainData } from "../formats/tau2/domain-data.js";
import { tau2DataDir } from "../testing/tau2-fixtures.js";
import { goldUser } from "../users/gold-user.js";
import { scriptedUser } from "../users/scripted-user.js";
import type { SimulationEvent } from "./events.js";
import { runSimulation, type SimulationSetup } from "./simulate.js";
import { passkRules, tau2Rules, turnRules } from "./turn-rules.js";

// One suite of scripted conversations on the mock domain, run under both turn rules: where the τ² and
// passk protocols agree, everything the conversation yields is identical; where they differ (the
// differences documented on `tau2Rules` and `passkRules`), each ends as its rules say.

const data = new DomainData(builtinDomains.get("mock")!, tau2DataDir());

interface Scenario {
  task: string;
  agent: () => Agent;
  user: () => UserSimulator;
  extra?: Partial<SimulationSetup>;
}

function counterClock(): () => Date {
  let t = Date.UTC(2026, 0, 1);
  return () => new Date((t += 1000));
}

/** A conversation under one protocol: every event and the result, with run-time measurements zeroed. */
async function play(scenario: Scenario, protocol: "tau2" | "passk") {
  const events: SimulationEvent[] = [];
  const setup: SimulationSetup = {
    task: data.task(scenario.task),
    world: data.newWorld(),
    agent: scenario.agent(),
    user: scenario.user(),
    policy: data.policy,
    agentTools: toolSpecs(data.domain.agent.tools),
    userTools: toolSpecs(data.domain.user?.tools ?? []),
    simulationId: "sim",
    now: counterClock(),
    protocol,
    ...scenario.extra,
  };
  const run = await runSimulation(setup, (event) => events.push(event));
  const zeroed = JSON.parse(
    JSON.stringify({ events, run }, (k, v: unknown) => (k === "latencyMs" || k === "duration" ? 0 : v)),
  ) as { events: SimulationEvent[]; run: SimulationRun };
  return { ...zeroed, text: JSON.stringify(zeroed) };
}

const sequence = <M>(messages: M[]) => {
  let i = 0;
  return () => structuredClone(messages[Math.min(i++, messages.length - 1)]!);
};
const agentSaying =
  (...messages: AssistantMessage[]) =>
  (): Agent => {
    const next = sequence(messages);
    return { name: "scripted-agent", start: () => ({ respond: async () => next() }) };
  };
const userSaying =
  (...messages: UserMessage[]) =>
  (): UserSimulator => {
    const next = sequence(messages);
    return { name: "scripted-user", start: () => ({ respond: async () => next() }) };
  };
const say = (content: string): AssistantMessage => ({ role: "assistant", content, cost: 0 });
const malformedCall = (requestor: "assistant" | "user") => ({
  id: "c1",
  name: "create_task",
  arguments: {},
  requestor,
  raw_arguments: '{"user_id": ',
});
const unknownToolUser = userSaying({
  role: "user",
  content: null,
  tool_calls: [{ id: "u1", name: "no_such_tool", arguments: {}, requestor: "user" }],
});

const agreeing: Record<string, Scenario> = {
  ...Object.fromEntries(
    data.tasks.map((t) => [
      `gold agent, gold customer on ${t.id}`,
      { task: t.id, agent: () => goldAgent, user: () => goldUser },
    ]),
  ),
  "the customer's ###TRANSFER###": {
    task: "create_task_1",
    agent: agentSaying(say("ok")),
    user: () => scriptedUser(["please transfer me ###TRANSFER###"]),
  },
  "max steps": {
    task: "create_task_1",
    agent: agentSaying(say("tell me more")),
    user: () => scriptedUser(Array(20).fill("more")),
    extra: { maxSteps: 6 },
  },
  "the agent's unknown tools until --max-errors": {
    task: "create_task_1",
    agent: agentSaying({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "a1", name: "delete_everything", arguments: {}, requestor: "assistant" }],
    }),
    user: () => scriptedUser(["hi"]),
    extra: { maxErrors: 3 },
  },
  "the customer's model throws": {
    task: "create_task_1",
    agent: agentSaying(say("ok")),
    user: () => ({
      name: "broken",
      start: () => ({ respond: () => Promise.reject(new Error("content filter")) }),
    }),
  },
};

describe("turn rules: the same conversations under τ²'s and passk's", () => {
  it("select by protocol, passk's by default", () => {
    expect(turnRules("tau2")).toBe(tau2Rules);
    expect(turnRules("passk")).toBe(passkRules);
    expect(turnRules(undefined)).toBe(passkRules);
  });

  it.each(Object.entries(agreeing))(
    "agree on %s: the same events, messages and ending",
    async (_, scenario) => {
      const tau2 = await play(scenario, "tau2");
      const passk = await play(scenario, "passk");
      expect(tau2.events.length).toBeGreaterThan(2);
      expect(tau2.text).toBe(passk.text);
    },
  );

  it("differ on the agent's ###STOP### with a customer: only τ²'s customer ends the conversation", async () => {
    const scenario: Scenario = {
      task: "create_task_1",
      agent: agentSaying(say("Goodbye ###STOP###")),
      user: () => scriptedUser(["hi", "thanks", "###STOP###"]),
    };
    const tau2 = await play(scenario, "tau2");
    const passk = await play(scenario, "passk");
    expect(tau2.run.termination_reason).toBe("user_stop");
    expect(tau2.run.messages.map((m) => m.role)).toEqual([
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    expect(passk.run.termination_reason).toBe("agent_stop");
    expect(passk.run.messages.map((m) => m.role)).toEqual(["assistant", "user", "assistant"]);
    // Up to the agent's stop, both conversations are the same.
    expect(passk.run.messages).toEqual(tau2.run.messages.slice(0, 3));
  });

  it("differ on tool-call arguments that are not JSON: τ² ends as an infrastructure error, passk answers", async () => {
    const scenario: Scenario = {
      task: "create_task_1",
      agent: agentSaying({ role: "assistant", content: null, tool_calls: [malformedCall("assistant")] }),
      user: () => scriptedUser(["hi"]),
      extra: { maxErrors: 2 },
    };
    const tau2 = await play(scenario, "tau2");
    const passk = await play(scenario, "passk");
    expect(tau2.run.termination_reason).toBe("infrastructure_error");
    expect(tau2.run.info).toMatchObject({ error_type: "UnusableModelOutputError" });
    expect(tau2.run.messages.map((m) => m.role)).toEqual(["assistant", "user"]);
    expect(passk.run.termination_reason).toBe("too_many_errors");
    expect(passk.run.info).toBeUndefined();
    const answers = passk.run.messages.filter((m) => m.role === "tool");
    expect(answers).toHaveLength(2);
    expect(answers[0]).toMatchObject({
      error: true,
      content: expect.stringContaining("not a valid JSON object"),
    });
  });

  it("differ on the customer's arguments that are not JSON: τ² blames the simulator at once, passk answers", async () => {
    const scenario: Scenario = {
      task: "create_task_1",
      agent: agentSaying(say("ok")),
      user: userSaying(
        { role: "user", content: null, tool_calls: [malformedCall("user")] },
        { role: "user", content: "###STOP###" },
      ),
    };
    const tau2 = await play(scenario, "tau2");
    const passk = await play(scenario, "passk");
    expect(tau2.run.termination_reason).toBe("infrastructure_error");
    expect(tau2.run.info).toMatchObject({ fault: "user_simulator", error_type: "UnusableModelOutputError" });
    expect(passk.run.termination_reason).toBe("user_stop");
    expect(passk.run.messages.find((m) => m.role === "tool")).toMatchObject({
      requestor: "user",
      error: true,
    });
  });

  it("differ on the agent's empty message: τ²'s infrastructure error, passk's agent_error", async () => {
    const scenario: Scenario = {
      task: "create_task_1",
      agent: agentSaying(say("  ")),
      user: () => scriptedUser(["hi"]),
    };
    const tau2 = await play(scenario, "tau2");
    const passk = await play(scenario, "passk");
    expect(tau2.run.termination_reason).toBe("infrastructure_error");
    expect(tau2.run.info).toMatchObject({ error_type: "UnusableModelOutputError" });
    expect(passk.run.termination_reason).toBe("agent_error");
    expect(passk.run.info).toEqual({ error: "the agent sent an empty message" });
    // Neither lets the empty message in.
    expect(tau2.run.messages).toEqual(passk.run.messages);
  });

  it("differ on the customer's empty message only in the error recorded: both the simulator's fault", async () => {
    const scenario: Scenario = {
      task: "create_task_1",
      agent: agentSaying(say("ok")),
      user: () => scriptedUser([""]),
    };
    const tau2 = await play(scenario, "tau2");
    const passk = await play(scenario, "passk");
    for (const run of [tau2.run, passk.run]) {
      expect(run.termination_reason).toBe("infrastructure_error");
      expect(run.info).toMatchObject({ fault: "user_simulator" });
    }
    expect(tau2.run.info).toMatchObject({ error_type: "UnusableModelOutputError" });
    expect(passk.run.info).toMatchObject({ error_type: "UserSimulatorError" });
    expect(tau2.events.filter((e) => e.type !== "simulation-end")).toEqual(
      passk.events.filter((e) => e.type !== "simulation-end"),
    );
  });

  it("differ on the customer's own tool errors reaching --max-errors: τ²'s too_many_errors, passk's simulator failure", async () => {
    const scenario: Scenario = {
      task: "create_task_1",
      agent: agentSaying(say("ok")),
      user: unknownToolUser,
      extra: { maxErrors: 3 },
    };
    const tau2 = await play(scenario, "tau2");
    const passk = await play(scenario, "passk");
    expect(tau2.run.termination_reason).toBe("too_many_errors");
    expect(tau2.run.info).toEqual({ fault: "user_simulator" });
    expect(passk.run.termination_reason).toBe("infrastructure_error");
    expect(passk.run.info).toMatchObject({ fault: "user_simulator", error_type: "UserSimulatorError" });
    // The same conversation up to the limit.
    expect(tau2.run.messages).toEqual(passk.run.messages);
  });

  it("the rule objects state the differences directly", () => {
    expect([tau2Rules.agentStopEnds(false), tau2Rules.agentStopEnds(true)]).toEqual([false, true]);
    expect([passkRules.agentStopEnds(false), passkRules.agentStopEnds(true)]).toEqual([true, true]);
    const plain = say("hello");
    expect(tau2Rules.refuse(plain, "agent")).toBeUndefined();
    expect(passkRules.refuse(plain, "agent")).toBeUndefined();
    const counters = { steps: 4, errors: 3, userErrors: 1 };
    expect(tau2Rules.tooManyErrors(counters, 3)).toEqual({ reason: "too_many_errors" });
    expect(passkRules.tooManyErrors(counters, 3)).toEqual({ reason: "too_many_errors" });
  });
});
