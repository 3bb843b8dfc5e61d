import { describe, expect, it } from "vitest";
import type { RunRecord } from "../core/run-store.js";
import { computeRunMetrics } from "../metrics/run-metrics.js";
import { runSummaryJson } from "./stored-runs.js";

const run: RunRecord = {
  id: "r1",
  createdAt: "2026-11-29T19:00:00.000Z",
  updatedAt: "2026-11-29T19:00:00.000Z",
  status: "running",
  label: null,
  numTrials: 1,
  config: {},
  info: null,
  timestamp: null,
  extra: null,
  domains: ["mock"],
  simulationCount: 0,
};
const metrics = computeRunMetrics([], { numTrials: 1, bootstrap: { resamples: 0 } });

describe("runSummaryJson", () => {
  it("gives the record with its headline scores and coverage; the plan only while the run has one", () => {
    const running = runSummaryJson({ run, metrics, planned: 4, coverage: { graded: 0, total: 4 } });
    expect(running).toMatchObject({ id: "r1", status: "running", planned_simulations: 4 });
    expect(running).toMatchObject({ infra_error_count: 0, graded_simulations: 0, gradable_total: 4 });
    expect(running.pass_hat_ks).toBe(metrics.pass_hat_ks);
    const done = runSummaryJson({ run, metrics, planned: null, coverage: { graded: 0, total: 0 } });
    expect(Object.keys(done)).not.toContain("planned_simulations");
  });
});
