import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../src/agents/create-agent.js";
import type { UserMessage } from "../src/core/message.js";
import type { Task } from "../src/core/task.js";
import { builtinDomains } from "../src/domains/registry.js";
import { toolSpecs } from "../src/env/tool-schema.js";
import { evaluateSimulation } from "../src/evaluation/evaluate-simulation.js";
import { replayGoldActions } from "../src/evaluation/gold-replay.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { createJudge } from "../src/judge/create-judge.js";
import { JudgeOutputError, llmJudge } from "../src/judge/llm-judge.js";
import { createLanguageModel } from "../src/llm/index.js";
import { runSimulation } from "../src/orchestrator/simulate.js";
import type { SimulationEvent } from "../src/orchestrator/events.js";
import {
  goldScript,
  isUserSimulatorRequest,
  mockReply,
  startMockLlmServer,
  type MockLlmServer,
} from "../src/testing/index.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { createUserSimulator, readUserGuidelines } from "../src/users/create-user.js";

const SECRET = "sk-test-secret-0123456789abcdef";
const env = { OPENAI_COMPATIBLE_API_KEY: SECRET };
const fastRetry = { initialDelayMs: 5, maxDelayMs: 20, maxAttempts: 3, jitter: 0 };
const guidelines = readUserGuidelines(tau2DataDir());

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer({ script: [] });
});
afterAll(() => server.close());

const datasets = new Map<string, DomainData>();
function domainData(name: string): DomainData {
  let data = datasets.get(name);
  if (!data) {
    data = new DomainData(builtinDomains.get(name)!, tau2DataDir());
    datasets.set(name, data);
  }
  return data;
}

async function converse(
  domain: string,
  task: Task,
  options: {
    solo?: boolean;
    maxErrors?: number;
    maxSteps?: number;
    onEvent?: (e: SimulationEvent) => void;
    stream?: boolean;
  } = {},
) {
  const data = domainData(domain);
  const modelOptions = {
    baseUrl: server.baseUrl,
    env,
    retry: fastRetry,
    ...(options.stream ? { stream: true } : {}),
  };
  const agent = createAgent("openai-compatible:mock-agent", modelOptions);
  const user = createUserSimulator("openai-compatible:mock-user", { ...modelOptions, guidelines });
  const run = await runSimulation(
    {
      task,
      world: data.newWorld({ solo: options.solo ?? false }),
      agent,
      ...(options.solo ? {} : { user }),
      policy: options.solo ? (data.soloPolicy ?? data.policy) : data.policy,
      agentTools: toolSpecs(
        options.solo
          ? [...data.domain.agent.tools, ...(data.domain.user?.tools ?? [])]
          : data.domain.agent.tools,
      ),
      userTools: toolSpecs(data.domain.user?.tools ?? []),
      solo: options.solo ?? false,
      ...(options.maxErrors ? { maxErrors: options.maxErrors } : {}),
      ...(options.maxSteps ? { maxSteps: options.maxSteps } : {}),
    },
    options.onEvent,
  );
  const reward = await evaluateSimulation(run, task, {
    newWorld: (o) => data.newWorld(o),
    solo: options.solo ?? false,
  });
  return { run, reward };
}

/** Tasks whose gold actions earn full reward, a few per domain. */
function goldTasks(domain: string, count: number): Task[] {
  const data = domainData(domain);
  const chosen: Task[] = [];
  for (const task of data.tasks) {
    if (chosen.length === count) break;
    if ((task.evaluation_criteria?.actions?.length ?? 0) === 0) continue;
    if (
      replayGoldActions(domain, task, (o) => data.newWorld(o)).evaluation.reward_excluding_nl_assertions === 1
    )
      chosen.push(task);
  }
  return chosen;
}

const pipelineDomains = ["mock", "airline", "retail", "telecom"].filter((d) => builtinDomains.has(d));

describe("LLM agent and user over HTTP (mock model playing the gold actions)", () => {
  for (const domain of pipelineDomains) {
    it(`reaches reward 1.0 on ${domain}`, async () => {
      for (const task of goldTasks(domain, domain === "telecom" ? 4 : 3)) {
        server.setScript(goldScript(task));
        const { run, reward } = await converse(domain, task, { stream: domain === "retail" });
        expect(run.termination_reason, `${task.id}: ${JSON.stringify(run.info)}`).toBe("user_stop");
        expect(reward.reward, task.id).toBe(1);
        // Costs are per message; the mock model's price is unknown, so cost is unknown, not 0.
        expect(run.agent_cost).toBeNull();
        expect(run.messages.filter((m) => m.role === "assistant" && m.usage).length).toBeGreaterThan(0);
      }
    });
  }

  it("the user model sees the agent's text only, roles flipped, with its guidelines and scenario", async () => {
    const task = domainData("mock").task("create_task_1");
    server.setScript(goldScript(task));
    const before = server.requests.length;
    await converse("mock", task);
    const userRequests = server.requests.slice(before).filter(isUserSimulatorRequest);
    // The customer's first call sees the greeting exactly once.
    expect(userRequests[0]!.messages).toEqual([{ role: "user", content: "Hi! How can I help you today?" }]);
    const last = userRequests.at(-1)!;
    expect(last.system).toContain("# User Simulation Guidelines");
    expect(last.system).toContain("Create a new task called 'Important Meeting'");
    expect(last.messages[0]).toEqual({ role: "user", content: "Hi! How can I help you today?" });
    expect(JSON.stringify(last.messages)).not.toContain("create_task");
    expect(last.tools.map((t) => t.name)).toEqual(["check_notifications", "dismiss_notification"]);
  });
});

describe("provider faults never count against the agent", () => {
  const task = () => domainData("mock").task("create_task_1");

  it("429 with Retry-After, then success", async () => {
    const gold = goldScript(task());
    let agentCalls = 0;
    server.setScript((request) => {
      if (!isUserSimulatorRequest(request) && agentCalls++ === 0)
        return mockReply.error(429, { retryAfterSeconds: 0.05 });
      return gold(request);
    });
    const { run, reward } = await converse("mock", task());
    expect(run.termination_reason).toBe("user_stop");
    expect(reward.reward).toBe(1);
  });

  it("repeated 500s end the conversation as an infrastructure error, excluded from scoring", async () => {
    server.setScript((request) =>
      isUserSimulatorRequest(request) ? mockReply.text("I need a task created.") : mockReply.error(500),
    );
    const { run, reward } = await converse("mock", task());
    expect(run.termination_reason).toBe("infrastructure_error");
    expect(reward.reward).toBe(0);
    expect(reward.reward_basis).toBeNull();
  });
});

describe("malformed model output goes back to the model as a tool error", () => {
  it("invalid JSON arguments and an unknown tool, then the conversation goes on", async () => {
    const task = domainData("mock").task("create_task_1");
    const gold = goldScript(task);
    const faults = [
      mockReply.toolCall("create_task", '{"user_id": "user_1", "title": '),
      mockReply.toolCall("delete_all_tasks", {}),
      mockReply.toolCall("create_task", { user_id: 5 }),
    ];
    let agentCalls = 0;
    server.setScript((request) =>
      !isUserSimulatorRequest(request) && agentCalls < 3 ? faults[agentCalls++]! : gold(request),
    );
    const { run, reward } = await converse("mock", task);
    const errors = run.messages.filter((m) => m.role === "tool" && m.error).map((m) => m.content);
    expect(errors[0]).toContain("not a valid JSON object");
    expect(errors[1]).toBe("Error: Tool 'delete_all_tasks' not found.");
    expect(errors[2]).toContain("argument 'user_id'");
    // The model saw its errors and recovered.
    const toolResults = server.requests.at(-2)!.messages.filter((m) => m.role === "tool");
    expect(toolResults.length).toBeGreaterThanOrEqual(3);
    expect(run.termination_reason).toBe("user_stop");
    expect(reward.reward).toBe(1);
  });

  it("too many errors stop the conversation", async () => {
    server.setScript((request) =>
      isUserSimulatorRequest(request)
        ? mockReply.text("Create a task please.")
        : mockReply.toolCall("nope", {}),
    );
    const { run } = await converse("mock", domainData("mock").task("create_task_1"), { maxErrors: 4 });
    expect(run.termination_reason).toBe("too_many_errors");
    expect(run.messages.filter((m) => m.role === "tool")).toHaveLength(4);
  });
});

describe("how the LLM customer ends or shapes the conversation", () => {
  it.each(["###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"])(
    "ends on the customer's %s",
    async (token) => {
      server.setScript((request) =>
        isUserSimulatorRequest(request)
          ? mockReply.text(request.messages.length > 1 ? `Thanks. ${token}` : "I need a task created.")
          : mockReply.text("Which title should the task have?"),
      );
      const { run } = await converse("mock", domainData("mock").task("create_task_1"));
      expect(run.termination_reason).toBe("user_stop");
      expect(run.messages.at(-1)).toMatchObject({ role: "user", content: `Thanks. ${token}` });
    },
  );

  it("stops at max steps", async () => {
    server.setScript((request) =>
      isUserSimulatorRequest(request) ? mockReply.text("Hmm, tell me more.") : mockReply.text("Sure, go on."),
    );
    const { run } = await converse("mock", domainData("mock").task("create_task_1"), { maxSteps: 6 });
    expect(run.termination_reason).toBe("max_steps");
    // The greeting, then six steps: customer and agent alternate, no tool calls.
    expect(run.messages.map((m) => m.role)).toEqual([
      "assistant",
      ...Array<string[]>(3).fill(["user", "assistant"]).flat(),
    ]);
  });

  it("the telecom customer may use its phone before its first words", async () => {
    const task = domainData("telecom").tasks[0]!;
    let userCalls = 0;
    server.setScript((request) => {
      if (!isUserSimulatorRequest(request)) return mockReply.text("Thanks for checking. Anything else?");
      userCalls++;
      if (userCalls === 1) return mockReply.toolCall("check_status_bar", {});
      return userCalls === 2 ? mockReply.text("My phone shows no service.") : mockReply.text("###STOP###");
    });
    const { run } = await converse("telecom", task);
    const roles = run.messages
      .slice(0, 4)
      .map((m) => `${m.role}${m.role === "tool" ? `:${m.requestor}` : ""}`);
    expect(roles).toEqual(["assistant", "user", "tool:user", "user"]);
    expect((run.messages[1] as UserMessage).tool_calls?.[0]?.name).toBe("check_status_bar");
    expect(run.messages[2]!.error).toBe(false);
    expect(run.messages[3]!.content).toBe("My phone shows no service.");
    expect(run.termination_reason).toBe("user_stop");
  });
});

describe("solo mode", () => {
  it("the agent works from the ticket and ends with done", async () => {
    const base = domainData("mock").task("create_task_1");
    const task: Task = { ...base, ticket: "Create a task called 'Important Meeting' for user_1." };
    server.setScript([
      mockReply.toolCall("create_task", { user_id: "user_1", title: "Important Meeting" }),
      mockReply.toolCall("done", {}),
    ]);
    const before = server.requests.length;
    const { run, reward } = await converse("mock", task, { solo: true });
    expect(run.termination_reason).toBe("agent_stop");
    expect(run.messages.at(-1)).toMatchObject({ role: "assistant", content: "###STOP###" });
    expect(reward.db_check?.db_match).toBe(true);
    const first = server.requests[before]!;
    expect(first.system).toContain(
      "<ticket>\nCreate a task called 'Important Meeting' for user_1.\n</ticket>",
    );
    expect(first.tools.map((t) => t.name)).toContain("done");
    expect(first.tools.map((t) => t.name)).toContain("dismiss_notification");
  });
});

describe("NL-assertion judge", () => {
  const task = () => domainData("mock").task("create_task_1");
  const messages = [{ role: "assistant" as const, content: "Your task 'Important Meeting' is created." }];

  it("parses one verdict per assertion", async () => {
    server.setScript([
      mockReply.text(
        JSON.stringify({ verdicts: [{ assertion: "x", met: true, reason: "The agent said so." }] }),
      ),
    ]);
    const judge = createJudge("openai-compatible:mock-judge", {
      baseUrl: server.baseUrl,
      env,
      retry: fastRetry,
    });
    const verdicts = await judge.judge({ assertions: task().evaluation_criteria!.nl_assertions!, messages });
    expect(verdicts).toEqual([
      {
        nl_assertion: "The agent confirmed the task was created successfully",
        met: true,
        justification: "The agent said so.",
      },
    ]);
  });

  it("reports the cost of its calls: priced, or unknown (null)", async () => {
    const verdict = mockReply.text(
      JSON.stringify({ verdicts: [{ assertion: "a", met: true, reason: "ok" }] }),
      { usage: { promptTokens: 1000, completionTokens: 100 } },
    );
    const costs: Array<number | null> = [];
    for (const priceOverrides of [
      { models: { "openai-compatible:mock-judge": { input_mtok: 2, output_mtok: 10 } } },
      undefined,
    ]) {
      server.setScript([verdict]);
      const judge = createJudge("openai-compatible:mock-judge", {
        baseUrl: server.baseUrl,
        env,
        retry: fastRetry,
        ...(priceOverrides ? { priceOverrides } : {}),
      });
      await judge.judge({ assertions: ["a"], messages, onCost: (c) => costs.push(c) });
    }
    expect(costs).toHaveLength(2);
    expect(costs[0]).toBeCloseTo(0.003, 12);
    expect(costs[1]).toBeNull();
  });

  it("rejects output that is not the expected JSON, clearly", async () => {
    const model = createLanguageModel("openai-compatible:mock-judge", {
      baseUrl: server.baseUrl,
      env,
      retry: fastRetry,
    });
    for (const bad of [
      "Sure! It was met.",
      JSON.stringify({ verdicts: [{ met: "yes" }] }),
      JSON.stringify({ verdicts: [] }),
    ]) {
      server.setScript([mockReply.text(bad)]);
      const error = await llmJudge(model)
        .judge({ assertions: ["a"], messages })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(JudgeOutputError);
      expect((error as Error).message).toMatch(/judge/);
    }
  });

  it("scores the NL component of a task whose basis needs it", async () => {
    const base = task();
    const nlTask: Task = {
      ...base,
      evaluation_criteria: { ...base.evaluation_criteria!, reward_basis: ["DB", "NL_ASSERTION"] },
    };
    server.setScript(goldScript(nlTask));
    const data = domainData("mock");
    const { run } = await converse("mock", nlTask);
    server.setScript([
      mockReply.text(
        JSON.stringify({ verdicts: [{ assertion: "a", met: false, reason: "It never confirmed." }] }),
      ),
    ]);
    const judge = createJudge("openai-compatible:mock-judge", {
      baseUrl: server.baseUrl,
      env,
      retry: fastRetry,
    });
    const reward = await evaluateSimulation(run, nlTask, { newWorld: (o) => data.newWorld(o) }, judge);
    expect(reward.reward_breakdown).toEqual({ DB: 1, NL_ASSERTION: 0 });
    expect(reward.reward).toBe(0);
    expect(reward.nl_assertions?.[0]).toMatchObject({ met: false, justification: "It never confirmed." });
  });
});

describe("secrets", () => {
  it("the API key reaches the provider but never the results, events or errors", async () => {
    const task = domainData("mock").task("create_task_1");
    const events: SimulationEvent[] = [];
    server.setScript(goldScript(task));
    const before = server.requests.length;
    const ok = await converse("mock", task, { onEvent: (e) => events.push(e) });
    expect(server.requests[before]!.headers.authorization).toBe(`Bearer ${SECRET}`);
    // A provider error echoing the key: retried, then an infrastructure error, stored.
    server.setScript((request) =>
      isUserSimulatorRequest(request)
        ? mockReply.text("hi")
        : mockReply.error(500, { message: `upstream saw key ${SECRET}` }),
    );
    const failed = await converse("mock", task, { onEvent: (e) => events.push(e) });
    expect(failed.run.termination_reason).toBe("infrastructure_error");
    // Refused credentials: a set-up error, thrown (never graded), its message without the key.
    server.setScript((request) =>
      isUserSimulatorRequest(request)
        ? mockReply.text("hi")
        : mockReply.error(401, { message: `bad key ${SECRET}` }),
    );
    const refused = await converse("mock", task, { onEvent: (e) => events.push(e) }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toContain("refused the credentials");
    const everything = JSON.stringify([
      ok.run,
      ok.reward,
      failed.run,
      failed.reward,
      events,
      (refused as Error).message,
      (refused as Error).stack,
    ]);
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(SECRET.slice(3, 15));
  });
});
