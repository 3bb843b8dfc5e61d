import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { ConfigError } from "../core/errors.js";
import { readResultsFile, type ResultsInput } from "../formats/tau2/results.js";
import { isRedactedUrl } from "../llm/redact.js";
import type { RunRecord, Store } from "../store/store.js";
import {
  identityDifferences,
  OPERATIONAL_MODEL_FLAGS,
  RunConfigSchema,
  type RunConfig,
  type RunModels,
} from "./run-config.js";

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

const FLAG_OF_MODEL_KEY = {
  agentLlmBaseUrl: "--agent-llm-base-url",
  userLlmBaseUrl: "--user-llm-base-url",
  judgeLlmBaseUrl: "--judge-llm-base-url",
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
 * The configuration a stored run continues with: its own, with the operational model settings given
 * again (a fixed base URL, a longer timeout) in place of the stored ones. Credentials were taken out of
 * stored base URLs, so a run that had some must be given its URL again.
 */
export function continuedConfig(
  stored: StoredRun,
  given: { models?: Partial<RunModels>; saveTo?: string },
): RunConfig {
  const models: Record<string, string | boolean | undefined> = { ...stored.config.models };
  for (const key of OPERATIONAL_MODEL_FLAGS)
    if (given.models?.[key] !== undefined) models[key] = given.models[key];
  for (const key of ["agentLlmBaseUrl", "userLlmBaseUrl", "judgeLlmBaseUrl"] as const) {
    const url = models[key];
    if (typeof url === "string" && isRedactedUrl(url))
      throw new ConfigError(
        `run ${stored.run.id} used a base URL with credentials (${url}), which are never stored; ` +
          `pass ${FLAG_OF_MODEL_KEY[key]} again to continue it.`,
      );
  }
  return { ...stored.config, models: models as RunModels, save_to: given.saveTo ?? stored.config.save_to };
}

/**
 * A new run's configuration resolved against its `save_to` file: the newest stored run writing to the
 * same file is continued; a file no stored run owns seeds the run with its simulations. Either must
 * have been configured the same way.
 */
export function resolveSaveTo(store: Store, config: RunConfig): ResolvedRun {
  if (!config.save_to) return { config };
  for (const run of store.listRuns()) {
    const stored = RunConfigSchema.safeParse(run.config).data;
    if (!stored || stored.save_to !== config.save_to) continue;
    const differences = identityDifferences(stored, config);
    if (differences.length > 0) {
      throw new ConfigError(
        `--save-to ${config.save_to} belongs to run ${run.id}, which was configured differently:\n  ${differences.join("\n  ")}\n` +
          `Pass another --save-to to start a new run, or \`passk run --resume ${run.id}\` to continue that one.`,
      );
    }
    return { config, existing: { run, config: stored } };
  }
  if (!existsSync(config.save_to)) return { config };
  const file = readResultsFile(config.save_to);
  const section = (file.raw.info as { passk?: { config?: unknown; run_id?: unknown } }).passk;
  const fromFile = RunConfigSchema.safeParse(section?.config);
  if (!fromFile.success) {
    throw new ConfigError(
      `--save-to ${config.save_to} already holds results that \`passk run\` did not write (no passk run configuration in its info); ` +
        "pass another --save-to, or move the file away.",
    );
  }
  const differences = identityDifferences(fromFile.data, config);
  if (differences.length > 0) {
    throw new ConfigError(
      `--save-to ${config.save_to} holds a run configured differently:\n  ${differences.join("\n  ")}\n` +
        "Pass another --save-to to start a new run, or repeat the flags of that run to continue it.",
    );
  }
  return {
    config,
    adopt: {
      file: config.save_to,
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
