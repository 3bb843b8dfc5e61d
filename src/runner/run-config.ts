import { z } from "zod";
import { CallLimitsSchema } from "../llm/call-limits.js";
import { redactUrl } from "../llm/redact.js";

/** The model flags a run was started with (`--agent-llm`, `--user-llm-args`…), as given. */
export const RunModelsSchema = z.object({
  agentLlm: z.string(),
  agentLlmArgs: z.string().optional(),
  userLlm: z.string(),
  userLlmArgs: z.string().optional(),
  judgeLlm: z.string().optional(),
  judgeLlmArgs: z.string().optional(),
  /** `--reranker-llm`: the model that rates search hits under banking_knowledge's `_reranker` configs. */
  rerankerLlm: z.string().optional(),
  agentPromptTemplate: z.string().optional(),
  toolSpec: z.string().optional(),
  // Operational: they change how and where calls are made, not what is measured (a run stopped by a
  // wrong base URL resumes with the right one).
  agentLlmBaseUrl: z.string().optional(),
  userLlmBaseUrl: z.string().optional(),
  judgeLlmBaseUrl: z.string().optional(),
  rerankerLlmBaseUrl: z.string().optional(),
  prices: z.string().optional(),
  /** Where the τ² protocol's texts are read (they are hash-checked, so the place does not change them). */
  upstream: z.string().optional(),
  cache: z.union([z.string(), z.boolean()]).optional(),
  /** False with `--no-prompt-cache`: changes what calls cost, not what models are shown. */
  promptCache: z.boolean().optional(),
  timeout: z.string().optional(),
  maxRetries: z.string().optional(),
  /** `--max-agent-message-bytes`: a remote agent's largest message. */
  maxAgentMessageBytes: z.string().optional(),
});
export type RunModels = z.infer<typeof RunModelsSchema>;

/**
 * What `passk run` stores as a run's configuration: everything needed to resume it in another
 * process (secrets excepted: API keys come from the environment again).
 */
export const RunConfigSchema = z.object({
  kind: z.literal("passk-run"),
  version: z.literal(1),
  domains: z.array(z.string()).min(1),
  /** The τ² data directory the run reads. */
  data: z.string(),
  selection: z.object({
    split: z.string().nullable(),
    task_ids: z.array(z.string()).nullable(),
    num_tasks: z.number().int().nullable(),
  }),
  num_trials: z.number().int().min(1),
  seed: z.number().int(),
  max_steps: z.number().int().min(1),
  max_errors: z.number().int().min(1),
  solo: z.boolean(),
  /** `--retrieval-config` (banking_knowledge): how the agent searches its knowledge base; null for other domains. */
  retrieval_config: z.string().nullable().optional(),
  /** `--retrieval-config-kwargs`: overrides of the retrieval config's settings (`{"top_k": 5}`); absent: none. */
  retrieval_config_kwargs: z.record(z.string(), z.unknown()).optional(),
  /**
   * `--perturb`: the perturbations every conversation meets, as canonical specs (`tool-faults@1:rate=0.2`);
   * empty or absent for a clean run.
   */
  perturbations: z.array(z.string()).optional(),
  /** Team perturbation modules (`--perturbation-module`), as absolute paths, loaded again on resume. */
  perturbation_modules: z.array(z.string()).optional(),
  /** The turn protocol (runs stored before it was recorded ran passk's). */
  protocol: z.enum(["tau2", "passk"]).default("passk"),
  models: RunModelsSchema,
  /** `--save-to` as an absolute path, or null. */
  save_to: z.string().nullable(),
  /** Operational settings, remembered for a resume that does not repeat them. */
  max_concurrency: z.number().int().min(1).optional(),
  max_cost: z.number().positive().nullable().optional(),
  /** `--max-sim-seconds`: wall-clock limit of one conversation. */
  max_sim_seconds: z.number().positive().nullable().optional(),
  /**
   * `--checkpoint-turns`: each conversation's progress is saved after every turn, and an interrupted one
   * continues from its last turn (operational: a resume may turn it on or off).
   */
  checkpoint_turns: z.boolean().optional(),
  /** `--adaptive`: more trials where they narrow the interval most, up to `max_trials` per task. */
  adaptive: z
    .object({ target_ci: z.number().positive().max(0.5), max_trials: z.number().int().min(1) })
    .nullable()
    .optional(),
  /** Limits on model calls shared by the run's processes (operational: a resume may change them). */
  limits: CallLimitsSchema.nullable().optional(),
  /** Agent and user are both scripted: the run shows a harness, not a model. */
  scripted_demo: z.boolean(),
  /** The process running it now (to refuse a second runner on the same machine). */
  runner: z.object({ pid: z.number().int(), host: z.string(), started_at: z.string() }).nullable().optional(),
});
export type RunConfig = z.infer<typeof RunConfigSchema>;

/** Model settings that may change between a run and its resume; typed again, they replace the stored ones. */
export const OPERATIONAL_MODEL_FLAGS = new Set<keyof RunModels>([
  "agentLlmBaseUrl",
  "userLlmBaseUrl",
  "judgeLlmBaseUrl",
  "rerankerLlmBaseUrl",
  "prices",
  "upstream",
  "cache",
  "promptCache",
  "timeout",
  "maxRetries",
  "maxAgentMessageBytes",
]);

const kebab = (name: string) => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** The settings that define what a run measures, flattened to `flag → value` for comparison. */
export function runIdentity(config: RunConfig): Record<string, unknown> {
  const identity: Record<string, unknown> = {
    "--domain": config.domains,
    "--data": config.data,
    "--task-split-name": config.selection.split,
    "--task-ids": config.selection.task_ids,
    "--num-tasks": config.selection.num_tasks,
    "--num-trials": config.num_trials,
    "--seed": config.seed,
    "--max-steps": config.max_steps,
    "--max-errors": config.max_errors,
    "--solo": config.solo,
    "--protocol": config.protocol,
    "--retrieval-config": config.retrieval_config ?? null,
    "--retrieval-config-kwargs": config.retrieval_config_kwargs ?? null,
    "--perturb": config.perturbations ?? [],
  };
  for (const [name, value] of Object.entries(config.models)) {
    if (!OPERATIONAL_MODEL_FLAGS.has(name as keyof RunModels)) identity[kebab(name)] = value ?? null;
  }
  return identity;
}

/**
 * Where two configurations measure different things: `--flag: stored → given` lines (empty when they
 * agree). Only flags in `only` are compared when given (e.g. the flags typed on a `--resume`).
 */
export function identityDifferences(
  stored: RunConfig,
  given: RunConfig,
  only?: ReadonlySet<string>,
): string[] {
  const a = runIdentity(stored);
  const b = runIdentity(given);
  const names = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return names
    .filter((name) => !only || only.has(name))
    .filter((name) => JSON.stringify(a[name] ?? null) !== JSON.stringify(b[name] ?? null))
    .map((name) => `${name}: ${JSON.stringify(a[name] ?? null)} → ${JSON.stringify(b[name] ?? null)}`);
}

const BASE_URL_KEYS = ["agentLlmBaseUrl", "userLlmBaseUrl", "judgeLlmBaseUrl", "rerankerLlmBaseUrl"] as const;

/**
 * The configuration as stored and written into results: credentials inside base URLs (`user:pass@`,
 * `?api-key=`) taken out, like API keys, which are never stored. A resume is given such a URL again.
 */
export function storableConfig(config: RunConfig): RunConfig {
  const models = { ...config.models };
  for (const key of BASE_URL_KEYS) {
    const url = models[key];
    if (url !== undefined) models[key] = redactUrl(url);
  }
  return { ...config, models };
}
