import { describe, expect, it } from "vitest";
import type { Agent, UserSimulator } from "../core/agent.js";
import { ConfigError } from "../core/errors.js";
import { InfrastructureError } from "../core/llm.js";
import type { AssistantMessage } from "../core/message.js";
import { goldAgent } from "../agents/gold-agent.js";
import { replayAgent } from "../agents/replay-agent.js";
import { builtinDomains } from "../domains/registry.js";
import { toolSpecs } from "../env/tool-schema.js";
import { evaluateSimulation } from "../evaluation/evaluate-simulation.js";
import { replayGoldActions } from "../evaluation/gold-replay.js";
import { DomainData } from "../formats/tau2/domain-data.js";
import { tau2DataDir } from "../testing/tau2-fixtures.js";
import { goldUser } from "../users/gold-user.js";
import { scriptedUser } from "../users/scripted-user.js";
import { runSimulation, simulate, type SimulationSetup } from "./simulate.js";
import type { SimulationEvent } from "./events.js";

const data = new DomainData(builtinDomains.get("mock")!, tau2DataDir());

function setup(
  taskId: string,
  agent: Agent,
  user: UserSimulator,
  extra: Partial<SimulationSetup> = {},
): SimulationSetup {
  return {
    task: data.task(taskId),
    world: data.newWorld(),
    agent,
    user,
    policy: data.policy,
    agentTools: toolSpecs(data.domain.agent.tools),
    userTools: toolSpecs(data.domain.user?.tools ?? []),
    ...extra,
  };
}

/** An agent that answers every turn with the same message. */
function constantAgent(message: AssistantMessage): Agent {
  return { name: "constant", start: () => ({ respond: async () => message }) };
}

describe("orchestrator", () => {
  it.each(data.tasks.map((t) => [t.id] as const))(
    "gold agent + gold user earn the gold replay's reward on %s",
    async (taskId) => {
      const run = await runSimulation(setup(taskId, goldAgent, goldUser));
      expect(run.termination_reason).toBe("user_stop");
      const reward = await evaluateSimulation(run, data.task(taskId), { newWorld: (o) => data.newWorld(o) });
      const gold = replayGoldActions("mock", data.task(taskId), (o) => data.newWorld(o));
      expect(reward.reward).toBe(gold.evaluation.reward_excluding_nl_assertions);
      run.messages.forEach((m, i) => expect(m.turn_idx).toBe(i));
    },
  );

  it("opens with the default greeting and streams tool calls, results and world changes", async () => {
    const events: SimulationEvent[] = [];
    const run = await runSimulation(setup("create_task_1", goldAgent, goldUser), (e) => events.push(e));
    expect(run.messages[0]).toMatchObject({ role: "assistant", content: "Hi! How can I help you today?" });
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("simulation-start");
    expect(types.at(-1)).toBe("simulation-end");
    const end = events.find((e) => e.type === "tool-call-end");
    expect(end).toMatchObject({
      call: { name: "create_task" },
      result: { error: false, content: expect.stringContaining('"task_id": "task_2"') },
    });
    const change = events.find((e) => e.type === "world-change");
    expect(change).toMatchObject({
      side: "agent",
      changes: { tasks: { added: { task_2: { title: "Important Meeting" } } } },
    });
  });

  it.each(["###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"])("ends on the user's %s", async (token) => {
    const run = await runSimulation(
      setup(
        "create_task_1",
        constantAgent({ role: "assistant", content: "ok" }),
        scriptedUser([`bye ${token}`]),
      ),
    );
    expect(run.termination_reason).toBe("user_stop");
    expect(run.messages.at(-1)?.content).toContain(token);
  });

  it("stops at max steps", async () => {
    const run = await runSimulation(
      setup(
        "create_task_1",
        constantAgent({ role: "assistant", content: "tell me more" }),
        scriptedUser(Array(50).fill("more")),
        { maxSteps: 6 },
      ),
    );
    expect(run.termination_reason).toBe("max_steps");
    expect(run.messages.length).toBe(7); // greeting + 6 steps
    expect(
      (await evaluateSimulation(run, data.task("create_task_1"), { newWorld: (o) => data.newWorld(o) }))
        .reward,
    ).toBe(0);
  });

  it("stops after max errors; malformed and unknown calls become tool errors", async () => {
    let n = 0;
    const agent: Agent = {
      name: "clumsy",
      start: () => ({
        respond: async () => ({
          role: "assistant",
          content: null,
          tool_calls: [
            n++ % 2 === 0
              ? {
                  id: `c${n}`,
                  name: "create_task",
                  arguments: {},
                  requestor: "assistant",
                  raw_arguments: '{"user_id": "user_1", ',
                }
              : { id: `c${n}`, name: "delete_everything", arguments: {}, requestor: "assistant" },
          ],
        }),
      }),
    };
    const run = await runSimulation(setup("create_task_1", agent, scriptedUser(["hi"]), { maxErrors: 3 }));
    expect(run.termination_reason).toBe("too_many_errors");
    const toolMessages = run.messages.filter((m) => m.role === "tool");
    expect(toolMessages).toHaveLength(3);
    expect(toolMessages[0]).toMatchObject({
      error: true,
      content: expect.stringContaining("not a valid JSON object"),
    });
    expect(toolMessages[1]).toMatchObject({
      error: true,
      content: "Error: Tool 'delete_everything' not found.",
    });
  });

  it("a provider outage is an infrastructure error, an agent bug an agent error", async () => {
    const failing = (error: Error): Agent => ({
      name: "f",
      start: () => ({ respond: async () => Promise.reject(error) }),
    });
    const infra = await runSimulation(
      setup(
        "create_task_1",
        failing(new InfrastructureError("HTTP 503 after 5 attempts", 5)),
        scriptedUser(["hi"]),
      ),
    );
    expect(infra.termination_reason).toBe("infrastructure_error");
    expect(infra.info).toEqual({ error: "HTTP 503 after 5 attempts", error_type: "InfrastructureError" });
    const bug = await runSimulation(
      setup("create_task_1", failing(new TypeError("x is undefined")), scriptedUser(["hi"])),
    );
    expect(bug.termination_reason).toBe("agent_error");
  });

  it("a set-up error (refused credentials) is thrown, never graded as the agent's or the customer's failure", async () => {
    const refused = new ConfigError("openai:gpt-x: the provider refused the credentials (HTTP 401)");
    const failingAgent: Agent = { name: "f", start: () => ({ respond: () => Promise.reject(refused) }) };
    await expect(runSimulation(setup("create_task_1", failingAgent, scriptedUser(["hi"])))).rejects.toBe(
      refused,
    );
    const failingUser: UserSimulator = {
      name: "u",
      start: () => ({ respond: () => Promise.reject(refused) }),
    };
    await expect(
      runSimulation(setup("create_task_1", constantAgent({ role: "assistant", content: "x" }), failingUser)),
    ).rejects.toBe(refused);
  });

  it("starts from a task's message history and replays its tool calls into the world", async () => {
    const task = data.task("update_task_with_message_history");
    const run = await runSimulation(setup(task.id, goldAgent, goldUser));
    const history = task.initial_state!.message_history!;
    expect(run.messages.slice(0, history.length).map((m) => m.role)).toEqual(history.map((m) => m.role));
    expect((await evaluateSimulation(run, task, { newWorld: (o) => data.newWorld(o) })).reward).toBe(1);
  });

  it("a replay agent reproduces a recorded conversation exactly", async () => {
    const first = await runSimulation(
      setup("update_task_1", goldAgent, goldUser, { now: () => new Date(0) }),
    );
    const again = await runSimulation(
      setup("update_task_1", replayAgent(first.messages), goldUser, { now: () => new Date(0) }),
    );
    const strip = (ms: typeof first.messages) =>
      ms.map((m) => ({
        role: m.role,
        content: m.content,
        tool_calls: "tool_calls" in m ? m.tool_calls : undefined,
      }));
    expect(strip(again.messages)).toEqual(strip(first.messages));
  });

  it("yields events lazily as an async iterator", async () => {
    const iterator = simulate(setup("create_task_1", goldAgent, goldUser));
    const first = await iterator.next();
    expect(first.value).toMatchObject({ type: "simulation-start", taskId: "create_task_1" });
    await iterator.return(undefined as never);
  });

  describe("under the τ² protocol", () => {
    const malformed: AssistantMessage = {
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: "c1",
          name: "create_task",
          arguments: {},
          requestor: "assistant",
          raw_arguments: '{"user_id": ',
        },
      ],
    };

    it("tool-call arguments that are not JSON end the simulation as an infrastructure error, not a scored failure", async () => {
      const tau2 = await runSimulation(
        setup("create_task_1", constantAgent(malformed), scriptedUser(["hi"]), { protocol: "tau2" }),
      );
      expect(tau2.termination_reason).toBe("infrastructure_error");
      expect(tau2.info).toMatchObject({ error_type: "UnusableModelOutputError" });
      expect(String((tau2.info as { error?: string }).error)).toContain(
        "the agent's model output is unusable",
      );
      // The unusable message never reaches the trajectory (the reference never built it).
      expect(tau2.messages.some((m) => m.role === "tool")).toBe(false);
      const reward = await evaluateSimulation(tau2, data.task("create_task_1"), {
        newWorld: (o) => data.newWorld(o),
      });
      expect(reward.reward).toBe(0);
      // passk's protocol answers the model with an error it can act on, and goes on.
      const passk = await runSimulation(
        setup("create_task_1", constantAgent(malformed), scriptedUser(["hi", "###STOP###"]), {
          maxErrors: 3,
        }),
      );
      expect(passk.termination_reason).toBe("too_many_errors");
      expect(passk.messages.find((m) => m.role === "tool")?.content).toContain("not a valid JSON object");
    });

    it("an empty message from the agent or the customer is an infrastructure error", async () => {
      const agent = await runSimulation(
        setup("create_task_1", constantAgent({ role: "assistant", content: "  " }), scriptedUser(["hi"]), {
          protocol: "tau2",
        }),
      );
      expect(agent.termination_reason).toBe("infrastructure_error");
      const user = await runSimulation(
        setup("create_task_1", constantAgent({ role: "assistant", content: "ok" }), scriptedUser([""]), {
          protocol: "tau2",
        }),
      );
      expect(user.termination_reason).toBe("infrastructure_error");
      expect(String((user.info as { error?: string }).error)).toContain(
        "user simulator's model sent an empty message",
      );
      expect(user.info).toMatchObject({ fault: "user_simulator" });
      // Under passk's protocol too, the customer's empty message is the simulator's fault, not the agent's.
      const passk = await runSimulation(
        setup("create_task_1", constantAgent({ role: "assistant", content: "ok" }), scriptedUser([""])),
      );
      expect(passk.termination_reason).toBe("infrastructure_error");
      expect(passk.info).toMatchObject({ fault: "user_simulator", error_type: "UserSimulatorError" });
    });

    it("the agent's ###STOP### does not end a conversation with a customer", async () => {
      const stopping = constantAgent({ role: "assistant", content: "Goodbye ###STOP###" });
      const tau2 = await runSimulation(
        setup("create_task_1", stopping, scriptedUser(["hi", "thanks", "###STOP###"]), { protocol: "tau2" }),
      );
      expect(tau2.termination_reason).toBe("user_stop");
      expect(tau2.messages.filter((m) => m.role === "assistant").length).toBe(3);
      const passk = await runSimulation(setup("create_task_1", stopping, scriptedUser(["hi", "###STOP###"])));
      expect(passk.termination_reason).toBe("agent_stop");
    });
  });

  it("a conversation past its wall-clock limit ends as an infrastructure error, the call in flight aborted", async () => {
    let aborted = false;
    const hanging: Agent = {
      name: "hanging",
      start: ({ signal }) => ({
        respond: () =>
          new Promise<AssistantMessage>((_, reject) => {
            signal?.addEventListener("abort", () => {
              aborted = true;
              reject(new Error("aborted"));
            });
          }),
      }),
    };
    const started = performance.now();
    const run = await runSimulation(
      setup("create_task_1", hanging, scriptedUser(["hi"]), { maxDurationMs: 50 }),
    );
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(aborted).toBe(true);
    expect(run.termination_reason).toBe("infrastructure_error");
    expect(run.info).toMatchObject({ error_type: "SimulationTimeoutError" });
    expect(String((run.info as { error?: string }).error)).toContain("wall-clock limit of 0.05 s");
  });

  describe("faults of the simulated customer are never the agent's", () => {
    it("a customer model that throws ends as an infrastructure error of the simulator", async () => {
      const broken: UserSimulator = {
        name: "broken",
        start: () => ({ respond: () => Promise.reject(new Error("content filter")) }),
      };
      for (const protocol of ["tau2", "passk"] as const) {
        const run = await runSimulation(
          setup("create_task_1", constantAgent({ role: "assistant", content: "ok" }), broken, { protocol }),
        );
        expect(run.termination_reason).toBe("infrastructure_error");
        expect(run.info).toMatchObject({ fault: "user_simulator", error_type: "UserSimulatorError" });
        expect(String((run.info as { error?: string }).error)).toContain("content filter");
      }
    });

    it("a customer calling unknown tools until --max-errors: the simulator's fault (τ²: too_many_errors, noted)", async () => {
      const looping: UserSimulator = {
        name: "looping",
        start: () => ({
          respond: async () => ({
            role: "user",
            content: null,
            tool_calls: [{ id: "u1", name: "no_such_tool", arguments: {}, requestor: "user" }],
          }),
        }),
      };
      const agent = constantAgent({ role: "assistant", content: "ok" });
      const passk = await runSimulation(setup("create_task_1", agent, looping, { maxErrors: 3 }));
      expect(passk.termination_reason).toBe("infrastructure_error");
      expect(passk.info).toMatchObject({ fault: "user_simulator" });
      expect(String((passk.info as { error?: string }).error)).toContain(
        "own tool calls failed 3 of 3 times",
      );
      const tau2 = await runSimulation(
        setup("create_task_1", agent, looping, { maxErrors: 3, protocol: "tau2" }),
      );
      expect(tau2.termination_reason).toBe("too_many_errors");
      expect(tau2.info).toMatchObject({ fault: "user_simulator" });
    });
  });
});
