import { z } from "zod";
import { ConfigError } from "../core/errors.js";
import { RetrievalConfigKwargsSchema } from "../knowledge/configs.js";
import { CallLimitsSchema } from "../llm/call-limits.js";
import { LlmArgsSchema } from "../llm/llm-args.js";
import { redactUrl } from "../llm/redact.js";

/** Model calls' defaults, named once: the CLI's flags, stored run configs and the builder use them. */
export const DEFAULT_CALL_SETTINGS = { timeoutSeconds: 120, maxAttempts: 5 } as const;

/** A participant's model: `<provider>:<model>` (or `scripted:gold`, `a2a:URL`…), its base URL and call args. */
export const ModelSpecSchema = z.strictObject({
  model: z.string().min(1, { error: "a model spec, e.g. openai:gpt-4.1 or scripted:gold" }),
  baseUrl: z.string().min(1).optional(),
  args: LlmArgsSchema.optional(),
});
export type ModelSpec = z.infer<typeof ModelSpecSchema>;

/**
 * What a run is: its domains and tasks, its participants (model specs with their call args), its
 * protocol, limits, perturbations and retrieval config. `passk run`'s flags describe one; a library user
 * writes one for `startRun`; the store keeps it, resolved, with the run (see {@link RunConfigSchema}).
 */
export const RunSpecSchema = z.strictObject({
  domains: z.array(z.string().min(1)).min(1, { error: "name at least one, e.g. ['airline']" }),
  /** The τ² data directory: by default `PASSK_DATA_DIR` or where `passk data pull` puts it. */
  dataDir: z.string().optional(),
  /** The task split (τ²'s `base` by default where the domain has splits). */
  split: z.string().optional(),
  taskIds: z.array(z.string()).min(1).optional(),
  numTasks: z.number().int().min(1).optional(),
  numTrials: z.number().int().min(1).max(1000).default(1),
  seed: z.number().int().refine(Number.isSafeInteger).default(300),
  maxSteps: z.number().int().min(1).default(200),
  maxErrors: z.number().int().min(1).default(10),
  /** Solo mode: the agent works from the task's ticket with the customer's tools, no customer. */
  solo: z.boolean().default(false),
  /** The agent under test (or pass your own `Agent` to `startRun`). */
  agent: ModelSpecSchema.optional(),
  /** The customer; by default τ²'s pairing for the agent (`scripted:gold` for a scripted agent). */
  user: ModelSpecSchema.optional(),
  judge: ModelSpecSchema.optional(),
  /** banking_knowledge's `_reranker` retrieval configs: the model that rates search hits. */
  reranker: ModelSpecSchema.optional(),
  /** `tau2` or `passk`; by default τ²'s on τ²'s own domains, passk's on yours. */
  protocol: z.enum(["tau2", "passk"]).optional(),
  /** banking_knowledge: how the agent searches its knowledge base (`bm25`, `alltools`…). */
  retrievalConfig: z.string().optional(),
  retrievalConfigKwargs: RetrievalConfigKwargsSchema.optional(),
  /** Perturbations every conversation meets (`tool-faults:rate=0.2`), stored canonically. */
  perturbations: z.array(z.string()).optional(),
  /** Modules of a team's own perturbations (absolute paths), loaded again on resume. */
  perturbationModules: z.array(z.string()).optional(),
  /** Agent prompt templates (τ² `prompt_templates.json`), a file. */
  agentPromptTemplate: z.string().optional(),
  /** Tool descriptions shown to models, from a τ² tools JSON file. */
  toolSpec: z.string().optional(),
  // Operational: they change how and where calls are made or how the run proceeds, not what it measures.
  /** Where the τ² protocol's texts are read (hash-checked, so the place does not change them). */
  upstream: z.string().optional(),
  /** Price overrides JSON, a file (read once per run). */
  prices: z.string().optional(),
  /** Cache model responses: `true` for `.passk/llm-cache.db`, or a file. */
  cache: z.union([z.string(), z.boolean()]).optional(),
  /** False: no prompt-cache markers (changes what calls cost, not what models are shown). */
  promptCache: z.boolean().optional(),
  timeoutSeconds: z
    .number()
    .positive()
    .max(2_147_483, { error: "the call timeout must be at most 2147483 seconds (about 24 days)" })
    .default(DEFAULT_CALL_SETTINGS.timeoutSeconds),
  /** Attempts per model call on 429/5xx/timeouts. */
  maxRetries: z.number().int().min(1).max(100).default(DEFAULT_CALL_SETTINGS.maxAttempts),
  /** A remote agent's largest message, in bytes. */
  maxAgentMessageBytes: z
    .number()
    .int()
    .min(1024)
    .max(32 * 1024 * 1024)
    .optional(),
  /** Also write τ²-format results here (one file per domain when there are several). */
  saveTo: z.string().optional(),
  maxConcurrency: z.number().int().min(1).max(1000).default(3),
  /** Attempts per conversation that ends in an infrastructure error (τ²: 4). */
  maxAttempts: z.number().int().min(1).max(100).default(4),
  /** The run's budget in USD (earlier sessions included). */
  maxCost: z.number().positive().optional(),
  /** Wall-clock limit of one conversation. */
  maxSimSeconds: z.number().positive().max(2_000_000).optional(),
  /** Save each conversation's progress after every turn; an interrupted one continues from its last. */
  checkpointTurns: z.boolean().optional(),
  /** More trials where they narrow the interval most, up to `maxTrials` per task. */
  adaptive: z
    .strictObject({
      targetCi: z.number().positive().max(0.5).default(0.05),
      /** Default: 4 × `numTrials`, at least 8. */
      maxTrials: z.number().int().min(1).optional(),
    })
    .optional(),
  /** Limits on model calls shared by the run's processes. */
  limits: CallLimitsSchema.optional(),
  label: z.string().optional(),
  /** The store the run is written to (created if absent): by default `PASSK_STORE` or `.passk/runs.db`. */
  store: z.string().optional(),
});
/** A run spec as written (defaults optional). */
/**
 * The run spec's keys that say how a conversation is made whoever takes part in it — data, judge,
 * reranker, protocol, retrieval, texts, prices and model-call settings — for the schemas that take a
 * run's settings without being a run (one conversation, a server).
 */
export const CONVERSATION_SETTINGS = {
  dataDir: true,
  judge: true,
  reranker: true,
  protocol: true,
  retrievalConfig: true,
  retrievalConfigKwargs: true,
  agentPromptTemplate: true,
  toolSpec: true,
  upstream: true,
  prices: true,
  cache: true,
  promptCache: true,
  timeoutSeconds: true,
  maxRetries: true,
  maxAgentMessageBytes: true,
  maxSteps: true,
} as const;

export type RunSpec = z.input<typeof RunSpecSchema>;
/** A run spec with its defaults filled in. */
export type ParsedRunSpec = z.output<typeof RunSpecSchema>;

/** The process running a run now (to refuse a second runner on the same machine). */
export const RunnerSchema = z
  .object({ pid: z.number().int(), host: z.string(), started_at: z.string() })
  .nullable()
  .optional();

/** The run spec as stored with a run: resolved (the customer, protocol and data directory chosen). */
const StoredRunSpecSchema = RunSpecSchema.omit({ store: true, label: true }).extend({
  kind: z.literal("passk-run"),
  version: z.literal(2),
  dataDir: z.string(),
  agent: ModelSpecSchema,
  user: ModelSpecSchema,
  protocol: z.enum(["tau2", "passk"]),
  adaptive: z
    .strictObject({ targetCi: z.number().positive().max(0.5), maxTrials: z.number().int().min(1) })
    .optional(),
  /** Agent and user are both scripted: the run shows a harness, not a model. */
  scriptedDemo: z.boolean(),
  runner: RunnerSchema,
});

/** How `passk run` stored a run's configuration before the typed spec: its flags as strings. */
const RunConfigV1Schema = z.object({
  kind: z.literal("passk-run"),
  version: z.literal(1),
  domains: z.array(z.string()).min(1),
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
  retrieval_config: z.string().nullable().optional(),
  retrieval_config_kwargs: z.record(z.string(), z.unknown()).optional(),
  perturbations: z.array(z.string()).optional(),
  perturbation_modules: z.array(z.string()).optional(),
  protocol: z.enum(["tau2", "passk"]).default("passk"),
  models: z.object({
    agentLlm: z.string(),
    agentLlmArgs: z.string().optional(),
    userLlm: z.string(),
    userLlmArgs: z.string().optional(),
    judgeLlm: z.string().optional(),
    judgeLlmArgs: z.string().optional(),
    rerankerLlm: z.string().optional(),
    agentPromptTemplate: z.string().optional(),
    toolSpec: z.string().optional(),
    agentLlmBaseUrl: z.string().optional(),
    userLlmBaseUrl: z.string().optional(),
    judgeLlmBaseUrl: z.string().optional(),
    rerankerLlmBaseUrl: z.string().optional(),
    prices: z.string().optional(),
    upstream: z.string().optional(),
    cache: z.union([z.string(), z.boolean()]).optional(),
    promptCache: z.boolean().optional(),
    timeout: z.string().optional(),
    maxRetries: z.string().optional(),
    maxAgentMessageBytes: z.string().optional(),
  }),
  save_to: z.string().nullable(),
  max_concurrency: z.number().int().min(1).optional(),
  max_cost: z.number().positive().nullable().optional(),
  max_sim_seconds: z.number().positive().nullable().optional(),
  checkpoint_turns: z.boolean().optional(),
  adaptive: z
    .object({ target_ci: z.number().positive().max(0.5), max_trials: z.number().int().min(1) })
    .nullable()
    .optional(),
  limits: CallLimitsSchema.nullable().optional(),
  scripted_demo: z.boolean(),
  runner: RunnerSchema,
});

const def = <K extends string, V>(key: K, value: V | null | undefined) =>
  (value === undefined || value === null ? {} : { [key]: value }) as Partial<Record<K, V>>;

/** A JSON args flag as stored by version 1 (it was checked when the run started). */
const v1Args = (json: string | undefined) =>
  json === undefined ? undefined : LlmArgsSchema.parse(JSON.parse(json) as unknown);

const v1Model = (model: string | undefined, baseUrl: string | undefined, args: string | undefined) =>
  model === undefined ? undefined : { model, ...def("baseUrl", baseUrl), ...def("args", v1Args(args)) };

const v1Number = (text: string | undefined) => (text === undefined ? undefined : Number(text));

/** A version 1 configuration (flag strings) as the typed spec; every setting is kept. */
export function migrateRunConfigV1(
  v1: z.output<typeof RunConfigV1Schema>,
): z.input<typeof StoredRunSpecSchema> {
  const m = v1.models;
  return {
    kind: "passk-run",
    version: 2,
    domains: v1.domains,
    dataDir: v1.data,
    ...def("split", v1.selection.split),
    ...def("taskIds", v1.selection.task_ids),
    ...def("numTasks", v1.selection.num_tasks),
    numTrials: v1.num_trials,
    seed: v1.seed,
    maxSteps: v1.max_steps,
    maxErrors: v1.max_errors,
    solo: v1.solo,
    agent: v1Model(m.agentLlm, m.agentLlmBaseUrl, m.agentLlmArgs)!,
    user: v1Model(m.userLlm, m.userLlmBaseUrl, m.userLlmArgs)!,
    ...def("judge", v1Model(m.judgeLlm, m.judgeLlmBaseUrl, m.judgeLlmArgs)),
    ...def("reranker", v1Model(m.rerankerLlm, m.rerankerLlmBaseUrl, undefined)),
    protocol: v1.protocol,
    ...def("retrievalConfig", v1.retrieval_config),
    ...def(
      "retrievalConfigKwargs",
      v1.retrieval_config_kwargs as z.input<typeof RetrievalConfigKwargsSchema>,
    ),
    ...def("perturbations", v1.perturbations),
    ...def("perturbationModules", v1.perturbation_modules),
    ...def("agentPromptTemplate", m.agentPromptTemplate),
    ...def("toolSpec", m.toolSpec),
    ...def("upstream", m.upstream),
    ...def("prices", m.prices),
    ...def("cache", m.cache),
    ...def("promptCache", m.promptCache),
    ...def("timeoutSeconds", v1Number(m.timeout)),
    ...def("maxRetries", v1Number(m.maxRetries)),
    ...def("maxAgentMessageBytes", v1Number(m.maxAgentMessageBytes)),
    ...def("saveTo", v1.save_to),
    ...def("maxConcurrency", v1.max_concurrency),
    ...def("maxCost", v1.max_cost),
    ...def("maxSimSeconds", v1.max_sim_seconds),
    ...def("checkpointTurns", v1.checkpoint_turns),
    ...def(
      "adaptive",
      v1.adaptive ? { targetCi: v1.adaptive.target_ci, maxTrials: v1.adaptive.max_trials } : undefined,
    ),
    ...def("limits", v1.limits),
    scriptedDemo: v1.scripted_demo,
    ...def("runner", v1.runner),
  };
}

/**
 * What the store keeps as a run's configuration: its {@link RunSpecSchema} resolved (everything needed
 * to resume it in another process; API keys come from the environment again), with who runs it now.
 * Configurations stored before the typed spec (version 1, flag strings) are read as the spec.
 */
export const RunConfigSchema = z.union([
  StoredRunSpecSchema,
  RunConfigV1Schema.transform((v1, ctx) => {
    const migrated = StoredRunSpecSchema.safeParse(migrateRunConfigV1(v1));
    if (migrated.success) return migrated.data;
    for (const issue of migrated.error.issues)
      ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
    return z.NEVER;
  }),
]);
export type RunConfig = z.output<typeof StoredRunSpecSchema>;

/**
 * The settings that define what a run measures, flattened to `flag → value` for comparison (named by
 * `passk run`'s flags). Base URLs, prices, upstream, cache, timeouts, retries and the run's own
 * operational settings (concurrency, budget, checkpoints, limits) may change on a resume.
 */
export function runIdentity(config: RunConfig): Record<string, unknown> {
  const model = (spec: ModelSpec | undefined) => spec?.model ?? null;
  const args = (spec: ModelSpec | undefined) => spec?.args ?? null;
  return {
    "--domain": config.domains,
    "--data": config.dataDir,
    "--task-split-name": config.split ?? null,
    "--task-ids": config.taskIds ?? null,
    "--num-tasks": config.numTasks ?? null,
    "--num-trials": config.numTrials,
    "--seed": config.seed,
    "--max-steps": config.maxSteps,
    "--max-errors": config.maxErrors,
    "--solo": config.solo,
    "--protocol": config.protocol,
    "--retrieval-config": config.retrievalConfig ?? null,
    "--retrieval-config-kwargs": config.retrievalConfigKwargs ?? null,
    "--perturb": config.perturbations ?? [],
    "--agent-llm": model(config.agent),
    "--agent-llm-args": args(config.agent),
    "--user-llm": model(config.user),
    "--user-llm-args": args(config.user),
    "--judge-llm": model(config.judge),
    "--judge-llm-args": args(config.judge),
    "--reranker-llm": model(config.reranker),
    "--agent-prompt-template": config.agentPromptTemplate ?? null,
    "--tool-spec": config.toolSpec ?? null,
  };
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

/** The participants whose base URLs are stored (with credentials taken out). */
export const MODEL_ROLES = ["agent", "user", "judge", "reranker"] as const;

/**
 * The configuration as stored and written into results: credentials inside base URLs (`user:pass@`,
 * `?api-key=`) taken out, like API keys, which are never stored. A resume is given such a URL again.
 */
export function storableConfig(config: RunConfig): RunConfig {
  const stored = { ...config };
  for (const role of MODEL_ROLES) {
    const spec = config[role];
    if (spec?.baseUrl !== undefined) stored[role] = { ...spec, baseUrl: redactUrl(spec.baseUrl) };
  }
  return stored;
}

/**
 * A run's adaptive settings: those given (a resumed run's own where not given), with `maxTrials`
 * 4 × `numTrials` (at least 8) by default; never below `numTrials`.
 */
export function resolveAdaptive(
  given: { targetCi?: number | undefined; maxTrials?: number | undefined } | undefined,
  stored: RunConfig["adaptive"],
  numTrials: number,
): RunConfig["adaptive"] {
  if (!given) return stored;
  const adaptive = {
    targetCi: given.targetCi ?? stored?.targetCi ?? 0.05,
    maxTrials: given.maxTrials ?? stored?.maxTrials ?? Math.max(8, 4 * numTrials),
  };
  if (adaptive.maxTrials < numTrials)
    throw new ConfigError(
      `--max-trials ${adaptive.maxTrials} is below --num-trials ${numTrials}: every task gets --num-trials first; raise --max-trials`,
    );
  return adaptive;
}
