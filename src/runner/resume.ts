import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { ConfigError } from "../core/errors.js";
import { readResultsFile, type ResultsInput } from "../formats/tau2/results.js";
import { isRedactedUrl } from "../llm/redact.js";
import type { RunRecord } from "../core/run-store.js";
import type { Store } from "../store/store.js";
import path from "node:path";
import {
  identityDifferences,
  MODEL_ROLES,
  resolveAdaptive,
  RunConfigSchema,
  type ModelSpec,
  type ParsedRunSpec,
  type RunConfig,
} from "./run-spec.js";

// Which run a `passk run` continues: a stored run by id, the stored run that writes the same results
// file, or a results file no store knows (its simulations seed a new run, as τ² resumes from --save-to).
// Each refuses a configuration that measures something else than the run it would continue.

/** A run `passk run` started, with its parsed configuration. */
export interface StoredRun {
  run: RunRecord;
  config: RunConfig;
}

export interface ResolvedRun {
  config: RunConfig;
  /** The stored run to continue, if any, with its configuration as parsed. */
  existing?: StoredRun;
  /** A results file (from an earlier `--save-to`) whose simulations seed a new run. */
  adopt?: { file: string; results: ResultsInput; runId?: string };
}

const FLAG_OF_ROLE = {
  agent: "--agent-llm-base-url",
  user: "--user-llm-base-url",
  judge: "--judge-llm-base-url",
  reranker: "--reranker-llm-base-url",
} as const;

/** A stored run with its configuration, if `passk run` (or `startRun`) started it; else a sentence. */
export function storedRun(store: Store, id: string): StoredRun {
  const run = store.getRun(id);
  const parsed = RunConfigSchema.safeParse(run.config);
  if (!parsed.success)
    throw new ConfigError(
      `run ${run.id} was not started by \`passk run\` (status ${run.status}${run.config.imported_from ? `, imported from ${String(run.config.imported_from)}` : ""}); only such runs can be resumed.`,
    );
  return { run, config: parsed.data };
}

/**
 * What a resume may be given: the run's settings typed again. Those that define what the run measures
 * must repeat the stored values; the others (base URLs, timeouts, prices, budget, concurrency…) replace
 * the stored ones.
 */
export type RunChanges = Partial<
  Omit<ParsedRunSpec, "store" | "label" | "adaptive" | (typeof MODEL_ROLES)[number]>
> & {
  [role in (typeof MODEL_ROLES)[number]]?: Partial<ModelSpec>;
} & { adaptive?: { targetCi?: number; maxTrials?: number } };

/**
 * The configuration a stored run continues with: its own, with the settings given again in place of
 * the stored ones. A given setting that changes what the run measures is refused, and credentials were
 * taken out of stored base URLs, so a run that had some must be given its URL again.
 */
export function continuedConfig(stored: StoredRun, given: RunChanges = {}): RunConfig {
  const merged: RunConfig = { ...stored.config };
  for (const [key, value] of Object.entries(given))
    if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
  for (const role of MODEL_ROLES) {
    const was = stored.config[role];
    const now = given[role];
    if (!now) continue;
    if (was) (merged as Record<string, unknown>)[role] = { ...was, ...now };
    else if (now?.model !== undefined) (merged as Record<string, unknown>)[role] = now;
    else delete (merged as Record<string, unknown>)[role];
  }
  if (given.saveTo !== undefined) merged.saveTo = path.resolve(given.saveTo);
  merged.adaptive = resolveAdaptive(given.adaptive, stored.config.adaptive, stored.config.numTrials);
  const differences = identityDifferences(stored.config, merged);
  if (differences.length > 0)
    throw new ConfigError(
      `--resume ${stored.run.id} continues the run as it was configured; these flags differ from it:\n  ${differences.join("\n  ")}\n` +
        "Drop them (the stored configuration is used), or start a new run without --resume.",
    );
  for (const role of MODEL_ROLES) {
    const url = merged[role]?.baseUrl;
    if (url !== undefined && isRedactedUrl(url))
      throw new ConfigError(
        `run ${stored.run.id} used a base URL with credentials (${url}), which are never stored; ` +
          `pass ${FLAG_OF_ROLE[role]} again to continue it.`,
      );
  }
  return merged;
}

/**
 * A new run's configuration resolved against its `save_to` file: the newest stored run writing to the
 * same file is continued; a file no stored run owns seeds the run with its simulations. Either must
 * have been configured the same way.
 */
export function resolveSaveTo(store: Store, config: RunConfig): ResolvedRun {
  if (!config.saveTo) return { config };
  for (const run of store.listRuns()) {
    const stored = RunConfigSchema.safeParse(run.config).data;
    if (!stored || stored.saveTo !== config.saveTo) continue;
    const differences = identityDifferences(stored, config);
    if (differences.length > 0) {
      throw new ConfigError(
        `--save-to ${config.saveTo} belongs to run ${run.id}, which was configured differently:\n  ${differences.join("\n  ")}\n` +
          `Pass another --save-to to start a new run, or \`passk run --resume ${run.id}\` to continue that one.`,
      );
    }
    return { config, existing: { run, config: stored } };
  }
  if (!existsSync(config.saveTo)) return { config };
  const file = readResultsFile(config.saveTo);
  const section = (file.raw.info as { passk?: { config?: unknown; run_id?: unknown } }).passk;
  const fromFile = RunConfigSchema.safeParse(section?.config);
  if (!fromFile.success) {
    throw new ConfigError(
      `--save-to ${config.saveTo} already holds results that \`passk run\` did not write (no passk run configuration in its info); ` +
        "pass another --save-to, or move the file away.",
    );
  }
  const differences = identityDifferences(fromFile.data, config);
  if (differences.length > 0) {
    throw new ConfigError(
      `--save-to ${config.saveTo} holds a run configured differently:\n  ${differences.join("\n  ")}\n` +
        "Pass another --save-to to start a new run, or repeat the flags of that run to continue it.",
    );
  }
  return {
    config,
    adopt: {
      file: config.saveTo,
      results: file.raw,
      ...(typeof section?.run_id === "string" ? { runId: section.run_id } : {}),
    },
  };
}

/** Refuse to run a run that another live process on this machine is running. */
export function checkNotRunningElsewhere({ run, config }: StoredRun): void {
  const runner = config.runner;
  if (run.status !== "running" || !runner || runner.host !== hostname() || runner.pid === process.pid) return;
  try {
    process.kill(runner.pid, 0);
  } catch {
    return; // that process is gone (killed, crashed): safe to take over
  }
  throw new ConfigError(
    `run ${run.id} is being run by process ${runner.pid} on this machine (since ${runner.started_at}); ` +
      "wait for it, or stop it (Ctrl-C) before resuming.",
  );
}
