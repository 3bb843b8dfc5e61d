/**
 * What a run's metrics (pass^k for every k with intervals, pass@k, costs) cost as trials grow: two
 * tasks of 2,000 and of 16,000 trials. Linear is about 8× the time for 8× the trials; quadratic 64×.
 * Fastest of 5 passes, one core.
 *
 * Usage: node --import tsx bench/metrics-trials.ts   (run by `npm run bench`)
 */
import os from "node:os";
import { computeMetrics, type ScoredSimulation } from "../src/metrics/run-metrics.js";

const PASSES = 5;

function run(trials: number): ScoredSimulation[] {
  return ["a", "b"].flatMap((task) =>
    Array.from({ length: trials }, (_, trial) => ({
      domain: "airline",
      task_id: task,
      trial,
      termination_reason: "user_stop",
      reward_info: { reward: trial % 3 === 0 ? 0 : 1 },
    })),
  );
}

function fastestMs(trials: number): number {
  const simulations = run(trials);
  const passes: number[] = [];
  for (let i = 0; i < PASSES; i++) {
    const start = performance.now();
    computeMetrics(simulations, { numTrials: trials, bootstrap: { resamples: 50 } });
    passes.push(performance.now() - start);
  }
  return Math.min(...passes);
}

const small = fastestMs(2000);
const large = fastestMs(16000);
console.log(
  JSON.stringify({
    bench: "metrics-trials",
    trials_2000_ms: Number(small.toFixed(2)),
    trials_16000_ms: Number(large.toFixed(2)),
    ratio_for_8x_trials: Number((large / small).toFixed(2)),
    load_average: os.loadavg().map((l) => Number(l.toFixed(2))),
  }),
);
