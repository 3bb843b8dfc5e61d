import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { DomainData } from "../../src/formats/tau2/domain-data.js";
import { isUserSimulatorRequest, type MockLlmServer } from "../../src/testing/index.js";
import { REPO_ROOT } from "./run-cli.js";
import { reasonOf } from "./run-mock-model.js";

/** A `passk` process left running (a coordinator, a worker), with everything it printed so far. */
export interface SpawnedPassk {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * Start `passk` processes that outlive a call (to kill them mid-run); `killAll` (in `afterEach`) ends
 * those still running. `main` runs another build of the CLI.
 */
export function passkProcesses(env: NodeJS.ProcessEnv): {
  spawn(args: string[], options?: { main?: string }): SpawnedPassk;
  killAll(): Promise<void>;
} {
  const children: ChildProcess[] = [];
  return {
    spawn(args, options = {}) {
      const main = options.main ?? path.join(REPO_ROOT, "bin", "passk.js");
      const child = spawn(process.execPath, [main, ...args], {
        cwd: REPO_ROOT,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      children.push(child);
      let output = "";
      child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
      child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      return { child, output: () => output, exited };
    },
    async killAll() {
      for (const child of children.splice(0)) {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((resolve) => child.once("exit", resolve));
          child.kill("SIGKILL");
          await exited;
        }
      }
    },
  };
}

/** Wait until `condition` holds, checking every 20 ms; past `ms`, fail naming `what`. */
export async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  ms = 20_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface ResultsSimulation {
  task_id: string;
  trial?: number | null;
  termination_reason: string;
  reward_info: { reward: number } | null;
  messages: Array<{
    role: string;
    content?: string | null;
    tool_calls?: Array<Record<string, unknown>> | null;
  }>;
}

/**
 * What a results file says about each (task, trial) — its ending, reward and messages — without ids
 * and times (tool-call ids are the mock server's request numbers, which differ between runs).
 */
export function outcomesWithoutIds(file: string): Map<string, unknown> {
  const results = JSON.parse(readFileSync(file, "utf8")) as { simulations: ResultsSimulation[] };
  return new Map(
    results.simulations.map((s) => [
      `${s.task_id}/${s.trial}`,
      {
        termination: s.termination_reason,
        reward: s.reward_info?.reward,
        messages: s.messages.map((m) => ({
          role: m.role,
          content: m.content ?? null,
          tool_calls: (m.tool_calls ?? []).map(({ id: _id, ...call }) => call),
        })),
      },
    ]),
  );
}

/**
 * The (task, trial)s whose conversation started — the customer's first model call — among a crafted
 * model's requests `from`…`to` (see `craftedModel`: the task from the scenario, the trial from the seed).
 */
export function conversationStarts(
  server: MockLlmServer,
  crafted: { data: DomainData; tasks: readonly string[]; seeds: readonly number[] },
  from: number,
  to = server.requests.length,
): string[] {
  return server.requests
    .slice(from, to)
    .filter((r) => isUserSimulatorRequest(r) && !r.messages.some((m) => m.role === "assistant"))
    .map((r) => {
      const task = crafted.tasks.find((t) => r.system.includes(reasonOf(crafted.data.task(t))));
      return `${task}/${crafted.seeds.indexOf((r.body as { seed: number }).seed)}`;
    });
}

/**
 * `passk serve --port 0 …ARGS` as a child process, resolved with its address once it listens; `stop`
 * ends it. Its output is kept for failure messages.
 */
export async function startServe(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ url: string; output: () => string; stop: () => Promise<void> }> {
  const processes = passkProcesses(env);
  const served = processes.spawn(["serve", "--port", "0", ...args]);
  let url = "";
  await waitFor(
    `passk serve to listen (it printed: ${served.output()})`,
    () => {
      const match = /web app on (http:\/\/127\.0\.0\.1:\d+)/.exec(served.output());
      if (match) url = match[1]!;
      return url !== "" || served.child.exitCode !== null;
    },
    45_000,
  );
  if (!url) throw new Error(`passk serve exited: ${served.output()}`);
  return { url, output: served.output, stop: () => processes.killAll() };
}
