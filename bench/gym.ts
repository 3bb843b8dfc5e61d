/**
 * The agent gym's throughput (no model: the gold policy against the scripted gold customer): episodes
 * and environment steps per second, in process (`AgentGym`) and over HTTP (`passk serve --gym`, a
 * fetch client in this process driving `CONCURRENCY` sessions at once), beside the reference's gold
 * replay + evaluation figure for the same world work per episode.
 *
 * Usage: node --import tsx bench/gym.ts [domain] [passes]   (run by `npm run bench`)
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { goldAgent } from "../src/agents/gold-agent.js";
import { startAgent } from "../src/core/task-reading-agent.js";
import type { Message } from "../src/core/message.js";
import type { Task } from "../src/core/task.js";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { AgentGym, type GymAction, type GymObservation } from "../src/gym/agent-gym.js";
import { gymActionOf } from "../src/gym/episode.js";
import { GymSessionCreatedSchema } from "../src/gym/gym-api.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { REFERENCE } from "./reference-figures.js";

const domainName = process.argv[2] ?? "airline";
const passes = Number(process.argv[3] ?? 3);
const CONCURRENCY = 8;
const data = new DomainData(builtinDomains.get(domainName)!, tau2DataDir());
const tasks = data.tasks;

/** One gold episode through `reset`/`step` functions; answers the steps taken and the reward. */
async function goldEpisode(
  task: Task,
  reset: () => Promise<GymObservation & { policy: string }>,
  step: (action: GymAction) => Promise<GymObservation>,
): Promise<{ steps: number; reward: number | undefined }> {
  const first = await reset();
  const policy = await startAgent(
    goldAgent,
    { policy: first.policy, tools: [], solo: false, seed: 0, history: [] },
    task,
  );
  let observation: GymObservation = {
    ...first,
    messages: first.messages.filter((m: Message) => m.role !== "assistant"),
  };
  let steps = 0;
  while (!observation.done) {
    observation = await step(gymActionOf(await policy.respond(observation.messages)));
    steps++;
  }
  return { steps, reward: observation.reward };
}

/** Run every task once per pass, `CONCURRENCY` episodes at a time; the median pass's rates. */
async function measure(play: (task: Task) => Promise<{ steps: number; reward: number | undefined }>) {
  const rates: { episodes: number; steps: number; solved: number }[] = [];
  for (let pass = 0; pass < passes + 1; pass++) {
    const queue = [...tasks];
    let steps = 0;
    let solved = 0;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let task = queue.shift(); task; task = queue.shift()) {
          const episode = await play(task);
          steps += episode.steps;
          if (episode.reward === 1) solved++;
        }
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    // The first pass warms the JIT and the data's memoised states.
    if (pass > 0) rates.push({ episodes: tasks.length / seconds, steps: steps / seconds, solved });
  }
  rates.sort((a, b) => a.episodes - b.episodes);
  return rates[Math.floor(rates.length / 2)]!;
}

function report(transport: string, rate: { episodes: number; steps: number; solved: number }) {
  const reference = REFERENCE.tasksPerSecond[domainName];
  console.log(
    JSON.stringify({
      bench: "gym",
      transport,
      domain: domainName,
      episodes: tasks.length,
      concurrency: CONCURRENCY,
      solved: rate.solved,
      episodes_per_second: Number(rate.episodes.toFixed(1)),
      steps_per_second: Number(rate.steps.toFixed(0)),
      reference_gold_replay_tasks_per_second: reference ?? null,
      ratio_vs_reference: reference ? Number((rate.episodes / reference).toFixed(0)) : null,
      load_average: os.loadavg().map((l) => Number(l.toFixed(2))),
    }),
  );
}

report(
  "in-process",
  await measure((task) => {
    const gym = new AgentGym({ domain: () => data });
    return goldEpisode(
      task,
      () => gym.reset({ domain: domainName, taskId: task.id }),
      (action) => gym.step(action),
    );
  }),
);

// Over HTTP: a real `passk serve --gym` in another process.
const store = path.join(mkdtempSync(path.join(os.tmpdir(), "passk-gym-bench-")), "store.db");
const server = spawn(
  process.execPath,
  [
    path.join(import.meta.dirname, "..", "bin", "passk.js"),
    "serve",
    "--port",
    "0",
    "--gym",
    "--store",
    store,
  ],
  { env: { ...process.env, PASSK_DATA_DIR: tau2DataDir() }, stdio: ["ignore", "pipe", "inherit"] },
);
const url = await new Promise<string>((resolve, reject) => {
  let out = "";
  server.on("exit", () => reject(new Error(`passk serve exited: ${out}`)));
  server.stdout!.on("data", (d: Buffer) => {
    out += d.toString();
    const match = /web app on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
    if (match) resolve(match[1]!);
  });
});
const post = async (pathname: string, body: unknown) => {
  const response = await fetch(`${url}/api/gym${pathname}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${pathname}: ${response.status} ${await response.text()}`);
  return (await response.json()) as unknown;
};
try {
  report(
    "http",
    await measure(async (task) => {
      let session = "";
      const episode = await goldEpisode(
        task,
        async () => {
          const created = GymSessionCreatedSchema.parse(
            await post("/sessions", { domain: domainName, taskId: task.id }),
          );
          session = created.session;
          return created.observation;
        },
        async (action) =>
          ((await post(`/sessions/${session}/step`, action)) as { observation: unknown })
            .observation as GymObservation,
      );
      await fetch(`${url}/api/gym/sessions/${session}`, { method: "DELETE" });
      return episode;
    }),
  );
} finally {
  server.kill();
}
