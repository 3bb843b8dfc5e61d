import { existsSync } from "node:fs";
import type { Server } from "node:http";
import path from "node:path";
import { serve } from "@hono/node-server";
import type { Command } from "commander";
import { z } from "zod";
import { readAgentPromptTemplates } from "../../agents/agent-prompt.js";
import { isRemoteAgentSpec, isScriptedSpec } from "../../agents/create-agent.js";
import { defaultWebRoot, secretValues } from "../../server/web-assets.js";
import { ConfigError } from "../../core/errors.js";
import { getDomain } from "../../domains/registry.js";
import { resolveDataDir } from "../../formats/tau2/data-dir.js";
import { AgentGym } from "../../gym/agent-gym.js";
import { GymSessions } from "../../gym/gym-sessions.js";
import { loadPriceOverrides, parseLlmArgs } from "../../llm/index.js";
import { participantMaker, type ModelSpec, type ParticipantMaker } from "../../runner/build.js";
import { DEFAULT_CALL_SETTINGS } from "../../runner/run-spec.js";
import type { ConversationProtocol } from "../../runner/simulation-setup.js";
import type { Judge } from "../../core/judge.js";
import type { Tracing } from "../../observability/start-tracing.js";
import { loadPerturbations } from "../domain-modules.js";
import { createServer } from "../../server/create-server.js";
import type { Participants } from "../../server/server-deps.js";
import { HUMAN_PACED_REPLAY } from "../../server/scripted-replay.js";
import { sqliteRunCatalog } from "../../server/run-catalog.js";
import { attachVoicePlayground, type VoicePlaygroundDeps } from "../../server/voice-playground.js";
import { voiceCascadeOffer } from "../../server/voice-cascade-offer.js";
import { createLanguageModel } from "../../llm/create-language-model.js";
import { createSpeechModel } from "../../voice/speech-models.js";
import { resolveStorePath } from "../../store/store-location.js";
import { Store } from "../../store/store.js";
import type { DomainData } from "../../formats/tau2/domain-data.js";
import type { AnyDomain } from "../../env/domain.js";
import {
  loadDomain,
  println,
  withDataOption,
  withRetrievalConfigOption,
  type CliContext,
} from "../context.js";
import { callAttempts, callTimeoutMs } from "../model-flags.js";
import { readToolSpecFile } from "../../runner/run-assembly.js";
import { startCliTracing, withOtelOption } from "../otel-option.js";

const ServeOptionsSchema = z.object({
  port: z.coerce.number().int().min(0).max(65535),
  host: z.string().min(1),
  data: z.string().optional(),
  store: z.string().optional(),
  agentLlm: z.array(z.string().min(1)).min(1),
  userLlm: z.array(z.string().min(1)).min(1),
  agentLlmBaseUrl: z.string().optional(),
  userLlmBaseUrl: z.string().optional(),
  judgeLlm: z.string().optional(),
  judgeLlmBaseUrl: z.string().optional(),
  judgeLlmArgs: z.string().optional(),
  agentLlmArgs: z.string().optional(),
  userLlmArgs: z.string().optional(),
  timeout: z.string().optional(),
  maxRetries: z.string().optional(),
  cache: z.union([z.string(), z.boolean()]).optional(),
  agentPromptTemplate: z.string().optional(),
  toolSpec: z.string().optional(),
  rateLimit: z.coerce.number().int().positive(),
  maxStreamsPerClient: z.coerce.number().int().positive(),
  importsPerHour: z.coerce.number().int().positive(),
  dailySpendCap: z.coerce.number().nonnegative().optional(),
  conversationEstimate: z.coerce.number().nonnegative().optional(),
  maxConversations: z.coerce.number().int().positive(),
  maxSteps: z.coerce.number().int().positive(),
  trustProxy: z.boolean().optional(),
  webRoot: z.string().optional(),
  protocol: z.enum(["tau2", "passk"]).optional(),
  upstream: z.string().optional(),
  allowedHost: z.array(z.string().min(1)).optional(),
  prices: z.string().optional(),
  retrievalConfig: z.string().optional(),
  retrievalConfigKwargs: z.string().optional(),
  rerankerLlm: z.string().optional(),
  rerankerLlmBaseUrl: z.string().optional(),
  otel: z.union([z.string(), z.boolean()]).optional(),
  perturbationModule: z.array(z.string().min(1)).optional(),
  gym: z.boolean().optional(),
  gymMaxSessions: z.coerce.number().int().positive().max(10_000),
  voiceRuns: z.array(z.string().min(1)).optional(),
  agentStt: z.string().min(1),
  agentTts: z.string().min(1),
});

/** `passk serve`: the playground and the run explorer on one local web server. */
export function registerServe(program: Command, context: CliContext): void {
  withServeLimitOptions(withServeModelOptions(program.command("serve"))).action(
    async (raw: Record<string, unknown>) => {
      const parsed = ServeOptionsSchema.safeParse(raw);
      if (!parsed.success)
        throw new ConfigError(
          `passk serve: ${parsed.error.issues.map((i) => `--${i.path.join(".")}: ${i.message}`).join("; ")}`,
        );
      await startServe(parsed.data, context);
    },
  );
}

/** Which models the playground offers, and how they are called. */
function withServeModelOptions(command: Command): Command {
  return withDataOption(
    withOtelOption(withRetrievalConfigOption(command))
      .description("Serve the web app: a live agent playground and the run explorer (one Hono server)")
      .option("--port <port>", "port to listen on", "8787")
      .option("--host <host>", "address to listen on (0.0.0.0 to serve a network)", "127.0.0.1")
      .option("--store <path>", "run store for the explorer (default: $PASSK_STORE, else .passk/passk.db)")
      .option("--agent-llm <spec...>", "agent models the playground offers (first = default)", [
        "scripted:gold",
      ])
      .option(
        "--user-llm <spec...>",
        "simulated customers the playground offers (scripted:gold answers only the scripted agent; any other agent needs a model here, or you play the customer)",
        ["scripted:gold"],
      )
      .option("--agent-llm-base-url <url>", "base URL for the agent models' provider")
      .option("--user-llm-base-url <url>", "base URL for the user models' provider")
      .option(
        "--agent-llm-args <json>",
        "the agent models' call settings as JSON, e.g. '{\"temperature\":0}'",
      )
      .option("--user-llm-args <json>", "the user models' call settings as JSON")
      .option("--judge-llm <spec>", "judge for NL assertions at the end of a conversation")
      .option("--judge-llm-base-url <url>", "base URL for an openai-compatible judge model")
      .option("--judge-llm-args <json>", "the judge's call settings as JSON")
      .option(
        "--timeout <seconds>",
        "per-request timeout for model calls",
        String(DEFAULT_CALL_SETTINGS.timeoutSeconds),
      )
      .option(
        "--max-retries <n>",
        "attempts per model call on 429/5xx/timeouts",
        String(DEFAULT_CALL_SETTINGS.maxAttempts),
      )
      .option("--cache [file]", "cache model responses in SQLite (default .passk/llm-cache.db)")
      .option("--tool-spec <file>", "tool descriptions/parameters shown to models, from a τ² tools JSON")
      .option(
        "--agent-stt <spec>",
        "the voice playground's cascaded agent: its transcription model (its text model: the first --agent-llm model)",
        "openai:gpt-4o-transcribe",
      )
      .option(
        "--agent-tts <spec>",
        "the voice playground's cascaded agent: its speech model",
        "openai:gpt-4o-mini-tts",
      )
      .option(
        "--agent-prompt-template <file>",
        "agent prompt templates (τ² prompt_templates.json format) to reproduce a prompt exactly",
      ),
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
    .option("--daily-spend-cap <usd>", "refuse new conversations once today's model spend reaches this")
    .option(
      "--conversation-estimate <usd>",
      "what one conversation may cost, reserved against --daily-spend-cap while it runs (default: the cap / --max-conversations)",
    )
    .option("--prices <file>", "price overrides JSON for models the price table lacks (needed with a cap)")
    .option("--max-conversations <n>", "conversations running at once", "20")
    .option("--max-steps <n>", "steps per conversation", "200")
    .option("--trust-proxy", "take client addresses from X-Forwarded-For (behind your own proxy only)")
    .option("--web-root <dir>", "folder of the built web app (default: the one shipped with passk)")
    .option(
      "--allowed-host <name...>",
      "host names the server answers for besides localhost and IP addresses (a deployment's DNS names)",
    )
    .option(
      "--protocol <name>",
      "tau2 (default): playground conversations on τ²'s domains run as τ²-bench runs them; passk: passk's own prompt and tool descriptions",
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
    .option("--gym-max-sessions <n>", "gym sessions held at once (idle ones expire after 10 min)", "64")
    .option(
      "--upstream <dir>",
      "the upstream τ²-bench source files for the τ² protocol's texts (default: $PASSK_TAU2_UPSTREAM, else <data>/upstream)",
    );
}

type ServeOptions = z.infer<typeof ServeOptionsSchema>;

/** Parse the settings, build what the server serves, and serve until Ctrl-C. */
async function startServe(options: ServeOptions, context: CliContext): Promise<void> {
  const dataDir = resolveDataDir(options.data, context.env);
  const tracing = await startCliTracing(options, context);
  const offered = serveParticipants(options, context, dataDir, tracing);
  const store = Store.open(resolveStorePath(options.store, context.env), { create: true });
  const webRoot = options.webRoot ?? defaultWebRoot();
  if (!existsSync(path.join(webRoot, "index.html")))
    context.stderr.write(
      `warning: no built web app in ${webRoot}; run \`npm run build\`. Serving the API only.\n`,
    );
  if (options.perturbationModule && options.perturbationModule.length > 0)
    await loadPerturbations(context, options.perturbationModule);
  const loadDomainData = serveDomainLoader(options, context);
  const gym = options.gym ? serveGym(options, context, dataDir, offered, loadDomainData) : undefined;
  const keyless = [...options.agentLlm, ...options.userLlm].every(isScriptedSpec);
  const app = createServer({
    domains: context.domains,
    dataDir,
    loadDomainData,
    participants: offered.participants,
    store: sqliteRunCatalog(store),
    ...(options.voiceRuns ? { voiceRuns: voiceRunFolders(options.voiceRuns, context) } : {}),
    ...(offered.judge ? { judge: offered.judge } : {}),
    ...(context.perturbations ? { perturbations: context.perturbations } : {}),
    limits: {
      rateLimitMax: options.rateLimit,
      rateLimitWindowMs: 60_000,
      maxStreamsPerClient: options.maxStreamsPerClient,
      importsPerHour: options.importsPerHour,
      dailySpendCapUsd: options.dailySpendCap ?? null,
      conversationEstimateUsd: options.conversationEstimate ?? null,
      maxActive: options.maxConversations,
      maxSteps: options.maxSteps,
    },
    webRoot,
    secrets: secretValues(context.env),
    trustProxy: options.trustProxy ?? false,
    protocol: offered.protocol,
    ...(options.toolSpec ? { toolOverrides: readToolSpecFile(options.toolSpec) } : {}),
    allowedHosts: [options.host, ...(options.allowedHost ?? [])],
    log: (line) => context.stderr.write(`${line}\n`),
    ...(tracing ? { traceConversation: tracing.conversation } : {}),
    // No model at all: the playground is a paced replay of the gold path, and says so.
    ...(keyless ? { scriptedReplay: HUMAN_PACED_REPLAY } : {}),
    ...(gym ? { gym } : {}),
  });
  // Parse every domain's data now, so that the first visitor does not wait for it.
  await app.request("/api/info");
  const voice = (server: Server) =>
    attachVoicePlayground(server, {
      domains: context.domains,
      dataDir,
      loadDomainData,
      env: context.env,
      ...serveVoiceParticipants(options, context, offered.participants),
      ...(offered.judge ? { judge: offered.judge } : {}),
      allowedHosts: [options.host, ...(options.allowedHost ?? [])],
      secrets: secretValues(context.env),
      log: (line) => context.stderr.write(`${line}\n`),
    });
  await listen(app, options, context, voice, () => {
    gym?.closeAll();
    store.close();
    // The last conversations' spans reach the collector before the process exits.
    return tracing?.shutdown() ?? Promise.resolve();
  });
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

/**
 * The voice playground's participants: a realtime agent for each provider whose key is set, the cascaded
 * agent (offered, or named as unavailable with why), and a simulated customer speaking with OpenAI's
 * voice when a model writes the customer's words and OPENAI_API_KEY is set (else the scripted, keyless
 * customer).
 */
function serveVoiceParticipants(
  options: ServeOptions,
  context: CliContext,
  participants: Participants,
): Pick<VoicePlaygroundDeps, "agents" | "customer" | "cascade"> {
  const env = context.env;
  const agents = [
    ...(env.OPENAI_API_KEY ? ["openai:gpt-realtime"] : []),
    ...(env.GEMINI_API_KEY || env.GOOGLE_GENERATIVE_AI_API_KEY ? ["gemini"] : []),
  ];
  const userSpec = options.userLlm.find((spec) => !isScriptedSpec(spec));
  const customer =
    userSpec && env.OPENAI_API_KEY
      ? {
          llm: createLanguageModel(userSpec, { role: "user", env }),
          speech: createSpeechModel("openai:gpt-4o-mini-tts", { env }),
        }
      : undefined;
  // The cascade's text agent is the text playground's own (its first model), between the speech models.
  const cascade = voiceCascadeOffer({
    agentSpecs: participants.agents,
    agentFor: (spec) => participants.agentFor(spec),
    transcription: options.agentStt,
    speech: options.agentTts,
    env,
  });
  return { agents, cascade, ...(customer ? { customer } : {}) };
}

interface OfferedParticipants {
  participants: Participants;
  judge?: Judge;
  protocol: ConversationProtocol;
}

/**
 * The agents and customers the playground offers, made once through the runner's one maker, as `passk
 * run` makes its own: configuration problems (unknown provider, missing key) show before serving, and every
 * conversation shares them (each conversation is its own session of the same participant). Any model
 * offered reads the protocol's texts (scripted participants read none); τ²'s protocol calls at
 * temperature 0 unless the args say otherwise.
 */
function serveParticipants(
  options: ServeOptions,
  context: CliContext,
  dataDir: string,
  tracing: Tracing | undefined,
): OfferedParticipants {
  const parsedArgs = (json: string | undefined, flag: string) =>
    json !== undefined ? { args: parseLlmArgs(json, flag) } : {};
  const agentModel = (model: string): ModelSpec => ({
    model,
    ...(options.agentLlmBaseUrl ? { baseUrl: options.agentLlmBaseUrl } : {}),
    ...parsedArgs(options.agentLlmArgs, "--agent-llm-args"),
  });
  const userModel = (model: string): ModelSpec => ({
    model,
    ...(options.userLlmBaseUrl ? { baseUrl: options.userLlmBaseUrl } : {}),
    ...parsedArgs(options.userLlmArgs, "--user-llm-args"),
  });
  const judgeModel = options.judgeLlm
    ? {
        model: options.judgeLlm,
        ...(options.judgeLlmBaseUrl ? { baseUrl: options.judgeLlmBaseUrl } : {}),
        ...parsedArgs(options.judgeLlmArgs, "--judge-llm-args"),
      }
    : undefined;
  const maker = participantMaker(
    {
      ...(options.protocol ? { protocol: options.protocol } : {}),
      ...(options.upstream ? { upstream: options.upstream } : {}),
      dataDir,
      domains: [...context.domains.values()].filter((d) => d.tau2 !== undefined),
      env: context.env,
      timeoutSeconds: callTimeoutMs(options.timeout ?? String(DEFAULT_CALL_SETTINGS.timeoutSeconds)) / 1000,
      maxAttempts: callAttempts(options.maxRetries ?? String(DEFAULT_CALL_SETTINGS.maxAttempts)),
      ...(options.agentPromptTemplate
        ? { agentPromptTemplates: readAgentPromptTemplates(options.agentPromptTemplate) }
        : {}),
      ...(options.prices ? { priceOverrides: loadPriceOverrides(options.prices) } : {}),
      ...(options.cache ? { cache: options.cache } : {}),
      ...(tracing ? { observer: tracing.modelCalls } : {}),
    },
    {
      agent: options.agentLlm.find((spec) => !isScriptedSpec(spec)) ?? "scripted:gold",
      user: options.userLlm.find((spec) => !isScriptedSpec(spec)) ?? "scripted:gold",
    },
  );
  if (options.dailySpendCap !== undefined)
    refuseUnpriced(
      [
        ...options.agentLlm.map(agentModel),
        ...options.userLlm.map(userModel),
        ...(judgeModel ? [judgeModel] : []),
      ],
      maker,
    );
  const agents = new Map(options.agentLlm.map((spec) => [spec, maker.agent(agentModel(spec))]));
  const users = new Map(options.userLlm.map((spec) => [spec, maker.customer(userModel(spec))]));
  const unanswered = options.agentLlm.filter((spec) => !isScriptedSpec(spec));
  if (unanswered.length > 0 && options.userLlm.every(isScriptedSpec))
    context.stderr.write(
      `note: no --user-llm model: ${unanswered.join(", ")} can be tried only with you as the customer; ` +
        "pass --user-llm <provider>:<model> for simulated customers\n",
    );
  return {
    participants: {
      agents: options.agentLlm,
      users: options.userLlm,
      agentFor: (spec) => agents.get(spec) ?? maker.agent(agentModel(spec)),
      customerFor: (spec) => users.get(spec) ?? maker.customer(userModel(spec)),
    },
    ...(judgeModel ? { judge: maker.judge(judgeModel) } : {}),
    protocol: maker.protocol,
  };
}

/** A spend cap counts dollars: every model it has to count must have a price, or it counts nothing. */
function refuseUnpriced(models: readonly ModelSpec[], maker: ParticipantMaker): void {
  const unpriced = models
    // A team's own agent (module, A2A, HTTP) pays for its own model calls: passk has nothing to count.
    .filter(
      ({ model }) => !isScriptedSpec(model) && !model.startsWith("module:") && !isRemoteAgentSpec(model),
    )
    .filter((model) => !maker.priced(model))
    .map(({ model }) => model);
  if (unpriced.length === 0) return;
  const one = unpriced.length === 1;
  throw new ConfigError(
    `--daily-spend-cap cannot count the spend of ${[...new Set(unpriced)].join(", ")}: the price table does not know ` +
      `${one ? "it" : "them"}. Pass --prices FILE with ${one ? "its" : "their"} prices ` +
      '(e.g. {"models": {"openai-compatible:my-model": {"input_mtok": 0.5, "output_mtok": 1.5}}}), or drop the cap.',
  );
}

/**
 * How the server loads a domain: domains with configurations (banking_knowledge's retrieval) run the one
 * --retrieval-config names, and a config a conversation cannot use (a sandboxed shell, an unverified
 * reranker prompt) stops the server at start. The reranker's calls are counted to each conversation
 * (`tool_model_cost`) and toward the daily cap.
 */
function serveDomainLoader(
  options: ServeOptions,
  context: CliContext,
): (domain: AnyDomain, dataDir: string) => DomainData {
  const retrieval = {
    ...(options.retrievalConfig !== undefined ? { retrievalConfig: options.retrievalConfig } : {}),
    ...(options.retrievalConfigKwargs !== undefined
      ? { retrievalConfigKwargs: options.retrievalConfigKwargs }
      : {}),
    ...(options.rerankerLlm !== undefined ? { rerankerLlm: options.rerankerLlm } : {}),
    ...(options.rerankerLlmBaseUrl !== undefined ? { rerankerLlmBaseUrl: options.rerankerLlmBaseUrl } : {}),
    ...(options.prices !== undefined ? { prices: options.prices } : {}),
  };
  const loadDomainData = (domain: AnyDomain, dataDir: string): DomainData => {
    const data = loadDomain(context, domain.name, { data: dataDir, ...(domain.configs ? retrieval : {}) });
    if (domain.configs) data.assertConversable();
    return data;
  };
  if (options.retrievalConfig !== undefined)
    for (const domain of context.domains.values())
      if (domain.configs) loadDomainData(domain, resolveDataDir(options.data, context.env));
  return loadDomainData;
}

/** `--gym`: sessions that read the same domain data as the playground's conversations. */
function serveGym(
  options: ServeOptions,
  context: CliContext,
  dataDir: string,
  offered: OfferedParticipants,
  loadDomainData: (domain: AnyDomain, dataDir: string) => DomainData,
): GymSessions {
  return new GymSessions(
    () =>
      new AgentGym({
        domain: (name) => loadDomainData(getDomain(name, context.domains), dataDir),
        protocol: offered.protocol,
        maxSteps: options.maxSteps,
      }),
    { maxSessions: options.gymMaxSessions },
    Date.now,
    {
      // A model customer spends money the gym does not count yet: under a spend cap, scripted only.
      offered: options.userLlm.filter((spec) => isScriptedSpec(spec) || options.dailySpendCap === undefined),
      create: (spec) => offered.participants.customerFor(spec),
    },
  );
}

/** `--voice-runs`: absolute folders; one that is not there is named now, not later as an empty list. */
function voiceRunFolders(folders: readonly string[], context: CliContext): string[] {
  return folders.map((folder) => {
    const absolute = path.resolve(folder);
    if (!existsSync(absolute))
      context.stderr.write(
        `warning: --voice-runs ${folder}: no such folder (the explorer lists no run from it)\n`,
      );
    return absolute;
  });
}
