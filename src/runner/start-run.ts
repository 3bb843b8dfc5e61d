import { hostname } from "node:os";
import path from "node:path";
import { z } from "zod";
import type { Agent } from "../core/agent.js";
import { ConfigError } from "../core/errors.js";
import type { AnyDomain } from "../env/domain.js";
import { getDomain, builtinDomains } from "../domains/registry.js";
import { resolveDataDir } from "../formats/tau2/data-dir.js";
import { DomainCatalog } from "../formats/tau2/domain-catalog.js";
import { LlmArgsSchema } from "../llm/llm-args.js";
import { resolveStorePath } from "../store/store-location.js";
import { SqliteCheckpointStore } from "../store/sqlite-checkpoint-store.js";
import { SqliteJobQueue } from "../store/sqlite-job-queue.js";
import { Store } from "../store/store.js";
import { customerSpecFor, readUserGuidelines } from "../users/create-user.js";
import { buildParticipants, DEFAULT_CALL_SETTINGS } from "./build.js";
import { run, type RunSessionEvent, type RunSessionOutcome } from "./run.js";
import type { RunConfig } from "./run-config.js";
import { selectTasksOfDomains } from "./run-plan.js";

/** A participant's model: `<provider>:<model>` (or `scripted:gold`, `a2a:URL`…), its base URL and call args. */
export const ModelSpecSchema = z.strictObject({
  model: z.string().min(1, { error: "a model spec, e.g. openai:gpt-4.1 or scripted:gold" }),
  baseUrl: z.url().optional(),
  args: LlmArgsSchema.optional(),
});
export type ModelSpec = z.infer<typeof ModelSpecSchema>;

/**
 * What a run is, as a library user writes it: the domains and tasks, the participants and the limits.
 * The same settings as `passk run`'s flags, with the same defaults, typed.
 */
export const RunSpecSchema = z.strictObject({
  domains: z.array(z.string().min(1)).min(1, { error: "name at least one, e.g. ['airline']" }),
  taskIds: z.array(z.string()).min(1).optional(),
  /** The task split (τ²'s `base` by default where the domain has splits). */
  split: z.string().optional(),
  numTasks: z.number().int().min(1).optional(),
  numTrials: z.number().int().min(1).max(1000).default(1),
  seed: z.number().int().refine(Number.isSafeInteger).default(300),
  maxSteps: z.number().int().min(1).default(200),
  maxErrors: z.number().int().min(1).default(10),
  maxConcurrency: z.number().int().min(1).max(1000).default(3),
  /** Attempts per conversation that ends in an infrastructure error (τ²: 4). */
  maxAttempts: z.number().int().min(1).max(100).default(4),
  /** The customer; by default τ²'s pairing for the agent (`scripted:gold` for a scripted agent). */
  user: ModelSpecSchema.optional(),
  judge: ModelSpecSchema.optional(),
  protocol: z.enum(["tau2", "passk"]).optional(),
  /** banking_knowledge: how the agent searches its knowledge base (`bm25`, `alltools`…). */
  retrievalConfig: z.string().optional(),
  /** The τ² data directory: by default `PASSK_DATA_DIR` or where `passk data pull` puts it. */
  dataDir: z.string().optional(),
  /** The store the run is written to (created if absent): by default `PASSK_STORE` or `.passk/runs.db`. */
  store: z.string().optional(),
  /** Also write τ²-format results here (one file per domain when there are several). */
  saveTo: z.string().optional(),
  label: z.string().optional(),
  timeoutSeconds: z.number().positive().default(DEFAULT_CALL_SETTINGS.timeoutSeconds),
});
export type RunSpec = z.input<typeof RunSpecSchema>;

export interface StartRunOptions {
  /**
   * The agent under test: a model spec (`{ model: "openai:gpt-4.1" }`) or your own {@link Agent},
   * which runs in this process and is recorded as `module:<its name>`.
   */
  agent: ModelSpec | Agent;
  /** API keys and `PASSK_*` settings; by default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Your own domains beside the built-in ones (`defineDomain`). */
  domains?: ReadonlyMap<string, AnyDomain>;
  /** Each event of the run as it happens (progress, costs, conversations ended). */
  onEvent?: (event: RunSessionEvent) => void;
  /** Domain data already parsed (runs started with the same catalog parse each domain once). */
  catalog?: DomainCatalog;
  /** Stop: no new conversations; those in flight finish and are stored (resume with `passk run --resume`). */
  signal?: AbortSignal;
}

const isAgent = (agent: ModelSpec | Agent): agent is Agent =>
  typeof (agent as Partial<Agent>).start === "function";

/**
 * Start a run and wait for it: the conversations are stored as they end (a run of model specs that is
 * interrupted resumes with `passk run --resume <id>`), and the outcome holds the run, its metrics
 * (pass^k) and every graded simulation. Everything that can be wrong — the spec, the data, the models and their keys —
 * is refused with a sentence before the first model call.
 */
export async function startRun(spec: RunSpec, options: StartRunOptions): Promise<RunSessionOutcome> {
  const parsed = RunSpecSchema.safeParse(spec);
  if (!parsed.success)
    throw new ConfigError(
      `the run spec is not valid: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(spec)"}: ${i.message}`).join("; ")}`,
    );
  const s = parsed.data;
  const env = options.env ?? process.env;
  const known = new Map([...builtinDomains, ...(options.domains ?? [])]);
  const dataDir = resolveDataDir(s.dataDir, env);
  const domainNames = [...new Set(s.domains)];
  const catalog = options.catalog ?? new DomainCatalog();
  const datas = domainNames.map((name) =>
    catalog.load(getDomain(name, known), {
      dataDir,
      ...(s.retrievalConfig !== undefined ? { config: s.retrievalConfig } : {}),
    }),
  );
  const selected = selectTasksOfDomains(datas, {
    ...(s.split !== undefined ? { split: s.split } : {}),
    ...(s.taskIds ? { taskIds: s.taskIds } : {}),
    ...(s.numTasks !== undefined ? { numTasks: s.numTasks } : {}),
  });
  for (const data of datas) data.assertConversable();

  const own = isAgent(options.agent) ? options.agent : undefined;
  const agent: ModelSpec = own ? { model: `module:${own.name}` } : ModelSpecSchema.parse(options.agent);
  const participants = buildParticipants({
    agent,
    ...(s.user ? { user: s.user } : {}),
    ...(s.judge ? { judge: s.judge } : {}),
    ...(s.protocol ? { protocol: s.protocol } : {}),
    dataDir,
    domains: datas.map((d) => d.domain),
    env,
    timeoutSeconds: s.timeoutSeconds,
    ...(own ? { agentModules: new Map([[agent.model, own]]) } : {}),
  });
  const config: RunConfig = {
    kind: "passk-run",
    version: 1,
    domains: domainNames,
    data: dataDir,
    selection: { split: s.split ?? null, task_ids: s.taskIds ?? null, num_tasks: s.numTasks ?? null },
    num_trials: s.numTrials,
    seed: s.seed,
    max_steps: s.maxSteps,
    max_errors: s.maxErrors,
    solo: false,
    protocol: participants.protocol.name,
    retrieval_config: datas.find((d) => d.domain.configs)?.config ?? null,
    models: {
      agentLlm: agent.model,
      ...(s.user?.args ? { userLlmArgs: JSON.stringify(s.user.args) } : {}),
      ...(agent.args ? { agentLlmArgs: JSON.stringify(agent.args) } : {}),
      userLlm: customerSpecFor(agent.model, s.user?.model, false),
      ...(s.judge ? { judgeLlm: s.judge.model } : {}),
      ...(agent.baseUrl ? { agentLlmBaseUrl: agent.baseUrl } : {}),
      ...(s.user?.baseUrl ? { userLlmBaseUrl: s.user.baseUrl } : {}),
      ...(s.judge?.baseUrl ? { judgeLlmBaseUrl: s.judge.baseUrl } : {}),
      timeout: String(s.timeoutSeconds),
    },
    save_to: s.saveTo ? path.resolve(s.saveTo) : null,
    max_concurrency: s.maxConcurrency,
    scripted_demo: participants.scriptedDemo,
  };
  const store = Store.open(resolveStorePath(s.store, env), { create: true });
  try {
    const events = run({
      store,
      queue: new SqliteJobQueue(store, { maxAttempts: s.maxAttempts }),
      checkpoints: new SqliteCheckpointStore(store),
      config,
      domains: new Map(domainNames.map((name, i) => [name, { data: datas[i]!, tasks: selected[i]! }])),
      participants: {
        ...participants,
        userGuidelines: participants.scriptedDemo ? null : readUserGuidelines(dataDir),
      },
      ...(s.label !== undefined ? { label: s.label } : {}),
      runner: { pid: process.pid, host: hostname(), started_at: new Date().toISOString() },
      maxAttempts: s.maxAttempts,
      ...(options.signal ? { stopSignal: options.signal } : {}),
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    });
    for (;;) {
      const next = await events.next();
      if (next.done) return next.value;
    }
  } finally {
    participants.cache?.close();
    store.close();
  }
}
