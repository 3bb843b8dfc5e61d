import path from "node:path";
import type { Command } from "commander";
import { isRemoteAgentSpec } from "../../agents/create-agent.js";
import { z } from "zod";
import { ConfigError } from "../../core/errors.js";
import type { Task } from "../../core/task.js";
import { dataFingerprint, type ConversationJobData } from "../../distributed/conversation-message.js";
import {
  startConversationWorker,
  type ConversationWorker,
  type PreparedJob,
} from "../../distributed/conversation-worker.js";
import { checkRedisReachable } from "../../distributed/bullmq-connection.js";
import { parseRedisUrl, type RedisAddress } from "../../distributed/redis-url.js";
import { redisCheckpointStore } from "../../distributed/redis-checkpoint-store.js";
import { redisLimiterFactory } from "../../distributed/redis-limiter.js";
import { createCallLimiter } from "../../llm/call-limits.js";
import type { Tracing } from "../../observability/start-tracing.js";
import {
  createPerturbationRegistry,
  type PerturbationRegistry,
  type ResolvedPerturbation,
} from "../../perturbations/registry.js";
import { conversationJob } from "../../runner/conversation-job.js";
import type { RunConfig } from "../../runner/run-spec.js";
import { withDataOption, type CliContext } from "../context.js";
import { DomainCatalog } from "../../formats/tau2/domain-catalog.js";
import { loadPriceOverrides } from "../../llm/index.js";
import { domainDataOfRun, participantsOfRun } from "../../runner/run-assembly.js";
import type { Participants } from "../../runner/build.js";
import { traceRunConversations } from "../../runner/start-run.js";
import { importAgentModule, loadPerturbations } from "../domain-modules.js";
import { startCliTracing, withOtelOption } from "../otel-option.js";

const WorkerFlagsSchema = z.object({
  queue: z.string({
    error: "--queue is required: the Redis or Valkey URL the coordinator uses, e.g. redis://127.0.0.1:6379",
  }),
  concurrency: z.coerce
    .number({ error: () => "--concurrency must be a whole number from 1 to 1000" })
    .int({ error: "--concurrency must be a whole number from 1 to 1000" })
    .min(1, { error: "--concurrency must be a whole number from 1 to 1000" })
    .max(1000, { error: "--concurrency must be a whole number from 1 to 1000" }),
  lockSeconds: z.coerce
    .number({ error: () => "--lock-seconds must be a number of seconds, e.g. 30" })
    .min(0.5, { error: "--lock-seconds must be at least 0.5 seconds" })
    .max(3600, { error: "--lock-seconds must be at most 3600 seconds" }),
  data: z.string().optional(),
  perturbationModule: z.array(z.string()).optional(),
  agentModule: z.array(z.string()).optional(),
  allowEndpoint: z
    .array(
      z.url({
        protocol: /^https?$/,
        error: (issue) =>
          `--allow-endpoint ${JSON.stringify(issue.input)} is not an http(s) URL; e.g. --allow-endpoint https://llm.internal:8000`,
      }),
    )
    .optional(),
  otel: z.union([z.string(), z.boolean()]).optional(),
});
type WorkerFlags = z.infer<typeof WorkerFlagsSchema>;

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
  context: CliContext,
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
  const loaded =
    context.agentModules?.get(agentSpec) ?? context.agentModules?.get(`module:${path.resolve(file)}`);
  if (!loaded)
    throw new ConfigError(
      `the run's agent is the module ${file}, which this worker did not load; a job never makes a worker import code: start the worker with --agent-module ${file} (the coordinator's agent file)`,
    );
  // The job's spelling of the path (the coordinator's) now finds the module this worker loaded.
  if (!context.agentModules?.has(agentSpec))
    context.agentModules = new Map([...(context.agentModules ?? []), [agentSpec, loaded]]);
}

/**
 * What runs a job on this machine: the domain's data from `--data`, `PASSK_DATA_DIR` or the job's data
 * directory, participants built from the job's configuration with this machine's keys (built once per
 * run and reused), the run's perturbations from this process's registry, and with `tracing` each
 * conversation traced as a local run traces it.
 */
export function prepareJobsHere(
  context: CliContext,
  dataDir: string | undefined,
  address: RedisAddress,
  allowedEndpoints: readonly string[],
  tracing?: Tracing,
): { prepare: (data: ConversationJobData, task: Task) => Promise<PreparedJob>; close(): void } {
  const participantsOf = new Map<string, Promise<Participants>>();
  // One store client for every run's limiters; the limits themselves are per run.
  let limiters: ReturnType<typeof redisLimiterFactory> | undefined;
  // Turns are saved in Redis, so that a conversation this worker loses continues on another.
  let checkpoints: ReturnType<typeof redisCheckpointStore> | undefined;
  const allowed = new Set(allowedEndpoints.map(originOf));
  const prepare = async (data: ConversationJobData, task: Task): Promise<PreparedJob> => {
    const config = data.config;
    checkJobAgainstOperator(context, config, allowed);
    const dir = dataDir ?? context.env.PASSK_DATA_DIR ?? config.dataDir;
    const assembly = {
      env: context.env,
      domains: context.domains,
      catalog: (context.catalog ??= new DomainCatalog()),
      ...(config.prices !== undefined ? { priceOverrides: loadPriceOverrides(config.prices) } : {}),
    };
    const domainData = domainDataOfRun(config, data.domain, assembly, dir);
    const perturbations = perturbationsHere(
      context.perturbations ?? createPerturbationRegistry(),
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
          ...(context.agentModules ? { agentModules: context.agentModules } : {}),
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

/** Start a conversation worker on this process (`passk worker`, and `passk run --local-workers`). */
export async function startWorkerHere(
  context: CliContext,
  options: {
    address: RedisAddress;
    concurrency: number;
    lockMs: number;
    data?: string;
    /** Origins this worker may send its credentials to (`--allow-endpoint`; a coordinator's own URLs). */
    allowedEndpoints: readonly string[];
    quiet?: boolean;
    /** `--otel`: each conversation this worker runs is a trace. */
    tracing?: Tracing;
  },
): Promise<ConversationWorker> {
  const here = prepareJobsHere(
    context,
    options.data,
    options.address,
    options.allowedEndpoints,
    options.tracing,
  );
  const worker = await startConversationWorker({
    address: options.address,
    concurrency: options.concurrency,
    lockMs: options.lockMs,
    prepare: here.prepare,
    onNote: (text) => context.stderr.write(`${text}\n`),
    ...(options.quiet
      ? {}
      : {
          onJobEnd: (data, reason) =>
            context.stderr.write(
              `${data.runId} ${data.domain}/${data.taskId} trial ${data.trial}: ${reason}\n`,
            ),
        }),
  });
  return {
    id: worker.id,
    close: async () => {
      await worker.close();
      here.close();
    },
  };
}

export function registerWorker(program: Command, context: CliContext): void {
  const command = withOtelOption(
    withDataOption(
      program
        .command("worker")
        .description(
          "Run conversations of distributed runs (`passk run --queue URL`) taken from Redis or Valkey; stateless, start as many as you like on any machine",
        ),
    ),
  )
    .option("--queue <url>", "the Redis or Valkey URL the coordinator uses, e.g. redis://127.0.0.1:6379")
    .option("--concurrency <n>", "conversations this worker runs at once", "4")
    .option(
      "--lock-seconds <s>",
      "a job whose worker stops answering for this long (killed, machine lost) is run again by another",
      "30",
    )
    .option(
      "--agent-module <file>",
      "a module exporting your own Agent, for runs whose --agent-llm is module:<file> (repeatable); a job never makes a worker import code",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      "--allow-endpoint <url>",
      "an endpoint jobs may send this worker's credentials to: a base URL's or a remote agent's origin (repeatable); provider defaults need none",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      "--perturbation-module <file>",
      "a module exporting your own perturbations (definePerturbation), for runs that --perturb with them (repeatable)",
      (value: string, previous: string[] = []) => [...previous, value],
    );
  command.action(async (raw: Record<string, unknown>) => {
    const parsed = WorkerFlagsSchema.safeParse(raw);
    if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => i.message).join("; "));
    const flags: WorkerFlags = parsed.data;
    const address = parseRedisUrl(flags.queue);
    await checkRedisReachable(address);
    if (flags.perturbationModule) await loadPerturbations(context, flags.perturbationModule);
    for (const file of flags.agentModule ?? [])
      context.agentModules = new Map([
        ...(context.agentModules ?? []),
        [`module:${path.resolve(file)}`, await importAgentModule(file)],
      ]);
    const tracing = await startCliTracing(flags, context);
    const worker = await startWorkerHere(context, {
      address,
      concurrency: flags.concurrency,
      lockMs: flags.lockSeconds * 1000,
      ...(flags.data ? { data: flags.data } : {}),
      allowedEndpoints: flags.allowEndpoint ?? [],
      ...(tracing ? { tracing } : {}),
    });
    context.stderr.write(
      `worker ${worker.id} ready: ${flags.concurrency} conversation(s) at once from ${flags.queue.replace(/\/\/[^@/]*@/, "//")}; Ctrl-C to stop\n`,
    );
    await new Promise<void>((resolve) => {
      let stopping = false;
      const onSignal = () => {
        // The jobs in flight are run again by another worker; the spans of those finished are sent.
        if (stopping) void (tracing?.shutdown() ?? Promise.resolve()).finally(() => process.exit(130));
        stopping = true;
        context.stderr.write("stopping: finishing the conversations in flight (Ctrl-C again to drop them)\n");
        void worker.close().then(resolve);
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
    });
    // Spans reach the collector before the process exits.
    await tracing?.shutdown();
  });
}
