/**
 * The τ-voice interaction metrics on the reference's golden set (3 full-duplex simulations, 4,123
 * ticks, where `passk data pull` put it): milliseconds per simulation, computing the metrics from
 * parsed ticks and reading the run directory too, beside the reference's 50–70 ms per simulation.
 * Fastest of 20 passes after 5 warm-up passes, one core.
 *
 * Usage: node --import tsx bench/interaction-metrics.ts   (run by `npm run bench`)
 */
import os from "node:os";
import path from "node:path";
import { readVoiceResultsDir } from "../src/formats/tau2/voice-results.js";
import { computeInteractionMetrics } from "../src/metrics/interaction-metrics.js";
import { voiceRunInteractionMetrics } from "../src/runner/voice-interaction-metrics.js";
import { tau2VoiceGoldenDir } from "../src/testing/tau2-fixtures.js";
import { REFERENCE } from "./reference-figures.js";

const WARM_UP = 5;
const PASSES = 20;
const experiment = path.join(tau2VoiceGoldenDir(), "experiment");
const run = readVoiceResultsDir(experiment);
const simulations = run.simulations.length;
const ticks = run.simulations.reduce((sum, s) => sum + (s.ticks?.length ?? 0), 0);

function fastestMs(work: () => unknown): number {
  for (let i = 0; i < WARM_UP; i++) work();
  let best = Infinity;
  for (let i = 0; i < PASSES; i++) {
    const start = performance.now();
    work();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

const metricsMs = fastestMs(() => computeInteractionMetrics(run.simulations)) / simulations;
const withReadMs = fastestMs(() => voiceRunInteractionMetrics(experiment)) / simulations;
const { low, high } = REFERENCE.interactionMetricsMsPerSimulation;
console.log(
  JSON.stringify({
    bench: "interaction-metrics",
    simulations,
    ticks,
    metrics_ms_per_simulation: Number(metricsMs.toFixed(3)),
    read_and_metrics_ms_per_simulation: Number(withReadMs.toFixed(3)),
    reference_ms_per_simulation: `${low}-${high}`,
    faster_than_reference_metrics: Number((low / metricsMs).toFixed(0)),
    faster_than_reference_read_and_metrics: Number((low / withReadMs).toFixed(0)),
    load_average: os.loadavg().map((l) => Number(l.toFixed(2))),
  }),
);
