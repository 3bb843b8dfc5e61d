import path from "node:path";
import { isRemoteAgentSpec } from "../agents/create-agent.js";
import type { Agent } from "../core/agent.js";
import { ConfigError } from "../core/errors.js";
import type { Task } from "../core/task.js";
import { builtinDomains } from "../domains/registry.js";
import type { AnyDomain } from "../env/domain.js";
import { DomainCatalog } from "../formats/tau2/domain-catalog.js";
import { createCallLimiter } from "../llm/call-limits.js";
import { loadPriceOverrides, type PriceOverrides } from "../llm/index.js";
import type { Tracing } from "../observability/start-tracing.js";
import {
  createPerturbationRegistry,
  type PerturbationRegistry,
  type ResolvedPerturbation,
} from "../perturbations/registry.js";
import type { Participants } from "../runner/build.js";
import { conversationJob } from "../runner/conversation-job.js";
import { domainDataOfRun, participantsOfRun } from "../runner/run-assembly.js";
import type { RunConfig } from "../runner/run-spec.js";
import { traceRunConversations } from "../runner/start-run.js";
import { dataFingerprint, type ConversationJobData } from "./conversation-message.js";
import { startConversationWorker, type ConversationWorker, type PreparedJob } from "./conversation-worker.js";
import { redisCheckpointStore } from "./redis-checkpoint-store.js";
import { redisLimiterFactory } from "./redis-limiter.js";
import type { RedisAddress } from "./redis-url.js";

// A worker of distributed runs: it takes a run's conversations from the queue and runs each with the
// participants the run's spec names, built here with this machine's keys (`passk worker`, and a
// coordinator's `--local-workers`).

export interface RunWorkerOptions {
  address: RedisAddress;
  concurrency: number;
  /** A job whose worker stops answering for this long is run again by another. */
  lockMs: number;
  /** The τ² data directory here (default: `PASSK_DATA_DIR`, else the one the run names). */
  dataDir?: string;
  /** Origins this worker may send its credentials to (besides the providers' defaults). */
  allowedEndpoints: readonly string[];
  env?: NodeJS.ProcessEnv;
  /** Teams' domains beside the built-in ones. */
  domains?: ReadonlyMap<string, AnyDomain>;
  catalog?: DomainCatalog;
  /** The perturbations this worker has (a job never makes it import code). */
  perturbations?: PerturbationRegistry;
  /** The agents of `module:` specs this worker's operator loaded. */
  agentModules?: ReadonlyMap<string, Agent>;
  /** Each conversation run here is a trace. */
  tracing?: Tracing;
  onNote?: (text: string) => void;
  onJobEnd?: (data: ConversationJobData, reason: string) => void;
}

/**
 * The run's perturbations, as this worker has them: the job names each by its spec (name, version,
 * settings), and only the perturbations this process loaded run — a job never makes a worker import
 * code. A missing one, or another version, is a ConfigError: the job is left to a matching worker.
 */
function perturbationsHere(registry: PerturbationRegistry, specs: readonly string[]): ResolvedPerturbation[] {
  return specs.map((spec) => {
    const id = spec.split(":")[0]!;
    const [name, version] = id.split("@") as [string, string | undefined];
    const here = registry.get(name);
    if (!here)
      throw new ConfigError(
        `it does not have the run's perturbation ${id}; start it with --perturbation-module FILE defining ${name}`,
      );
    if (version !== undefined && Number(version) !== here.version)
      throw new ConfigError(
        `it has ${name}@${here.version}, and the run perturbs with ${id}; start it with the --perturbation-module defining ${id}`,
      );
    return registry.resolve(spec);
  });
}

const BASE_URLS = [
  ["agent", "agent's base URL"],
  ["user", "customer's base URL"],
  ["judge", "judge's base URL"],
  ["reranker", "reranker's base URL"],
] as const;

const originOf = (url: string) => (URL.canParse(url) ? new URL(url).origin : url);

/**
 * The places a run's configuration makes a worker send its own credentials (API keys,
 * PASSK_REMOTE_AGENT_TOKEN): the base URLs and a remote agent's URL, as origins. A coordinator's
 * `--local-workers` allow exactly these, its own flags.
 */
export function configEndpoints(config: RunConfig): { what: string; origin: string }[] {
  const found: { what: string; origin: string }[] = BASE_URLS.flatMap(([role, what]) => {
    const url = config[role]?.baseUrl;
    return url === undefined ? [] : [{ what, origin: originOf(url) }];
  });
  const agent = config.agent.model;
  if (isRemoteAgentSpec(agent))
    found.push({ what: "remote agent", origin: originOf(agent.replace(/^(a2a|http):/, "")) });
  return found;
}

/**
 * A job's data comes from whoever can write to Redis, so it names code and endpoints only by what this
 * worker's operator gave it: an agent module loaded with `--agent-module`, endpoints listed with
 * `--allow-endpoint`. Anything else is a ConfigError, and the job is left to another worker.
 */
function checkJobAgainstOperator(
  agentModules: Map<string, Agent>,
  config: RunConfig,
  allowedEndpoints: ReadonlySet<string>,
): void {
  for (const { what, origin } of configEndpoints(config))
    if (!allowedEndpoints.has(origin))
      throw new ConfigError(
        `the run's ${what} is ${origin}, and this worker sends its credentials only to endpoints its operator allowed; if you trust it, start the worker with --allow-endpoint ${origin}`,
      );
  const agentSpec = config.agent.model;
  if (!agentSpec.startsWith("module:")) return;
  const file = agentSpec.slice("module:".length);
  const loaded = agentModules.get(agentSpec) ?? agentModules.get(`module:${path.resolve(file)}`);
  if (!loaded)
    throw new ConfigError(
      `the run's agent is the module ${file}, which this worker did not load; a job never makes a worker import code: start the worker with --agent-module ${file} (the coordinator's agent file)`,
    );
  // The job's spelling of the path (the coordinator's) now finds the module this worker loaded.
  agentModules.set(agentSpec, loaded);
}

/**
 * What runs a job on this machine: the domain's data from `--data`, `PASSK_DATA_DIR` or the job's data
 * directory, participants built from the job's configuration with this machine's keys (built once per
 * run and reused), the run's perturbations from this process's registry, and with `tracing` each
 * conversation traced as a local run traces it.
 */
function prepareJobsHere(options: RunWorkerOptions): {
  prepare: (data: ConversationJobData, task: Task) => Promise<PreparedJob>;
  close(): void;
} {
  const { address, tracing } = options;
  const env = options.env ?? process.env;
  const catalog = options.catalog ?? new DomainCatalog();
  const domains = new Map([...builtinDomains, ...(options.domains ?? [])]);
  const agentModules = new Map(options.agentModules ?? []);
  const participantsOf = new Map<string, Promise<Participants>>();
  // One store client for every run's limiters; the limits themselves are per run.
  let limiters: ReturnType<typeof redisLimiterFactory> | undefined;
  // Turns are saved in Redis, so that a conversation this worker loses continues on another.
  let checkpoints: ReturnType<typeof redisCheckpointStore> | undefined;
  const allowed = new Set(options.allowedEndpoints.map(originOf));
  // A run's price file is read once, not for each of its jobs.
  const prices = new Map<string, PriceOverrides>();
  const pricesOf = (file: string) =>
    prices.get(file) ?? prices.set(file, loadPriceOverrides(file)).get(file)!;
  const prepare = async (data: ConversationJobData, task: Task): Promise<PreparedJob> => {
    const config = data.config;
    checkJobAgainstOperator(agentModules, config, allowed);
    const dir = options.dataDir ?? env.PASSK_DATA_DIR ?? config.dataDir;
    const assembly = {
      env,
      domains,
      catalog,
      ...(config.prices !== undefined ? { priceOverrides: pricesOf(config.prices) } : {}),
    };
    const domainData = domainDataOfRun(config, data.domain, assembly, dir);
    const perturbations = perturbationsHere(
      options.perturbations ?? createPerturbationRegistry(),
      config.perturbations ?? [],
    );
    const key = `${data.runId}\u0000${JSON.stringify(config)}`;
    let participants = participantsOf.get(key);
    if (!participants) {
      participants = (async () => {
        // The run's call limits are shared with every other worker through Redis.
        if (config.limits) limiters ??= redisLimiterFactory(address);
        return participantsOfRun(config, {
          ...assembly,
          dataDir: dir,
          agentModules,
          ...(tracing ? { observer: tracing.modelCalls } : {}),
          ...(config.limits && limiters
            ? { limiter: createCallLimiter(config.limits, limiters.factory, data.runId) }
            : {}),
        });
      })();
      participantsOf.set(key, participants);
      participants.catch(() => participantsOf.delete(key));
    }
    const built = await participants;
    const prepared: PreparedJob = {
      dataFingerprint: dataFingerprint(domainData),
      runJob: conversationJob({
        domains: new Map([[data.domain, { data: domainData, tasks: new Map([[task.id, task]]) }]]),
        agent: built.agent,
        user: built.user,
        ...(built.judge ? { judge: built.judge } : {}),
        solo: config.solo,
        protocol: built.protocol,
        ...(built.toolOverrides ? { toolOverrides: built.toolOverrides } : {}),
        maxSteps: config.maxSteps,
        maxErrors: config.maxErrors,
        ...(config.maxSimSeconds ? { maxDurationMs: config.maxSimSeconds * 1000 } : {}),
        ...(perturbations.length > 0 ? { perturbations } : {}),
        ...(config.checkpointTurns ? { checkpoints: (checkpoints ??= redisCheckpointStore(address)) } : {}),
      }),
    };
    // With --otel, each conversation run here is a trace, as in a one-process run.
    return tracing
      ? { ...prepared, runJob: traceRunConversations(tracing, config)(prepared.runJob) }
      : prepared;
  };
  return {
    prepare,
    close: () => {
      limiters?.close();
      checkpoints?.close();
    },
  };
}

/** Start a worker of distributed runs in this process; `close` finishes the conversations in flight. */
export async function startRunWorker(options: RunWorkerOptions): Promise<ConversationWorker> {
  const here = prepareJobsHere(options);
  const worker = await startConversationWorker({
    address: options.address,
    concurrency: options.concurrency,
    lockMs: options.lockMs,
    prepare: here.prepare,
    ...(options.onNote ? { onNote: options.onNote } : {}),
    ...(options.onJobEnd ? { onJobEnd: options.onJobEnd } : {}),
  });
  return {
    id: worker.id,
    close: async () => {
      await worker.close();
      here.close();
    },
  };
}
