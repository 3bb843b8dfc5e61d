import { ConfigError } from "../core/errors.js";
import { MAX_REPORTED_K, type Metrics, type RunMetrics } from "../metrics/run-metrics.js";

/** One `--fail-under` gate: a metric (optionally of one domain) that must reach a threshold. */
export interface Threshold {
  /** As written, e.g. `pass^4=0.8` or `airline:avg_reward=0.6`. */
  text: string;
  metric: "pass^k" | "pass@k" | "avg_reward";
  /** k for pass^k / pass@k. */
  k?: number;
  domain?: string;
  min: number;
}

export interface ThresholdResult {
  threshold: Threshold;
  /** The run's value, or null when it cannot be computed (e.g. fewer evaluable trials than k). */
  value: number | null;
  passed: boolean;
  /** Why a threshold failed, in words. */
  reason?: string;
}

const METRICS = "pass^K, pass@K (K = 1…num-trials) or avg_reward";
const SYNTAX = new RegExp(
  "^(?:(?<domain>[^:=]+):)?(?<metric>pass\\^(?<hat>\\d+)|pass_hat_(?<hat2>\\d+)|pass@(?<at>\\d+)|avg_reward|reward)=(?<min>[0-9.]+)$",
);

/**
 * Parse `--fail-under` values: `METRIC=MIN`, several comma-separated or repeated, each optionally for
 * one domain (`airline:pass^1=0.6`). Checked before the run starts, against the trials it will have.
 * @example parseThresholds(["pass^4=0.8,avg_reward=0.9"], { numTrials: 4 })
 */
export function parseThresholds(
  values: readonly string[],
  options: { numTrials: number; domains?: readonly string[] },
): Threshold[] {
  return values
    .flatMap((value) => value.split(","))
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .map((text) => {
      const match = SYNTAX.exec(text.replace(/\s+/g, ""));
      const groups = match?.groups;
      const min = Number(groups?.min);
      if (!groups || !Number.isFinite(min) || min < 0 || min > 1) {
        throw new ConfigError(
          `--fail-under "${text}" is not METRIC=MIN with MIN between 0 and 1 (METRIC: ${METRICS}, optionally DOMAIN:METRIC), e.g. --fail-under pass^4=0.8`,
        );
      }
      const domain = groups.domain;
      if (domain !== undefined && options.domains && !options.domains.includes(domain)) {
        throw new ConfigError(
          `--fail-under "${text}": the run has no domain "${domain}" (domains: ${options.domains.join(", ")})`,
        );
      }
      const kText = groups.hat ?? groups.hat2 ?? groups.at;
      const threshold: Threshold = {
        text,
        metric: groups.at !== undefined ? "pass@k" : kText !== undefined ? "pass^k" : "avg_reward",
        min,
        ...(domain !== undefined ? { domain } : {}),
      };
      if (kText !== undefined) {
        const k = Number(kText);
        if (k < 1 || k > options.numTrials) {
          throw new ConfigError(
            `--fail-under "${text}": k = ${k} needs 1 ≤ k ≤ --num-trials (${options.numTrials}); raise --num-trials or lower k`,
          );
        }
        if (k > MAX_REPORTED_K)
          throw new ConfigError(
            `--fail-under "${text}": pass^k is reported for k ≤ ${MAX_REPORTED_K}; lower k`,
          );
        threshold.k = k;
      }
      return threshold;
    });
}

/** Check a run's metrics against the thresholds; a metric that cannot be computed fails its gate. */
export function checkThresholds(metrics: RunMetrics, thresholds: readonly Threshold[]): ThresholdResult[] {
  return thresholds.map((threshold) => {
    const scope: Metrics | undefined =
      threshold.domain === undefined ? metrics : metrics.by_domain[threshold.domain];
    if (!scope || scope.total_simulations === 0) {
      return { threshold, value: null, passed: false, reason: "no evaluable simulations" };
    }
    const value =
      threshold.metric === "avg_reward"
        ? scope.avg_reward
        : ((threshold.metric === "pass^k" ? scope.pass_hat_ks : scope.pass_at_ks)[threshold.k!] ?? null);
    if (value === null) {
      const fewest = Object.keys(scope.pass_hat_ks).length;
      return {
        threshold,
        value,
        passed: false,
        reason: `cannot be computed: some task has only ${fewest} evaluable trial(s) (infrastructure errors or an unfinished run)`,
      };
    }
    // A tiny tolerance: 0.8 written in a flag and 4/5 computed from counts must compare equal.
    const passed = value >= threshold.min - 1e-12;
    return {
      threshold,
      value,
      passed,
      ...(passed ? {} : { reason: `${value.toFixed(4)} < ${threshold.min}` }),
    };
  });
}

/** A `--fail-under robustness.NAME=MIN` gate: the share of the clean pass^k kept under a perturbation. */
export interface RobustnessThreshold {
  text: string;
  /** The perturbation's name (no version). */
  perturbation: string;
  min: number;
}

const ROBUSTNESS_SYNTAX = /^robustness\.(?<name>[a-z][a-z0-9-]*)=(?<min>[0-9.]+)$/;

/** Whether a `--fail-under` part is a robustness gate (checked against a clean baseline, not the run alone). */
export function isRobustnessThreshold(text: string): boolean {
  return text.replace(/\s+/g, "").startsWith("robustness.");
}

/** Split `--fail-under` values into the run's own gates and its robustness gates (both as written). */
export function splitThresholds(values: readonly string[]): { run: string[]; robustness: string[] } {
  const parts = values
    .flatMap((value) => value.split(","))
    .map((part) => part.trim())
    .filter((part) => part !== "");
  return {
    run: parts.filter((p) => !isRobustnessThreshold(p)),
    robustness: parts.filter(isRobustnessThreshold),
  };
}

/**
 * Parse `robustness.NAME=MIN` gates against the perturbations the command measures.
 * @example parseRobustnessThresholds(["robustness.tool-faults=0.9"], ["tool-faults"])
 */
export function parseRobustnessThresholds(
  parts: readonly string[],
  perturbations: readonly string[],
): RobustnessThreshold[] {
  return parts.map((text) => {
    const groups = ROBUSTNESS_SYNTAX.exec(text.replace(/\s+/g, ""))?.groups;
    const min = Number(groups?.min);
    if (!groups || !Number.isFinite(min) || min < 0 || min > 1)
      throw new ConfigError(
        `--fail-under "${text}" is not robustness.PERTURBATION=MIN with MIN between 0 and 1, e.g. --fail-under robustness.tool-faults=0.9`,
      );
    if (!perturbations.includes(groups.name!))
      throw new ConfigError(
        `--fail-under "${text}": ${perturbations.length === 0 ? "the run is not perturbed" : `the run's perturbations are ${perturbations.join(", ")}`}; add --perturb ${groups.name} or drop the gate`,
      );
    return { text, perturbation: groups.name!, min };
  });
}

/**
 * Check robustness gates against the rows measured: a row's perturbation spec names the perturbation
 * (`tool-faults@1…`); a gate without a row, or whose robustness cannot be computed, fails.
 */
export function checkRobustnessThresholds(
  rows: ReadonlyArray<{ perturbation: string; robustness: number | null; clean: number | null }>,
  thresholds: readonly RobustnessThreshold[],
): Array<{ threshold: RobustnessThreshold; value: number | null; passed: boolean; reason?: string }> {
  return thresholds.map((threshold) => {
    const row = rows.find((r) =>
      r.perturbation.split(" + ").some((spec) => spec.split("@")[0] === threshold.perturbation),
    );
    if (!row)
      return {
        threshold,
        value: null,
        passed: false,
        reason: "no clean baseline run with the same configuration to compare with",
      };
    if (row.robustness === null)
      return {
        threshold,
        value: null,
        passed: false,
        reason:
          row.clean === 0 ? "the clean baseline's pass^k is 0, so no share can be kept" : "nothing evaluable",
      };
    const passed = row.robustness >= threshold.min - 1e-12;
    return {
      threshold,
      value: row.robustness,
      passed,
      ...(passed ? {} : { reason: `${row.robustness.toFixed(4)} < ${threshold.min}` }),
    };
  });
}
