import path from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import { ConfigError } from "../../core/errors.js";
import { checkRedisReachable } from "../../distributed/bullmq-connection.js";
import { parseRedisUrl } from "../../distributed/redis-url.js";
import { startRunWorker } from "../../distributed/run-worker.js";
import { runOptionsOf, withDataOption, type CliContext } from "../context.js";
import { loadPerturbations } from "../domain-modules.js";
import { importAgentModules } from "../../runner/load-modules.js";
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
    if (flags.agentModule) {
      const specs = flags.agentModule.map((file) => `module:${path.resolve(file)}`);
      context.agentModules = new Map([...(context.agentModules ?? []), ...(await importAgentModules(specs))]);
    }
    const tracing = await startCliTracing(flags, context);
    const worker = await startRunWorker({
      ...runOptionsOf(context),
      address,
      concurrency: flags.concurrency,
      lockMs: flags.lockSeconds * 1000,
      ...(flags.data ? { dataDir: flags.data } : {}),
      allowedEndpoints: flags.allowEndpoint ?? [],
      ...(tracing ? { tracing } : {}),
      onNote: (text) => context.stderr.write(`${text}\n`),
      onJobEnd: (data, reason) =>
        context.stderr.write(`${data.runId} ${data.domain}/${data.taskId} trial ${data.trial}: ${reason}\n`),
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
