import { spawn } from "node:child_process";
import { createServer, request as httpRequest, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import type { Agent, UserSimulator } from "../../src/core/agent.js";
import type { SimulationRun } from "../../src/core/simulation.js";
import type { Task } from "../../src/core/task.js";
import { builtinDomains } from "../../src/domains/registry.js";
import { toolSpecs } from "../../src/env/tool-schema.js";
import { evaluateSimulation } from "../../src/evaluation/evaluate-simulation.js";
import { replayGoldActions } from "../../src/evaluation/gold-replay.js";
import { DomainData } from "../../src/formats/tau2/domain-data.js";
import { runSimulation } from "../../src/orchestrator/simulate.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import {
  goldScript,
  isUserSimulatorRequest,
  mockReply,
  type MockLlmReply,
  type MockLlmRequest,
} from "../../src/testing/index.js";
import { REPO_ROOT } from "./run-cli.js";

/** A team's agent in its own process: the URL it printed first, what it wrote to stderr, and a stop. */
export interface AgentProcess {
  url: string;
  stderr(): string;
  close(): Promise<void>;
}

/** Starts an example agent (it prints its URL on its first line) and waits until it listens. */
export async function startAgentProcess(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<AgentProcess> {
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once("line", resolve);
    child.once("exit", (code) =>
      reject(new Error(`${command} ${args.join(" ")} exited (${code}): ${stderr}`)),
    );
  });
  return {
    url,
    stderr: () => stderr,
    close: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

const datasets = new Map<string, DomainData>();
export function domainData(name: string): DomainData {
  let data = datasets.get(name);
  if (!data) {
    data = new DomainData(builtinDomains.get(name)!, tau2DataDir());
    datasets.set(name, data);
  }
  return data;
}

/** Tasks whose gold actions earn full reward and include at least one agent action. */
export function goldTasks(domain: string, count: number): Task[] {
  const data = domainData(domain);
  const chosen: Task[] = [];
  for (const task of data.tasks) {
    if (chosen.length === count) break;
    const actions = task.evaluation_criteria?.actions ?? [];
    if (!actions.some((a) => a.requestor === "assistant")) continue;
    const replay = replayGoldActions(domain, task, (o) => data.newWorld(o));
    if (replay.evaluation.reward_excluding_nl_assertions === 1) chosen.push(task);
  }
  return chosen;
}

/** One graded conversation of `agent` with `user` on a task (passk's tool texts). */
export async function converse(options: {
  domain: string;
  task: Task;
  agent: Agent;
  user: UserSimulator;
  maxDurationMs?: number;
}): Promise<{ run: SimulationRun; reward: number }> {
  const data = domainData(options.domain);
  const run = await runSimulation({
    task: options.task,
    world: data.newWorld({ task: options.task }),
    agent: options.agent,
    user: options.user,
    policy: data.policy,
    agentTools: toolSpecs(data.domain.agent.tools),
    userTools: toolSpecs(data.domain.user?.tools ?? []),
    ...(options.maxDurationMs !== undefined ? { maxDurationMs: options.maxDurationMs } : {}),
  });
  const evaluation = await evaluateSimulation(run, options.task, {
    newWorld: (o) => data.newWorld(o),
    solo: false,
  });
  return { run, reward: evaluation.reward };
}

/** The agent's tool calls of a trajectory, in order. */
export function agentToolCalls(
  run: SimulationRun,
): Array<{ name: string; arguments: Record<string, unknown> }> {
  return run.messages.flatMap((m) =>
    m.role === "assistant" ? (m.tool_calls ?? []).map((c) => ({ name: c.name, arguments: c.arguments })) : [],
  );
}

/** The task's gold actions the agent performs, in order. */
export function goldAgentActions(task: Task): Array<{ name: string; arguments: Record<string, unknown> }> {
  return (task.evaluation_criteria?.actions ?? [])
    .filter((a) => a.requestor === "assistant")
    .map((a) => ({ name: a.name, arguments: a.arguments }));
}

/**
 * An HTTP proxy in front of an agent that keeps every request body it forwards. The agent card it passes
 * on names the proxy instead of the agent, so an A2A client sends its messages through it too.
 */
export interface RecordingProxy {
  url: string;
  readonly bodies: readonly string[];
  /** Each request's method and path, in order (`GET /.well-known/agent-card.json`). */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const bodies: string[] = [];
  const requests: string[] = [];
  const to = new URL(target);
  let self = "";
  const server = createServer((incoming: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const body = Buffer.concat(chunks);
      bodies.push(body.toString("utf8"));
      requests.push(`${incoming.method} ${incoming.url}`);
      const forwarded = httpRequest(
        {
          host: to.hostname,
          port: to.port,
          path: incoming.url,
          method: incoming.method,
          headers: incoming.headers,
        },
        (answer) => {
          if (!incoming.url?.endsWith("agent-card.json")) {
            response.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(response);
            return;
          }
          const parts: Buffer[] = [];
          answer.on("data", (chunk: Buffer) => parts.push(chunk));
          answer.on("end", () => {
            const card = Buffer.concat(parts).toString("utf8").split(to.origin).join(self);
            response.writeHead(answer.statusCode ?? 502, { "content-type": "application/json" });
            response.end(card);
          });
        },
      );
      forwarded.on("error", () => response.destroy());
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  self = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: self,
    bodies,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * One mock-model script for the gold path of several tasks at once, for a run of them: each request is
 * routed to its task by what its caller can see — the customer model by its scenario (system prompt),
 * the agent's model by the customer's opening words in its conversation.
 */
export function goldScriptByTask(tasks: readonly Task[]): (request: MockLlmRequest) => MockLlmReply {
  const opening = (task: Task) => {
    const instructions = task.user_scenario.instructions;
    return typeof instructions === "string" ? instructions : instructions.reason_for_call;
  };
  const scripts = new Map(tasks.map((task) => [task, goldScript(task)]));
  return (request) => {
    const seen = isUserSimulatorRequest(request)
      ? [request.system]
      : request.messages.flatMap((m) =>
          m.role === "user" && typeof m.content === "string" ? [m.content] : [],
        );
    // The scenario's layout may differ from the task's (line breaks, spaces): its first line is enough.
    const task = tasks.find((t) => seen.some((text) => text.includes(opening(t).split("\n")[0]!.trim())));
    if (!task) return mockReply.error(400, { message: "no task's opening in this request" });
    return scripts.get(task)!(request);
  };
}
