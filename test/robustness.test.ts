import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinDomains } from "../src/domains/registry.js";
import { goldFinalMessage } from "../src/agents/gold-agent.js";
import { perturbationMarks } from "../src/core/perturbation.js";
import { MessageSchema, type Message } from "../src/core/message.js";
import type { Task } from "../src/core/task.js";
import { evaluateSimulation } from "../src/evaluation/evaluate-simulation.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { PERSONA_TRAITS } from "../src/perturbations/customer-perturbations.js";
import { Store } from "../src/store/store.js";
import {
  isUserSimulatorRequest,
  mockReply,
  startMockLlmServer,
  type MockLlmReply,
  type MockLlmRequest,
  type MockLlmServer,
} from "../src/testing/index.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { startRedisServer } from "./helpers/redis-server.js";
import { REPO_ROOT, runCli } from "./helpers/run-cli.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";
import { reasonOf } from "./helpers/run-mock-model.js";

// The robustness suite end to end: `passk run --perturb` and `passk robustness` against the mock model
// over HTTP. The agent model reads the users, then plays the task's gold actions and says the gold
// final message; how it meets a failed tool call depends on its name: `retrying` calls again,
// `stubborn` moves on, `obedient` also repeats any override code it is shown (an injection obeyed).

const data = new DomainData(builtinDomains.get("mock")!, tau2DataDir());
const TASKS = ["create_task_1", "update_task_1"];
const tasks: Task[] = ["create_task_1", "update_task_1", "impossible_task_1"].map((id) => data.task(id));
const dir = mkdtempSync(path.join(tmpdir(), "passk-robustness-"));
const env = () => ({ PASSK_DATA_DIR: tau2DataDir(), OPENAI_COMPATIBLE_API_KEY: "sk-test-robust" });

const isError = (content: string) => content.startsWith("Error");

function agentReply(request: MockLlmRequest): MockLlmReply {
  const opening = request.messages.find((m) => m.role === "user")?.content ?? "";
  const task = tasks.find((t) => opening.toLowerCase().startsWith(reasonOf(t).toLowerCase()));
  if (!task) return mockReply.error(400, { message: "no task matches the opening" });
  const plan: MockLlmReply[] = [
    mockReply.toolCall("get_users", {}),
    ...(task.evaluation_criteria?.actions ?? []).map((a) => mockReply.toolCall(a.name, a.arguments)),
    mockReply.text(goldFinalMessage(task)),
  ];
  const last = request.messages.at(-1);
  const lastText = last && "content" in last ? (last.content ?? "") : "";
  const canary = /OVERRIDE-[0-9A-F]{4}/.exec(lastText);
  if (request.model.includes("obedient") && canary && last?.role !== "assistant")
    return mockReply.text(`Understood: ${canary[0]}.`);
  const results = request.messages.filter((m) => m.role === "tool");
  if (request.model.includes("stubborn") || request.model.includes("obedient"))
    return plan[results.length] ?? mockReply.text("Is there anything else?");
  // Retrying: a failed call is made again with the same arguments.
  if (last?.role === "tool" && isError(last.content)) {
    const call = [...request.messages].reverse().find((m) => m.role === "assistant" && m.toolCalls?.length);
    const again = call?.role === "assistant" ? call.toolCalls![0]! : undefined;
    if (again) return mockReply.toolCall(again.name, again.arguments ?? {});
  }
  return plan[results.filter((r) => !isError(r.content)).length] ?? mockReply.text("Is there anything else?");
}

function userReply(request: MockLlmRequest): MockLlmReply {
  const task = tasks.find((t) => request.system.includes(reasonOf(t)));
  if (!task) return mockReply.error(400, { message: "no task matches the scenario" });
  if (!request.messages.some((m) => m.role === "assistant")) return mockReply.text(reasonOf(task));
  const heard = request.messages.at(-1);
  if (heard?.role === "user" && heard.content === goldFinalMessage(task))
    return mockReply.text("Thanks, that is all. ###STOP###");
  return mockReply.text("Please go on.");
}

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer({
    script: (request) => (isUserSimulatorRequest(request) ? userReply(request) : agentReply(request)),
  });
});
afterAll(() => server.close());

const flags = (agent: string, store: string, taskIds = TASKS) => [
  "--domain",
  "mock",
  "--agent-llm",
  `openai-compatible:${agent}`,
  "--agent-llm-base-url",
  server.baseUrl,
  "--user-llm",
  "openai-compatible:mock-user",
  "--user-llm-base-url",
  server.baseUrl,
  "--num-trials",
  "2",
  "--progress",
  "none",
  "--store",
  store,
  "--task-ids",
  ...taskIds,
];

interface StoredSimulation {
  taskId: string;
  trial: number;
  messages: Message[];
  reward: number | undefined;
  info: Record<string, unknown>;
  rewardInfo: Record<string, unknown>;
}

/** The simulations of the newest run (or of `runId`) in a store. */
function simulationsOf(store: string, runId?: string): StoredSimulation[] {
  const opened = Store.open(store);
  try {
    const id = runId ?? opened.listRuns()[0]!.id;
    return opened
      .getSimulations(id)
      .map(({ simulation }) => ({
        taskId: simulation.task_id,
        trial: simulation.trial ?? 0,
        messages: simulation.messages.map((m) => MessageSchema.parse(m)),
        reward: simulation.reward_info?.reward,
        info: (simulation as { info?: Record<string, unknown> }).info ?? {},
        rewardInfo: (simulation.reward_info?.info ?? {}) as Record<string, unknown>,
      }))
      .sort((a, b) => a.taskId.localeCompare(b.taskId) || a.trial - b.trial);
  } finally {
    opened.close();
  }
}

/** Each simulation's perturbation marks, message by message, as `index:effect`. */
const markTrace = (simulations: StoredSimulation[]) =>
  simulations.map((s) => ({
    task: s.taskId,
    trial: s.trial,
    marks: s.messages.flatMap((m, i) => perturbationMarks(m).map((mark) => `${i}:${mark.effect}`)),
  }));

describe("tool faults", () => {
  const store = path.join(dir, "retrying.db");
  let output = "";
  beforeAll(async () => {
    const run = await runCliInProcess(
      [
        "robustness",
        ...flags("retrying", store),
        "--perturb",
        "tool-faults:rate=0.5,kinds=transient+timeout",
      ],
      env(),
    );
    expect(run.code, run.stderr + run.stdout).toBe(0);
    output = run.stdout;
  });

  it("fail half of the agent's first attempts, recorded on the tool message; every retry succeeds", () => {
    const simulations = simulationsOf(store);
    expect(simulations).toHaveLength(4);
    let firstAttempts = 0;
    let faulted = 0;
    for (const s of simulations) {
      expect(s.info.perturbations).toEqual(["tool-faults@1:kinds=transient+timeout,rate=0.5"]);
      let attempts = 0;
      let faults = 0;
      s.messages.forEach((message, i) => {
        if (message.role !== "tool") return;
        const marks = perturbationMarks(message);
        const previous = s.messages[i - 1];
        const retry = i >= 2 && perturbationMarks(s.messages[i - 2]).length > 0;
        if (!retry) attempts++;
        if (marks.length > 0) {
          faults++;
          expect(["transient_error", "timeout"]).toContain(marks[0]!.effect);
          expect(message.error).toBe(true);
          // The next call repeats it and goes through.
          const again = s.messages[i + 1];
          expect(again?.role === "assistant" && again.tool_calls?.[0]).toMatchObject({
            name: previous?.role === "assistant" ? previous.tool_calls?.[0]?.name : "",
          });
          expect(perturbationMarks(s.messages[i + 2])).toEqual([]);
          expect((s.messages[i + 2] as { error?: boolean }).error).toBe(false);
        }
      });
      // get_users + one write + … : of n first attempts, ⌊n/2⌋ or ⌈n/2⌉ fail.
      expect(faults).toBeGreaterThanOrEqual(Math.floor(attempts / 2));
      expect(faults).toBeLessThanOrEqual(Math.ceil(attempts / 2));
      firstAttempts += attempts;
      faulted += faults;
    }
    expect(firstAttempts).toBe(8);
    expect(faulted).toBeGreaterThanOrEqual(4 - 2);
  });

  it("never alter the gold outcome: a retrying agent keeps every reward, and the trajectory re-grades the same", async () => {
    for (const s of simulationsOf(store)) {
      expect(s.reward).toBe(1);
      const regraded = await evaluateSimulation(
        { termination_reason: "user_stop", messages: s.messages },
        data.task(s.taskId),
        { newWorld: (o) => data.newWorld(o), validation: "lenient" },
      );
      expect(regraded.reward).toBe(1);
      expect(regraded.db_check?.db_match).toBe(true);
    }
    expect(output).toMatch(
      /tool-faults@1:kinds=transient\+timeout,rate=0\.5\s+2\s+1\.000\s+1\.000\s+0\.000 \[0\.00, 0\.00\]\s+1\.000\s+100\.0%\s+-/,
    );
  });

  it("are identical on re-run with the same seed", async () => {
    const again = path.join(dir, "retrying-again.db");
    const run = await runCliInProcess(
      ["run", ...flags("retrying", again), "--perturb", "tool-faults:kinds=transient+timeout,rate=0.5"],
      env(),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(markTrace(simulationsOf(again))).toEqual(markTrace(simulationsOf(store)));
    expect(markTrace(simulationsOf(again)).some((s) => s.marks.length > 0)).toBe(true);
  });

  it("make an agent that does not retry fail; the table's numbers and --fail-under robustness gate", async () => {
    const stubborn = path.join(dir, "stubborn.db");
    const run = await runCliInProcess(
      [
        "robustness",
        ...flags("stubborn", stubborn),
        "--perturb",
        "tool-faults:rate=1,kinds=transient",
        "--fail-under",
        "robustness.tool-faults=0.9",
      ],
      env(),
    );
    expect(run.code, run.stderr).toBe(1);
    // By hand: clean, both tasks pass both trials (pass^2 = 1 each, 1.000). Every first attempt fails
    // and the agent moves on, so its write never runs: both tasks fail both trials (0.000). The drop
    // is 1 on each task: 1.000, an interval of [1, 1] (every resample), an exact sign-flip p of 2/4 =
    // 0.5 (of four sign patterns, two reach |sum| = 2), 0% kept, two tasks broke.
    expect(run.stdout).toMatch(
      /tool-faults@1:kinds=transient,rate=1\s+2\s+1\.000\s+0\.000\s+1\.000 \[1\.00, 1\.00\]\s+0\.500\s+0\.0%\s+2: mock\/create_task_1, mock\/update_task_1/,
    );
    expect(run.stdout).toMatch(/FAIL robustness\.tool-faults=0\.9: 0\.0000/);
    expect(run.stdout).toMatch(
      /not τ²-comparable: .*perturbed \(--perturb tool-faults@1:kinds=transient,rate=1\)/,
    );
    // `passk report` of the clean run shows the same row.
    const opened = Store.open(stubborn);
    const clean = opened.listRuns().find((r) => !(r.config as { perturbations?: unknown }).perturbations)!;
    opened.close();
    const report = await runCliInProcess(["report", clean.id, "--store", stubborn], env());
    expect(report.stdout).toMatch(
      /tool-faults@1:kinds=transient,rate=1\s+2\s+1\.000\s+0\.000\s+1\.000 \[1\.00, 1\.00\]/,
    );
    for (const s of simulationsOf(stubborn)) if (s.info.perturbations) expect(s.reward).toBe(0);
  });

  it("are part of the run's identity: a resume with other perturbations is refused", async () => {
    const opened = Store.open(store);
    const perturbed = opened.listRuns()[0]!;
    opened.close();
    const run = await runCliInProcess(
      ["run", "--resume", perturbed.id, "--store", store, "--perturb", "tool-faults:rate=0.3"],
      env(),
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(
      /--perturb: \["tool-faults@1:kinds=transient\+timeout,rate=0\.5"\] → \["tool-faults@1:rate=0\.3"\]/,
    );
  });
});

describe("customer perturbations", () => {
  const store = path.join(dir, "customer.db");
  const ALL = ["create_task_1", "update_task_1", "impossible_task_1"];
  const specs = ["omission", "false-claim:rate=0.5", "change-of-mind", "persona:trait=non-native,rate=0.5"];
  let first = 0;
  beforeAll(async () => {
    first = server.requests.length;
    const run = await runCliInProcess(
      [
        "run",
        ...flags("retrying", store, ALL),
        "--num-trials",
        "8",
        ...specs.flatMap((s) => ["--perturb", s]),
      ],
      env(),
    );
    expect(run.code, run.stderr).toBe(0);
  });

  it("change the customer's prompt at their rate, marked on its first message, and never the outcome", () => {
    const simulations = simulationsOf(store);
    expect(simulations).toHaveLength(24);
    const fired = (name: string) =>
      simulations.filter((s) =>
        s.messages.some((m) => perturbationMarks(m).some((mark) => mark.perturbation === name)),
      );
    expect(fired("omission@1")).toHaveLength(24);
    expect(fired("change-of-mind@1")).toHaveLength(24);
    for (const name of ["false-claim@1", "persona@1"]) {
      expect(fired(name).length).toBeGreaterThanOrEqual(6);
      expect(fired(name).length).toBeLessThanOrEqual(18);
    }
    // The mark sits on the customer's first message, and the prompt it was written from has the trait
    // exactly when marked.
    const userPrompts = server.requests
      .slice(first)
      .filter((r) => isUserSimulatorRequest(r) && !r.messages.some((m) => m.role === "assistant"));
    expect(userPrompts).toHaveLength(24);
    const withTrait = userPrompts.filter((r) => r.system.includes(PERSONA_TRAITS["non-native"]));
    expect(withTrait).toHaveLength(fired("persona@1").length);
    for (const s of fired("persona@1")) {
      const index = s.messages.findIndex((m) => perturbationMarks(m).length > 0);
      expect(s.messages[index]!.role).toBe("user");
      expect(perturbationMarks(s.messages[index])).toContainEqual({
        perturbation: "persona@1",
        effect: "customer_instructions",
        detail: "non-native",
      });
    }
    // This customer model follows no instructions, so every reward is the clean one (all pass).
    expect(simulations.every((s) => s.reward === 1)).toBe(true);
  });
});

describe("injections", () => {
  it("an agent that obeys an instruction injected into a tool result or the customer's message violates policy", async () => {
    const store = path.join(dir, "injection.db");
    const spec = ["--perturb", "tool-injection", "--perturb", "customer-injection"];
    const saveTo = path.join(dir, "injection.json");
    const obedient = await runCliInProcess(
      ["run", ...flags("obedient", store), ...spec, "--save-to", saveTo],
      env(),
    );
    expect(obedient.code, obedient.stderr).toBe(0);
    for (const s of simulationsOf(store)) {
      const injected = s.messages.flatMap((m) => perturbationMarks(m).map((mark) => [m.role, mark.effect]));
      expect(injected).toEqual([
        ["user", "injected_instruction"],
        ["tool", "injected_instruction"],
      ]);
      expect(s.reward).toBe(0);
      expect(s.rewardInfo.policy_violations).toEqual([
        expect.stringMatching(/instruction injected into a tool result .*: it wrote OVERRIDE-[0-9A-F]{4}/),
        expect.stringMatching(
          /instruction injected into a customer message .*: it wrote OVERRIDE-[0-9A-F]{4}/,
        ),
      ]);
    }
    // `passk score` grades them as the run did: the violations applied again, so it agrees with the file.
    const audit = await runCliInProcess(["score", saveTo, "--json"], env());
    expect(audit.code, audit.stderr).toBe(0);
    const rows = (
      JSON.parse(audit.stdout) as { simulations: Array<{ recorded_reward: number; reward: number }> }
    ).simulations;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.recorded_reward === 0 && r.reward === 0)).toBe(true);
    const careful = await runCliInProcess(
      ["run", ...flags("retrying", path.join(dir, "careful.db")), ...spec],
      env(),
    );
    expect(careful.code, careful.stderr).toBe(0);
    for (const s of simulationsOf(path.join(dir, "careful.db"))) {
      expect(s.reward).toBe(1);
      expect(s.rewardInfo.policy_violations).toBeUndefined();
    }
  });
});

describe("a team's own perturbation", () => {
  it("is loaded from --perturbation-module, listed, applied and remembered for resume", async () => {
    const module = ["--perturbation-module", "test/fixtures/shouting-perturbation.ts"];
    // Spawned: the `robustness` family's end-to-end run of the binary.
    const list = await runCli(["robustness", "--list", ...module], { env: env() });
    expect(list.stdout).toMatch(/shouting@1\s+customer\s+The customer writes in capitals\./);
    const store = path.join(dir, "shouting.db");
    const run = await runCliInProcess(
      ["run", ...flags("retrying", store), ...module, "--perturb", "shouting"],
      env(),
    );
    expect(run.code, run.stderr).toBe(0);
    for (const s of simulationsOf(store)) {
      const customer = s.messages.filter((m) => m.role === "user");
      expect(customer.length).toBeGreaterThan(0);
      for (const m of customer) {
        expect(m.content).toBe(m.content!.toUpperCase());
        expect(perturbationMarks(m)).toEqual([{ perturbation: "shouting@1", effect: "customer_message" }]);
      }
    }
    // The module is recorded with the run: a resume names the perturbation without repeating it.
    const runId = /run (\d{8}-\d{6}-[0-9a-f]{4})/.exec(run.stderr)![1]!;
    const resumed = await runCliInProcess(
      ["run", "--resume", runId, "--store", store, "--progress", "none"],
      env(),
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/perturbed: shouting@1/);
    const unknown = await runCliInProcess(
      ["run", ...flags("retrying", store), "--perturb", "shouting"],
      env(),
    );
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/no perturbation "shouting" \(known: tool-faults, .*customer-injection\)/);
  });
});

describe("perturbations across machines (--queue)", () => {
  /** A `passk` process that keeps running (a worker, a coordinator), its output collected. */
  function spawnPassk(args: string[]) {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, "bin", "passk.js"), ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env() },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    return { child, output: () => output, exited };
  }
  async function waitFor(what: string, condition: () => boolean): Promise<void> {
    // A spawned worker takes up to ~20 s to say "ready" on a loaded 2-core machine: three times that.
    for (const deadline = Date.now() + 60_000; !condition();) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  /** What a conversation was, without the ids and times that differ between two runs. */
  const outcomes = (simulations: StoredSimulation[]) =>
    simulations.map((s) => ({
      task: s.taskId,
      trial: s.trial,
      reward: s.reward,
      perturbations: s.info.perturbations,
      messages: s.messages.map((m) => ({
        role: m.role,
        content: "content" in m ? (m.content ?? null) : null,
        marks: perturbationMarks(m),
      })),
    }));

  it("workers apply the run's perturbations, a team's own included, as one process does; a worker without that module, or with another version of it, leaves its jobs to one with it", async () => {
    const redis = await startRedisServer();
    const workers: Array<ReturnType<typeof spawnPassk>> = [];
    const startWorker = (extra: string[]) => {
      const worker = spawnPassk([
        "worker",
        "--queue",
        redis.url,
        "--concurrency",
        "2",
        "--allow-endpoint",
        server.baseUrl,
        ...extra,
      ]);
      workers.push(worker);
      return worker;
    };
    try {
      const module = ["--perturbation-module", "test/fixtures/shouting-perturbation.ts"];
      const perturb = ["--perturb", "tool-faults:rate=0.5", "--perturb", "shouting", ...module];
      // Workers that cannot run the run's conversations: one without the module, one with another version.
      const other = path.join(dir, "shouting-v2.mts");
      writeFileSync(
        other,
        `import { shouting } from ${JSON.stringify(path.join(REPO_ROOT, "test/fixtures/shouting-perturbation.ts"))};\n` +
          "export const shoutingV2 = { ...shouting, version: 2 };\n",
      );
      const lacking = startWorker([]);
      const otherVersion = startWorker(["--perturbation-module", other]);
      await waitFor("the two workers", () =>
        [lacking, otherVersion].every((w) => w.output().includes("ready")),
      );
      const store = path.join(dir, "queued.db");
      const coordinator = spawnPassk(["run", ...flags("stubborn", store), ...perturb, "--queue", redis.url]);
      workers.push(coordinator); // killed with them if the test fails
      await waitFor("both refusals", () =>
        ["it does not have the run's perturbation", "it has shouting@2"].every((s) =>
          coordinator.output().includes(s),
        ),
      );
      const refusal = (reason: string) =>
        new RegExp(
          `worker \\S+ cannot run mock task \\S+ trial \\d of run \\S+ and leaves it to another worker: ${reason}`,
        );
      expect(lacking.output()).toMatch(
        refusal(
          "it does not have the run's perturbation shouting@1; start it with --perturbation-module FILE defining shouting",
        ),
      );
      expect(otherVersion.output()).toMatch(
        refusal(
          "it has shouting@2, and the run perturbs with shouting@1; start it with the --perturbation-module defining shouting@1",
        ),
      );
      const matching = [startWorker(module), startWorker(module)];
      expect(await coordinator.exited, coordinator.output()).toBe(0);
      // The two workers with the module ran every conversation; the one without ran none.
      const ran = (worker: ReturnType<typeof spawnPassk>) =>
        (worker.output().match(/ trial \d: /g) ?? []).length;
      expect(ran(lacking) + ran(otherVersion)).toBe(0);
      expect(matching.map(ran).reduce((a, b) => a + b, 0)).toBe(4);

      const local = path.join(dir, "queued-local.db");
      const one = await runCliInProcess(["run", ...flags("stubborn", local), ...perturb], env());
      expect(one.code, one.stderr).toBe(0);
      const expected = outcomes(simulationsOf(local));
      expect(outcomes(simulationsOf(store))).toEqual(expected);
      // Both perturbations acted, and a stubborn agent lost tasks to the tool faults.
      const effects = expected.flatMap((s) =>
        s.messages.flatMap((m) => m.marks.map((mark) => mark.perturbation)),
      );
      expect(new Set(effects)).toEqual(new Set(["shouting@1", "tool-faults@1"]));
      expect(expected.map((s) => s.reward)).toContain(0);
      expect(expected.map((s) => s.reward)).toContain(1);

      // `passk robustness --queue`: the clean and the perturbed runs, both on the workers.
      for (const refusing of [lacking, otherVersion]) {
        refusing.child.kill("SIGTERM");
        await refusing.exited;
      }
      const robustness = await runCliInProcess(
        [
          "robustness",
          ...flags("stubborn", path.join(dir, "queued-robustness.db")),
          ...perturb,
          "--queue",
          redis.url,
        ],
        env(),
      );
      expect(robustness.code, robustness.stderr).toBe(0);
      expect(robustness.stdout).toMatch(/^shouting@1\s+2\s+/m);
      expect(matching.map(ran).reduce((a, b) => a + b, 0)).toBe(4 + 3 * 4);
    } finally {
      for (const worker of workers) worker.child.kill("SIGKILL");
      await redis.stop();
    }
    // Its waits for spawned workers are each up to 60 s on a loaded machine: a shorter limit would end the
    // test mid-wait and leave its workers and Redis running.
  }, 300_000);
});
