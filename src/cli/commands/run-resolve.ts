import path from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import { ConfigError } from "../../core/errors.js";
import { parseRetrievalConfigKwargs } from "../../knowledge/configs.js";
import { parseCallLimits } from "../../llm/call-limits.js";
import { parseLlmArgs } from "../../llm/llm-args.js";
import { resolvePerturbations, type PerturbationRegistry } from "../../perturbations/registry.js";
import type { RunChanges } from "../../runner/resume.js";
import type { ModelSpec, RunSpec } from "../../runner/run-spec.js";
import { agentMessageBytes, callAttempts, callTimeoutMs, type ModelFlags } from "../model-flags.js";

/** A whole-number flag within bounds (a huge value would exhaust memory before anything runs). */
const int = (flag: string, min: number, max: number) => {
  const sentence = `${flag} must be a whole number from ${min} to ${max}`;
  return z.coerce
    .number<string>({ error: () => sentence })
    .int({ error: sentence })
    .min(min, { error: sentence })
    .max(max, { error: sentence });
};

const text = z.string().optional();
const texts = z.array(z.string()).optional();
const flag = z.boolean().optional();

/**
 * The flags of `passk run` besides the model flags, as commander hands them over (strings until
 * checked); parsing checks the numeric ones and gives them as numbers.
 */
const RunFlagsSchema = z.object({
  domain: texts,
  data: text,
  numTrials: int("--num-trials", 1, 1000),
  numTasks: int("--num-tasks", 1, 1_000_000).optional(),
  taskIds: texts,
  taskSplitName: z.string(),
  maxConcurrency: int("--max-concurrency", 1, 1000),
  seed: z.coerce
    .number<string>({ error: () => "--seed must be a whole number" })
    .refine(Number.isSafeInteger, { error: "--seed must be a whole number of at most 15 digits" }),
  maxSteps: int("--max-steps", 1, 100_000),
  maxErrors: int("--max-errors", 1, 100_000),
  maxAttempts: int("--max-attempts", 1, 100),
  solo: flag,
  maxCost: z.coerce
    .number<string>({ error: () => "--max-cost must be an amount of USD, e.g. 5 or 2.50" })
    .positive({ error: "--max-cost must be more than 0 USD" })
    .optional(),
  saveTo: text,
  store: text,
  resume: text,
  label: text,
  failUnder: texts,
  junit: text,
  review: flag,
  progressInterval: z.coerce.number<string>().positive({ error: "--progress-interval must be seconds > 0" }),
  maxSimSeconds: z.coerce
    .number<string>({ error: () => "--max-sim-seconds must be a number of seconds, e.g. 600" })
    .positive({ error: "--max-sim-seconds must be more than 0 seconds" })
    .max(2_000_000, { error: "--max-sim-seconds must be at most 2000000 seconds (23 days)" })
    .optional(),
  /** `--checkpoint-turns` / `--no-checkpoint-turns` (undefined: as the stored run, else off). */
  checkpointTurns: flag,
  adaptive: flag,
  retrievalConfig: text,
  retrievalConfigKwargs: text,
  rerankerLlm: text,
  rerankerLlmBaseUrl: text,
  targetCi: z.coerce
    .number<string>({
      error: () => "--target-ci must be a half-width between 0 and 0.5, e.g. 0.05 for ± 5 points",
    })
    .positive({ error: "--target-ci must be more than 0, e.g. 0.05 for ± 5 points" })
    .max(0.5, { error: "--target-ci must be at most 0.5 (a success rate's interval is never wider)" })
    .optional(),
  maxTrials: int("--max-trials", 1, 1000).optional(),
  /** `--otel [endpoint]`: operational, never part of the run's configuration. */
  otel: z.union([z.string(), z.boolean()]).optional(),
  /** `--perturb SPEC`, repeated. */
  perturb: texts,
  /** `--perturbation-module FILE`, repeated. */
  perturbationModule: texts,
  queue: text,
  localWorkers: int("--local-workers", 0, 1000).default(0),
  maxConcurrentRequests: texts,
  requestsPerMinute: texts,
  tokensPerMinute: texts,
  limitWindow: int("--limit-window", 1, 3600).default(60),
  progress: z.enum(["auto", "bar", "lines", "none"], {
    error: () => "--progress must be one of auto, bar, lines, none",
  }),
});

/** The flags of `passk run`, as commander hands them over. */
export type RunFlags = z.input<typeof RunFlagsSchema> & Partial<ModelFlags>;
/** The flags of `passk run` checked, the numeric ones as numbers. */
export type FlagNumbers = z.output<typeof RunFlagsSchema>;

export function parseFlagNumbers(flags: RunFlags): FlagNumbers {
  const parsed = RunFlagsSchema.safeParse(flags);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => i.message).join("; "));
  return parsed.data;
}

/** `--perturb` values resolved and written canonically; one perturbation may be named once. */
export function perturbationSpecs(values: readonly string[], registry: PerturbationRegistry): string[] {
  return resolvePerturbations(registry, values, "--perturb").map((p) => p.spec);
}

type Role = "agent" | "user" | "judge" | "reranker";

/** One participant's flags as (part of) a model spec: what was given of its model, base URL and args. */
function roleOf(
  flags: RunFlags,
  role: Role,
  given: (key: keyof RunFlags) => boolean,
): Partial<ModelSpec> | undefined {
  const value = (key: keyof RunFlags) => (given(key) ? (flags[key] as string | undefined) : undefined);
  const model = value(`${role}Llm`);
  const baseUrl = value(`${role}LlmBaseUrl`);
  // The reranker takes no call settings.
  const args = role === "reranker" ? undefined : value(`${role}LlmArgs`);
  const spec: Partial<ModelSpec> = {
    ...(model !== undefined ? { model } : {}),
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    ...(args !== undefined ? { args: parseLlmArgs(args, `--${role}-llm-args`) } : {}),
  };
  return Object.keys(spec).length > 0 ? spec : undefined;
}

const file = (value: string | undefined) => (value === undefined ? undefined : path.resolve(value));

/**
 * The run settings the flags give (`given` says which count: every flag with a value for a new run,
 * only those typed for a resume), as the library's spec: numbers checked, JSON and files parsed.
 */
function settingsOf(
  flags: RunFlags,
  numbers: FlagNumbers,
  given: (key: keyof RunFlags) => boolean,
): RunChanges {
  const pick = <K extends keyof RunFlags>(key: K) => (given(key) ? flags[key] : undefined);
  const settings: Record<string, unknown> = {
    domains: pick("domain") && [...new Set(flags.domain)],
    dataDir: file(pick("data")),
    split: pick("taskSplitName"),
    taskIds: pick("taskIds"),
    numTasks: given("numTasks") ? numbers.numTasks : undefined,
    numTrials: given("numTrials") ? numbers.numTrials : undefined,
    seed: given("seed") ? numbers.seed : undefined,
    maxSteps: given("maxSteps") ? numbers.maxSteps : undefined,
    maxErrors: given("maxErrors") ? numbers.maxErrors : undefined,
    solo: pick("solo"),
    protocol: pick("protocol"),
    retrievalConfig: pick("retrievalConfig"),
    retrievalConfigKwargs:
      pick("retrievalConfigKwargs") && parseRetrievalConfigKwargs(flags.retrievalConfigKwargs!),
    perturbations: pick("perturb")?.length ? flags.perturb : undefined,
    perturbationModules: pick("perturbationModule")?.length
      ? flags.perturbationModule!.map((f) => path.resolve(f))
      : undefined,
    agentPromptTemplate: file(pick("agentPromptTemplate")),
    toolSpec: file(pick("toolSpec")),
    upstream: file(pick("upstream")),
    prices: file(pick("prices")),
    cache: pick("cache"),
    promptCache: pick("promptCache") === false ? false : undefined,
    timeoutSeconds: pick("timeout") !== undefined ? callTimeoutMs(flags.timeout!) / 1000 : undefined,
    maxRetries: pick("maxRetries") !== undefined ? callAttempts(flags.maxRetries!) : undefined,
    maxAgentMessageBytes: pick("maxAgentMessageBytes") && agentMessageBytes(flags.maxAgentMessageBytes!),
    saveTo: file(pick("saveTo")),
    maxConcurrency: given("maxConcurrency") ? numbers.maxConcurrency : undefined,
    maxAttempts: given("maxAttempts") ? numbers.maxAttempts : undefined,
    maxCost: numbers.maxCost,
    maxSimSeconds: numbers.maxSimSeconds,
    checkpointTurns: flags.checkpointTurns,
    adaptive:
      flags.adaptive || numbers.targetCi !== undefined || numbers.maxTrials !== undefined
        ? {
            ...(numbers.targetCi !== undefined ? { targetCi: numbers.targetCi } : {}),
            ...(numbers.maxTrials !== undefined ? { maxTrials: numbers.maxTrials } : {}),
          }
        : undefined,
    limits:
      parseCallLimits(
        {
          "--max-concurrent-requests": flags.maxConcurrentRequests,
          "--requests-per-minute": flags.requestsPerMinute,
          "--tokens-per-minute": flags.tokensPerMinute,
        },
        numbers.limitWindow,
      ) ?? undefined,
  };
  for (const role of ["agent", "user", "judge", "reranker"] as const)
    settings[role] = roleOf(flags, role, given);
  return Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined)) as RunChanges;
}

/** A new run's spec from `passk run`'s flags. */
export function runSpecOfFlags(flags: RunFlags, command: Command, numbers: FlagNumbers): RunSpec {
  if (!flags.domain || flags.domain.length === 0)
    throw new ConfigError("--domain is required (or --resume RUN_ID to continue a stored run)");
  if (!flags.agentLlm)
    throw new ConfigError(
      "--agent-llm is required (e.g. openai:gpt-4.1, or scripted:gold for a keyless demo), or --resume RUN_ID",
    );
  if (!flags.adaptive && (numbers.targetCi !== undefined || numbers.maxTrials !== undefined))
    throw new ConfigError(
      `${numbers.targetCi !== undefined ? "--target-ci" : "--max-trials"} only applies to adaptive runs: add --adaptive`,
    );
  // The split is τ²'s `base` unless typed (a domain without that split runs all its tasks).
  const given = (key: keyof RunFlags) =>
    flags[key] !== undefined && (key !== "taskSplitName" || command.getOptionValueSource(key) === "cli");
  return {
    ...settingsOf(flags, numbers, given),
    ...(flags.label !== undefined ? { label: flags.label } : {}),
  } as RunSpec;
}

/** `--resume`: the settings typed again (those that define what the run measures must repeat it). */
export function runChangesOfFlags(flags: RunFlags, command: Command, numbers: FlagNumbers): RunChanges {
  return settingsOf(flags, numbers, (key) => command.getOptionValueSource(key) === "cli");
}
