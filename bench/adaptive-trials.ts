/**
 * Adaptive trials against a fixed design, with a known truth: the seeded flaky agent
 * (src/testing/flaky-agent.ts) passes each airline task with a known probability (a third always, a
 * sixth never, the rest 0.2–0.8), so the mean success rate it should be credited with is known.
 *
 * 1. Through the runner (store, job queue, conversations, grading): one adaptive run (2 trials per
 *    task, then more where undecided, to ± target), and fixed runs of k = 2, 3… trials per task until
 *    one reports an interval as narrow. Figures: conversations each design used, the intervals, and
 *    whether they cover the truth.
 * 2. Coverage over many seeds (the same allocation code, trials drawn as Bernoulli outcomes at the
 *    same probabilities — conversations would only add time): how often the 95% intervals cover the
 *    truth, and the mean conversations each design needs.
 *
 * Usage: node --import tsx bench/adaptive-trials.ts [target=0.05] [repetitions=400]
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { seededRandom } from "../src/core/seeded-random.js";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import {
  meanSuccessInterval,
  nextTrials,
  trialTallies,
  type TrialTally,
} from "../src/metrics/adaptive-trials.js";
import { executeAdaptiveRun } from "../src/runner/adaptive-run.js";
import { conversationJob } from "../src/runner/conversation-job.js";
import { executeRun } from "../src/runner/execute-run.js";
import { planRun, trialSeeds } from "../src/runner/run-plan.js";
import { SqliteJobQueue } from "../src/store/sqlite-job-queue.js";
import { Store } from "../src/store/store.js";
import { flakyGoldAgent, spreadSuccessProbability } from "../src/testing/flaky-agent.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { goldAgent } from "../src/agents/gold-agent.js";
import { goldUser } from "../src/users/gold-user.js";

const target = Number(process.argv[2] ?? 0.05);
const repetitions = Number(process.argv[3] ?? 400);
const minTrials = 2;
const maxTrials = 40;

const data = new DomainData(builtinDomains.get("airline")!, tau2DataDir());
const tasks = data.tasks;
const folder = mkdtempSync(path.join(os.tmpdir(), "passk-bench-adaptive-"));
const store = Store.open(path.join(folder, "passk.db"));
const domains = new Map([["airline", { data, tasks: new Map(tasks.map((t) => [t.id, t])) }]]);
const planned = [{ domain: "airline", tasks }];
const seeds = trialSeeds(300, maxTrials);

async function runDesign(
  numTrials: number,
  adaptive: boolean,
  agent = flakyGoldAgent(spreadSuccessProbability),
) {
  const plan = planRun({ domains: planned, numTrials, seed: 300 });
  const queue = new SqliteJobQueue(store);
  const run = store.createRun({ numTrials, config: { bench: "adaptive-trials" } });
  store.putTasks(run.id, "airline", tasks);
  await queue.enqueue(run.id, plan.jobs);
  const options = {
    queue,
    runId: run.id,
    concurrency: 4,
    seedOf: (job: { trial: number }) => seeds[job.trial]!,
    runJob: conversationJob({ domains, agent, user: goldUser }),
  };
  const tallies = () => trialTallies(store.scoredSimulations(run.id), planned);
  if (adaptive)
    await executeAdaptiveRun({
      ...options,
      plan: { minTrials, maxTrials, targetHalfWidth: target },
      tallies,
    });
  else await executeRun(options);
  return { interval: meanSuccessInterval(tallies()), tallies: tallies() };
}

// The truth: each task's probability, times whether its gold actions earn the reward at all.
const gold = await runDesign(1, false, goldAgent);
const goldPasses = new Map(gold.tallies.map((t) => [t.task_id, t.successes === 1]));
const probability = (id: string) => (goldPasses.get(id) ? spreadSuccessProbability(id) : 0);
const truth = tasks.reduce((sum, t) => sum + probability(t.id), 0) / tasks.length;

const started = performance.now();
const { interval: adaptive } = await runDesign(minTrials, true);
const adaptiveMs = performance.now() - started;
let { interval: fixed } = await runDesign(minTrials, false);
let fixedK = minTrials;
while (fixed.halfWidth > adaptive.halfWidth && fixedK < maxTrials) {
  fixedK++;
  ({ interval: fixed } = await runDesign(fixedK, false));
}
store.close();
rmSync(folder, { recursive: true, force: true });

const covers = (i: { low: number; high: number }) => i.low <= truth && truth <= i.high;
const round3 = (x: number) => Number(x.toFixed(3));
console.log(
  JSON.stringify({
    bench: "adaptive-trials/runner",
    domain: "airline",
    tasks: tasks.length,
    truth: round3(truth),
    target_half_width: target,
    adaptive_conversations: adaptive.trials,
    adaptive_interval: [round3(adaptive.low), round3(adaptive.high)],
    adaptive_covers_truth: covers(adaptive),
    adaptive_wall_s: Number((adaptiveMs / 1000).toFixed(2)),
    fixed_trials_per_task: fixedK,
    fixed_conversations: fixed.trials,
    fixed_interval: [round3(fixed.low), round3(fixed.high)],
    fixed_covers_truth: covers(fixed),
    conversations_saved: fixed.trials - adaptive.trials,
    fixed_over_adaptive: Number((fixed.trials / adaptive.trials).toFixed(2)),
  }),
);

// Coverage over many seeds, Bernoulli trials at the same probabilities.
const probabilities = tasks.map((t) => probability(t.id));
let adaptiveCovered = 0;
let fixedCovered = 0;
let adaptiveTotal = 0;
let fixedTotal = 0;
for (let rep = 0; rep < repetitions; rep++) {
  const random = seededRandom(rep + 1);
  const tallies: TrialTally[] = tasks.map((t) => ({
    domain: "airline",
    task_id: t.id,
    trials: 0,
    successes: 0,
  }));
  const draw = (i: number, tally: TrialTally) => {
    tally.trials++;
    if (random() < probabilities[i]!) tally.successes++;
  };
  tallies.forEach((tally, i) => {
    for (let k = 0; k < minTrials; k++) draw(i, tally);
  });
  let interval = meanSuccessInterval(tallies);
  while (interval.halfWidth > target) {
    const picks = nextTrials(tallies, { count: 4, maxTrials });
    if (picks.length === 0) break;
    for (const pick of picks) draw(tallies.indexOf(pick), pick);
    interval = meanSuccessInterval(tallies);
  }
  if (interval.low <= truth && truth <= interval.high) adaptiveCovered++;
  adaptiveTotal += interval.trials;
  for (let k = minTrials; ; k++) {
    const fixedTallies = probabilities.map((p, i) => {
      let successes = 0;
      for (let j = 0; j < k; j++) if (random() < p) successes++;
      return { domain: "airline", task_id: tasks[i]!.id, trials: k, successes };
    });
    const fixedInterval = meanSuccessInterval(fixedTallies);
    if (fixedInterval.halfWidth <= target || k >= maxTrials) {
      if (fixedInterval.low <= truth && truth <= fixedInterval.high) fixedCovered++;
      fixedTotal += fixedInterval.trials;
      break;
    }
  }
}
console.log(
  JSON.stringify({
    bench: "adaptive-trials/coverage",
    repetitions,
    target_half_width: target,
    adaptive_coverage: round3(adaptiveCovered / repetitions),
    fixed_coverage: round3(fixedCovered / repetitions),
    adaptive_mean_conversations: round3(adaptiveTotal / repetitions),
    fixed_mean_conversations: round3(fixedTotal / repetitions),
    fixed_over_adaptive: Number((fixedTotal / adaptiveTotal).toFixed(2)),
  }),
);
