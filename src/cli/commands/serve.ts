import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import type { Command } from "commander";
import { z } from "zod";
import { ConfigError } from "../../core/errors.js";
import { createServer } from "../../server/create-server.js";
import { assembleServer, type ServeSpec } from "../../server/serve-spec.js";
import { attachVoicePlayground } from "../../server/voice-playground.js";
import { assemblyOf, println, withDataOption, type CliContext } from "../context.js";
import { retrievalOfFlags, withRetrievalConfigOption, type DomainFlags } from "../domain-flags.js";
import { loadPerturbations } from "../domain-modules.js";
import { callSettingsOfFlags, modelSpecOfFlags, withModelFlags, type ModelFlags } from "../model-flags.js";
import { startCliTracing, withOtelOption } from "../otel-option.js";

/** The serve flags checked here; the model flags are checked as a run's, and the other strings pass as given. */
const ServeOptionsSchema = z.object({
  port: z.coerce.number().int().min(0).max(65535),
  host: z.string().min(1),
  agentLlm: z.array(z.string().min(1)).min(1),
  userLlm: z.array(z.string().min(1)).min(1),
  rateLimit: z.coerce.number().int().positive(),
  maxStreamsPerClient: z.coerce.number().int().positive(),
  importsPerHour: z.coerce.number().int().positive(),
  dailySpendCap: z.coerce.number().nonnegative().optional(),
  conversationEstimate: z.coerce.number().nonnegative().optional(),
  maxConversations: z.coerce.number().int().positive(),
  maxSteps: z.coerce.number().int().positive(),
  allowedHost: z.array(z.string().min(1)).optional(),
  perturbationModule: z.array(z.string().min(1)).optional(),
  gymMaxSessions: z.coerce.number().int().positive().max(10_000),
  voiceRuns: z.array(z.string().min(1)).optional(),
  agentStt: z.string().min(1),
  agentTts: z.string().min(1),
});

/** `passk serve`'s flags: the model flags (several agents and customers), the domain's, the server's. */
type ServeOptions = Omit<ModelFlags, "agentLlm" | "userLlm"> &
  DomainFlags &
  z.infer<typeof ServeOptionsSchema> & {
    store?: string;
    trustProxy?: boolean;
    webRoot?: string;
    otel?: string | boolean;
    gym?: boolean;
  };

/** `passk serve`: the playground and the run explorer on one local web server. */
export function registerServe(program: Command, context: CliContext): void {
  withServeLimitOptions(withServeModelOptions(program.command("serve"))).action(
    async (raw: Omit<ServeOptions, keyof z.infer<typeof ServeOptionsSchema>>) => {
      const parsed = ServeOptionsSchema.safeParse(raw);
      if (!parsed.success)
        throw new ConfigError(
          `passk serve: ${parsed.error.issues.map((i) => `--${i.path.join(".")}: ${i.message}`).join("; ")}`,
        );
      await startServe({ ...raw, ...parsed.data }, context);
    },
  );
}

/** Which models the playground offers, and how they are called. */
function withServeModelOptions(command: Command): Command {
  return withModelFlags(
    withDataOption(withOtelOption(withRetrievalConfigOption(command)))
      .description("Serve the web app: a live agent playground and the run explorer (one Hono server)")
      .option("--port <port>", "port to listen on", "8787")
      .option("--host <host>", "address to listen on (0.0.0.0 to serve a network)", "127.0.0.1")
      .option("--store <path>", "run store for the explorer (default: $PASSK_STORE, else .passk/passk.db)")
      .option(
        "--agent-stt <spec>",
        "the voice playground's cascaded agent: its transcription model (its text model: the first --agent-llm model)",
        "openai:gpt-4o-transcribe",
      )
      .option(
        "--agent-tts <spec>",
        "the voice playground's cascaded agent: its speech model",
        "openai:gpt-4o-mini-tts",
      ),
    { offered: true },
  );
}

/** How the server is exposed and bounded: its address, limits, the web app, the gym. */
function withServeLimitOptions(command: Command): Command {
  return command
    .option("--rate-limit <n>", "requests per minute per client address that start or drive work", "60")
    .option(
      "--max-streams-per-client <n>",
      "conversation event streams one client address may hold open",
      "32",
    )
    .option("--imports-per-hour <n>", "results files one client address may import per hour", "20")
    .option(
      "--daily-spend-cap <usd>",
      "refuse new conversations once today's model spend reaches this (every model offered needs a price: --prices for those the table lacks)",
    )
    .option(
      "--conversation-estimate <usd>",
      "what one conversation may cost, reserved against --daily-spend-cap while it runs (default: the cap / --max-conversations)",
    )
    .option("--max-conversations <n>", "conversations running at once", "20")
    .option("--max-steps <n>", "steps per conversation", "200")
    .option("--trust-proxy", "take client addresses from X-Forwarded-For (behind your own proxy only)")
    .option("--web-root <dir>", "folder of the built web app (default: the one shipped with passk)")
    .option(
      "--allowed-host <name...>",
      "host names the server answers for besides localhost and IP addresses (a deployment's DNS names)",
    )
    .option(
      "--perturbation-module <file>",
      "a module exporting your own perturbations (definePerturbation), offered by the playground's Perturb (repeatable)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      "--voice-runs <dir...>",
      "voice runs for the explorer: each a `passk run --voice --save-to` folder, or a folder holding such runs",
    )
    .option("--gym", "also serve the agent gym (reset/step sessions over HTTP) at /api/gym")
    .option("--gym-max-sessions <n>", "gym sessions held at once (idle ones expire after 10 min)", "64");
}

/** `passk serve`'s flags as the library's serve spec: numbers checked, JSON parsed. */
function serveSpecOfFlags(o: ServeOptions): ServeSpec {
  const settings = callSettingsOfFlags(o);
  return {
    ...settings,
    agents: o.agentLlm.map((model) => modelSpecOfFlags(o, "agent", model)),
    users: o.userLlm.map((model) => modelSpecOfFlags(o, "user", model)),
    ...retrievalOfFlags(o),
    ...(o.data !== undefined ? { dataDir: o.data } : {}),
    ...(o.store !== undefined ? { store: o.store } : {}),
    maxSteps: o.maxSteps,
    allowedHosts: [o.host, ...(o.allowedHost ?? [])],
    trustProxy: o.trustProxy ?? false,
    ...(o.webRoot !== undefined ? { webRoot: o.webRoot } : {}),
    limits: {
      rateLimit: o.rateLimit,
      maxStreamsPerClient: o.maxStreamsPerClient,
      importsPerHour: o.importsPerHour,
      maxConversations: o.maxConversations,
      ...(o.dailySpendCap !== undefined ? { dailySpendCap: o.dailySpendCap } : {}),
      ...(o.conversationEstimate !== undefined ? { conversationEstimate: o.conversationEstimate } : {}),
    },
    ...(o.voiceRuns ? { voiceRuns: o.voiceRuns } : {}),
    ...(o.gym ? { gym: { maxSessions: o.gymMaxSessions } } : {}),
    voiceCascade: { transcription: o.agentStt, speech: o.agentTts },
  };
}

/** Parse the settings, build what the server serves through the library, and serve until Ctrl-C. */
async function startServe(options: ServeOptions, context: CliContext): Promise<void> {
  const spec = serveSpecOfFlags(options);
  const tracing = await startCliTracing(options, context);
  if (options.perturbationModule && options.perturbationModule.length > 0)
    await loadPerturbations(context, options.perturbationModule);
  const note = (line: string) => context.stderr.write(`${line}\n`);
  const assembled = assembleServer(spec, {
    ...assemblyOf(context),
    ...(tracing ? { observer: tracing.modelCalls, traceConversation: tracing.conversation } : {}),
    log: note,
    onNote: note,
  });
  const app = createServer(assembled.deps);
  // Parse every domain's data now, so that the first visitor does not wait for it.
  await app.request("/api/info");
  await listen(
    app,
    options,
    context,
    (server) => attachVoicePlayground(server, assembled.voice),
    () => {
      assembled.close();
      // The last conversations' spans reach the collector before the process exits.
      return tracing?.shutdown() ?? Promise.resolve();
    },
  );
}

/** Serve until SIGINT or SIGTERM, then close what `close` closes. */
function listen(
  app: ReturnType<typeof createServer>,
  options: ServeOptions,
  context: CliContext,
  attach: (server: Server) => { close(): void },
  close: () => Promise<void>,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const server = serve({ fetch: app.fetch, port: options.port, hostname: options.host }, (address) => {
      const host = options.host.includes(":") ? `[${options.host}]` : options.host;
      println(context, `passk web app on http://${host}:${address.port}  (Ctrl-C to stop)`);
      if (options.gym) println(context, `agent gym on http://${host}:${address.port}/api/gym/sessions`);
    });
    const voice = attach(server as Server);
    const stop = () => {
      voice.close();
      server.close();
      void close().finally(resolve);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}
