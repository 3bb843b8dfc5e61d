import path from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import { ConfigError } from "../../core/errors.js";
import { parseRetrievalConfigKwargs, type RetrievalConfigKwargs } from "../../knowledge/configs.js";
import { resolveDataDir } from "../../formats/tau2/data-dir.js";
import { resolveConfig } from "../../formats/tau2/domain-data.js";
import { continuedConfig, resolveSaveTo, storedRun, type ResolvedRun } from "../../runner/resume.js";
import {
  identityDifferences,
  OPERATIONAL_MODEL_FLAGS,
  type RunConfig,
  type RunModels,
} from "../../runner/run-config.js";
import type { Store } from "../../store/store.js";
import type { AnyDomain } from "../../env/domain.js";
import {
  createPerturbationRegistry,
  resolvePerturbations,
  type PerturbationRegistry,
} from "../../perturbations/registry.js";
import type { CliContext, loadDomain } from "../context.js";
import type { ModelFlags } from "../model-flags.js";
import { customerSpecFor } from "../../users/create-user.js";

/** The flags of `passk run`, as commander hands them over (strings until checked). */
export interface RunFlags extends Partial<ModelFlags> {
  domain?: string[];
  data?: string;
  numTrials: string;
  numTasks?: string;
  taskIds?: string[];
  taskSplitName: string;
  maxConcurrency: string;
  seed: string;
  maxSteps: string;
  maxErrors: string;
  maxAttempts: string;
  solo?: boolean;
  maxCost?: string;
  saveTo?: string;
  store?: string;
  resume?: string;
  label?: string;
  failUnder?: string[];
  junit?: string;
  review?: boolean;
  progress: string;
  progressInterval: string;
  maxSimSeconds?: string;
  /** `--checkpoint-turns` / `--no-checkpoint-turns` (undefined: as the stored run, else off). */
  checkpointTurns?: boolean;
  adaptive?: boolean;
  retrievalConfig?: string;
  retrievalConfigKwargs?: string;
  rerankerLlm?: string;
  rerankerLlmBaseUrl?: string;
  targetCi?: string;
  maxTrials?: string;
  /** `--otel [endpoint]`: operational, never part of the run's configuration. */
  otel?: string | boolean;
  /** `--perturb SPEC`, repeated. */
  perturb?: string[];
  /** `--perturbation-module FILE`, repeated. */
  perturbationModule?: string[];
  queue?: string;
  localWorkers: string;
  maxConcurrentRequests?: string[];
  requestsPerMinute?: string[];
  tokensPerMinute?: string[];
  limitWindow: string;
}

/** A whole-number flag within bounds (a huge value would exhaust memory before anything runs). */
const int = (flag: string, min: number, max: number) => {
  const sentence = `${flag} must be a whole number from ${min} to ${max}`;
  return z.coerce
    .number({ error: () => sentence })
    .int({ error: sentence })
    .min(min, { error: sentence })
    .max(max, { error: sentence });
};

export const FlagNumbersSchema = z.object({
  numTrials: int("--num-trials", 1, 1000),
  numTasks: int("--num-tasks", 1, 1_000_000).optional(),
  maxConcurrency: int("--max-concurrency", 1, 1000),
  seed: z.coerce
    .number({ error: () => "--seed must be a whole number" })
    .refine(Number.isSafeInteger, { error: "--seed must be a whole number of at most 15 digits" }),
  maxSteps: int("--max-steps", 1, 100_000),
  maxErrors: int("--max-errors", 1, 100_000),
  maxAttempts: int("--max-attempts", 1, 100),
  maxCost: z.coerce
    .number({ error: () => "--max-cost must be an amount of USD, e.g. 5 or 2.50" })
    .positive({ error: "--max-cost must be more than 0 USD" })
    .optional(),
  progressInterval: z.coerce.number().positive({ error: "--progress-interval must be seconds > 0" }),
  maxSimSeconds: z.coerce
    .number({ error: () => "--max-sim-seconds must be a number of seconds, e.g. 600" })
    .positive({ error: "--max-sim-seconds must be more than 0 seconds" })
    .max(2_000_000, { error: "--max-sim-seconds must be at most 2000000 seconds (23 days)" })
    .optional(),
  targetCi: z.coerce
    .number({ error: () => "--target-ci must be a half-width between 0 and 0.5, e.g. 0.05 for ± 5 points" })
    .positive({ error: "--target-ci must be more than 0, e.g. 0.05 for ± 5 points" })
    .max(0.5, { error: "--target-ci must be at most 0.5 (a success rate's interval is never wider)" })
    .optional(),
  maxTrials: int("--max-trials", 1, 1000).optional(),
  localWorkers: int("--local-workers", 0, 1000).default(0),
  limitWindow: int("--limit-window", 1, 3600).default(60),
  progress: z.enum(["auto", "bar", "lines", "none"], {
    error: () => "--progress must be one of auto, bar, lines, none",
  }),
});

export type FlagNumbers = z.infer<typeof FlagNumbersSchema>;

export function parseFlagNumbers(flags: RunFlags): FlagNumbers {
  const parsed = FlagNumbersSchema.safeParse(flags);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => i.message).join("; "));
  return parsed.data;
}

const MODEL_KEYS = [
  "agentLlm",
  "agentLlmBaseUrl",
  "agentLlmArgs",
  "userLlm",
  "userLlmBaseUrl",
  "userLlmArgs",
  "judgeLlm",
  "judgeLlmBaseUrl",
  "judgeLlmArgs",
  "rerankerLlm",
  "rerankerLlmBaseUrl",
  "agentPromptTemplate",
  "toolSpec",
  "prices",
  "upstream",
  "cache",
  "promptCache",
  "timeout",
  "maxRetries",
  "maxAgentMessageBytes",
] as const satisfies ReadonlyArray<keyof RunModels>;
const FILE_KEYS = new Set(["agentPromptTemplate", "toolSpec", "prices", "upstream"]);

/** The run configuration the flags describe (a new run, or one to compare with a stored run). */
function configFromFlags(
  flags: RunFlags,
  numbers: z.infer<typeof FlagNumbersSchema>,
  dataDir: string,
  domains: ReadonlyMap<string, AnyDomain>,
  perturbations: PerturbationRegistry,
): RunConfig {
  if (!flags.domain || flags.domain.length === 0) {
    throw new ConfigError("--domain is required (or --resume RUN_ID to continue a stored run)");
  }
  if (!flags.agentLlm) {
    throw new ConfigError(
      "--agent-llm is required (e.g. openai:gpt-4.1, or scripted:gold for a keyless demo), or --resume RUN_ID",
    );
  }
  const models: Record<string, string | boolean> = {};
  for (const key of MODEL_KEYS) {
    const value = flags[key];
    if (value === undefined) continue;
    // Files are recorded by absolute path so that a resume from another directory finds them.
    models[key] = FILE_KEYS.has(key) && typeof value === "string" ? path.resolve(value) : value;
  }
  const config: RunConfig = {
    kind: "passk-run",
    version: 1,
    domains: [...new Set(flags.domain)],
    data: dataDir,
    selection: {
      split: flags.taskSplitName,
      task_ids: flags.taskIds ?? null,
      num_tasks: numbers.numTasks ?? null,
    },
    num_trials: numbers.numTrials,
    seed: numbers.seed,
    max_steps: numbers.maxSteps,
    max_errors: numbers.maxErrors,
    solo: flags.solo ?? false,
    protocol: defaultProtocol(flags, domains),
    retrieval_config: retrievalConfigOf(flags, domains),
    ...retrievalKwargsOf(flags),
    models: {
      ...(models as RunModels),
      userLlm: customerSpecFor(flags.agentLlm, flags.userLlm, flags.solo ?? false),
    },
    save_to: flags.saveTo ? path.resolve(flags.saveTo) : null,
    scripted_demo: false,
  };
  // Recorded canonically (version and settings spelled out), so that a resume compares like with like.
  const specs = perturbationSpecs(flags.perturb ?? [], perturbations);
  if (specs.length > 0) config.perturbations = specs;
  if (flags.perturbationModule && flags.perturbationModule.length > 0)
    config.perturbation_modules = flags.perturbationModule.map((file) => path.resolve(file));
  return config;
}

/** `--perturb` values resolved and written canonically; one perturbation may be named once. */
export function perturbationSpecs(values: readonly string[], registry: PerturbationRegistry): string[] {
  return resolvePerturbations(registry, values, "--perturb").map((p) => p.spec);
}

/**
 * The configuration of the run's configurable domains (banking_knowledge's retrieval config): as given
 * or the domain's default, checked by name; null when no domain has configurations. Refused for runs
 * whose domains have none.
 */
function retrievalConfigOf(flags: RunFlags, domains: ReadonlyMap<string, AnyDomain>): string | null {
  const configurable = (flags.domain ?? []).map((name) => domains.get(name)).filter((d) => d?.configs);
  if (configurable.length === 0) {
    if (flags.retrievalConfig !== undefined)
      throw new ConfigError(
        `--retrieval-config applies to banking_knowledge only; none of ${(flags.domain ?? []).join(", ")} has retrieval configs. Leave it out.`,
      );
    return null;
  }
  return resolveConfig(configurable[0]!, flags.retrievalConfig) ?? null;
}

/** `--retrieval-config-kwargs` validated, for the run's identity (absent when not given). */
function retrievalKwargsOf(flags: RunFlags): { retrieval_config_kwargs?: RetrievalConfigKwargs } {
  if (flags.retrievalConfigKwargs === undefined) return {};
  if (flags.retrievalConfig === undefined && !(flags.domain ?? []).includes("banking_knowledge"))
    throw new ConfigError("--retrieval-config-kwargs applies to banking_knowledge only. Leave it out.");
  return { retrieval_config_kwargs: parseRetrievalConfigKwargs(flags.retrievalConfigKwargs) };
}

/** `--protocol` as given, else τ²'s for runs of τ²'s own domains only, else passk's. */
function defaultProtocol(flags: RunFlags, domains: ReadonlyMap<string, AnyDomain>): "tau2" | "passk" {
  if (flags.protocol === "tau2" || flags.protocol === "passk") return flags.protocol;
  if (flags.protocol !== undefined)
    throw new ConfigError(`--protocol "${flags.protocol}" is not a protocol; use tau2 or passk`);
  return (flags.domain ?? []).every((name) => domains.get(name)?.tau2 !== undefined) ? "tau2" : "passk";
}

export function modelFlagsOf(config: RunConfig): ModelFlags {
  const flags: Record<string, string | boolean> = {};
  for (const [key, value] of Object.entries(config.models)) if (value !== undefined) flags[key] = value;
  flags.protocol = config.protocol;
  return flags as unknown as ModelFlags;
}

/** Flags that set what a run measures; on `--resume` they may only repeat the stored values. */
const IDENTITY_FLAG_OF_OPTION: Record<string, string> = {
  domain: "--domain",
  data: "--data",
  taskSplitName: "--task-split-name",
  taskIds: "--task-ids",
  numTasks: "--num-tasks",
  numTrials: "--num-trials",
  seed: "--seed",
  maxSteps: "--max-steps",
  maxErrors: "--max-errors",
  solo: "--solo",
  agentLlm: "--agent-llm",
  agentLlmArgs: "--agent-llm-args",
  userLlm: "--user-llm",
  userLlmArgs: "--user-llm-args",
  judgeLlm: "--judge-llm",
  judgeLlmArgs: "--judge-llm-args",
  agentPromptTemplate: "--agent-prompt-template",
  toolSpec: "--tool-spec",
  protocol: "--protocol",
  retrievalConfig: "--retrieval-config",
  retrievalConfigKwargs: "--retrieval-config-kwargs",
  perturb: "--perturb",
};

/** Which run this command continues or starts, checked against what is stored. */
export function resolveRun(
  store: Store,
  flags: RunFlags,
  command: Command,
  numbers: z.infer<typeof FlagNumbersSchema>,
  context: CliContext,
): ResolvedRun {
  if (flags.resume)
    return resumeFromFlags(store, { ...flags, resume: flags.resume }, command, numbers, context);
  const config = configFromFlags(
    flags,
    numbers,
    resolveDataDir(flags.data, context.env),
    context.domains,
    context.perturbations ?? createPerturbationRegistry(),
  );
  return resolveSaveTo(store, config);
}

/** `--resume ID`: the stored run, refusing identity flags typed again that differ from it. */
function resumeFromFlags(
  store: Store,
  flags: RunFlags & { resume: string },
  command: Command,
  numbers: z.infer<typeof FlagNumbersSchema>,
  context: CliContext,
): ResolvedRun {
  const stored = storedRun(store, flags.resume);
  const given = new Set(
    Object.keys(IDENTITY_FLAG_OF_OPTION)
      .filter((option) => command.getOptionValueSource(option) === "cli")
      .map((option) => IDENTITY_FLAG_OF_OPTION[option]!),
  );
  if (given.size > 0) {
    const asGiven = configFromFlags(
      {
        ...flags,
        domain: flags.domain ?? stored.config.domains,
        agentLlm: flags.agentLlm ?? stored.config.models.agentLlm,
        userLlm: flags.userLlm ?? stored.config.models.userLlm,
      },
      numbers,
      given.has("--data") ? path.resolve(flags.data!) : stored.config.data,
      context.domains,
      context.perturbations ?? createPerturbationRegistry(),
    );
    const differences = identityDifferences(stored.config, asGiven, given);
    if (differences.length > 0) {
      throw new ConfigError(
        `--resume ${stored.run.id} continues the run as it was configured; these flags differ from it:\n  ${differences.join("\n  ")}\n` +
          "Drop them (the stored configuration is used), or start a new run without --resume.",
      );
    }
  }
  // Operational settings typed again (a fixed base URL, a longer timeout) replace the stored ones.
  const models: Record<string, string | boolean> = {};
  for (const key of OPERATIONAL_MODEL_FLAGS) {
    const value = flags[key];
    if (value !== undefined && command.getOptionValueSource(key) === "cli")
      models[key] = FILE_KEYS.has(key) && typeof value === "string" ? path.resolve(value) : value;
  }
  return {
    config: continuedConfig(stored, {
      models: models as Partial<RunModels>,
      ...(flags.saveTo ? { saveTo: path.resolve(flags.saveTo) } : {}),
    }),
    existing: stored,
  };
}

/**
 * The adaptive settings of a run: `--adaptive` with `--target-ci` (default ± 0.05) and `--max-trials`
 * (default 4 × --num-trials, at least 8); a resumed adaptive run keeps its own unless they are given.
 */
export function resolveAdaptive(
  flags: Pick<RunFlags, "adaptive">,
  numbers: Pick<z.infer<typeof FlagNumbersSchema>, "targetCi" | "maxTrials">,
  numTrials: number,
  stored: RunConfig["adaptive"] | undefined,
): NonNullable<RunConfig["adaptive"]> | null {
  if (!flags.adaptive && !stored) {
    const given =
      numbers.targetCi !== undefined
        ? "--target-ci"
        : numbers.maxTrials !== undefined
          ? "--max-trials"
          : null;
    if (given) throw new ConfigError(`${given} only applies to adaptive runs: add --adaptive`);
    return null;
  }
  const adaptive = {
    target_ci: numbers.targetCi ?? stored?.target_ci ?? 0.05,
    max_trials: numbers.maxTrials ?? stored?.max_trials ?? Math.max(8, 4 * numTrials),
  };
  if (adaptive.max_trials < numTrials)
    throw new ConfigError(
      `--max-trials ${adaptive.max_trials} is below --num-trials ${numTrials}: every task gets --num-trials first; raise --max-trials`,
    );
  return adaptive;
}

/**
 * How a run loads one of its domains (in the coordinator and in each worker alike): from `data`, and for
 * a domain with configurations (banking_knowledge) with the run's retrieval config, the upstream folder
 * and the reranker's model, priced with the run's `--prices`.
 */
export function domainLoadOptions(
  context: CliContext,
  config: RunConfig,
  name: string,
  data: string,
): Parameters<typeof loadDomain>[2] {
  const { models } = config;
  return {
    data,
    ...(config.retrieval_config && context.domains.get(name)?.configs
      ? {
          retrievalConfig: config.retrieval_config,
          ...(config.retrieval_config_kwargs !== undefined
            ? { retrievalConfigKwargs: JSON.stringify(config.retrieval_config_kwargs) }
            : {}),
          ...(models.upstream !== undefined ? { upstream: models.upstream } : {}),
          ...(models.rerankerLlm !== undefined ? { rerankerLlm: models.rerankerLlm } : {}),
          ...(models.rerankerLlmBaseUrl !== undefined
            ? { rerankerLlmBaseUrl: models.rerankerLlmBaseUrl }
            : {}),
          ...(models.prices !== undefined ? { prices: models.prices } : {}),
        }
      : {}),
  };
}
