import { existsSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { readAgentPromptTemplates } from "../agents/agent-prompt.js";
import { isScriptedSpec } from "../agents/create-agent.js";
import { ConfigError } from "../core/errors.js";
import { builtinDomains, getDomain } from "../domains/registry.js";
import type { AnyDomain } from "../env/domain.js";
import { resolveDataDir } from "../formats/tau2/data-dir.js";
import { DomainCatalog } from "../formats/tau2/domain-catalog.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import { AgentGym } from "../gym/agent-gym.js";
import { GymSessions } from "../gym/gym-sessions.js";
import { createLanguageModel } from "../llm/create-language-model.js";
import { loadPriceOverrides, type ModelCallObserver } from "../llm/index.js";
import { buildOfferedParticipants, type OfferedParticipants } from "../runner/build.js";
import {
  loadDomainData,
  readToolSpecFile,
  type AssemblyOptions,
  type DomainLoadSpec,
} from "../runner/run-assembly.js";
import { CONVERSATION_SETTINGS, ModelSpecSchema, RunSpecSchema } from "../runner/run-spec.js";
import { resolveStorePath } from "../store/store-location.js";
import { Store } from "../store/store.js";
import { createSpeechModel } from "../voice/speech-models.js";
import type { ServerDeps } from "./server-deps.js";
import { sqliteRunCatalog } from "./run-catalog.js";
import { HUMAN_PACED_REPLAY } from "./scripted-replay.js";
import { voiceCascadeOffer } from "./voice-cascade-offer.js";
import type { VoicePlaygroundDeps } from "./voice-playground.js";
import { defaultWebRoot, secretValues } from "./web-assets.js";

const SCRIPTED = [{ model: "scripted:gold" }];

/**
 * What `passk serve` serves: the models the playground offers (each with its base URL and call args)
 * under the call settings a run takes, the domains' data and retrieval config, the server's limits,
 * the explorer's store and voice runs, and the gym. `passk serve`'s flags describe one.
 */
export const ServeSpecSchema = RunSpecSchema.pick({ ...CONVERSATION_SETTINGS, store: true }).extend({
  /** The agents the playground offers; the first is the default. */
  agents: z.array(ModelSpecSchema).min(1).default(SCRIPTED),
  /** The simulated customers offered (`scripted:gold` answers only the scripted agent). */
  users: z.array(ModelSpecSchema).min(1).default(SCRIPTED),
  /** Host names answered besides localhost and IP literals (the listening host and a deployment's names). */
  allowedHosts: z.array(z.string().min(1)).default([]),
  /** Take client addresses from `X-Forwarded-For` (behind your own proxy only). */
  trustProxy: z.boolean().default(false),
  /** The built web app; by default the one shipped with passk. */
  webRoot: z.string().optional(),
  limits: z
    .strictObject({
      /** Requests per minute per client address that start or drive work. */
      rateLimit: z.number().int().positive().default(60),
      maxStreamsPerClient: z.number().int().positive().default(32),
      importsPerHour: z.number().int().positive().default(20),
      /** USD per UTC day of model spend; every model offered must then be priced. */
      dailySpendCap: z.number().nonnegative().optional(),
      /** What one conversation may cost, reserved against the cap (default: the cap / maxConversations). */
      conversationEstimate: z.number().nonnegative().optional(),
      maxConversations: z.number().int().positive().default(20),
    })
    .prefault({}),
  /** Voice runs for the explorer: voice run directories, or folders of them. */
  voiceRuns: z.array(z.string().min(1)).optional(),
  /** The agent gym (reset/step sessions over HTTP) at `/api/gym`. */
  gym: z.strictObject({ maxSessions: z.number().int().positive().max(10_000).default(64) }).optional(),
  /** The voice playground's cascaded agent: its speech models (its text model: the first agent). */
  voiceCascade: z
    .strictObject({
      transcription: z.string().min(1).default("openai:gpt-4o-transcribe"),
      speech: z.string().min(1).default("openai:gpt-4o-mini-tts"),
    })
    .prefault({}),
});
export type ServeSpec = z.input<typeof ServeSpecSchema>;
type ParsedServeSpec = z.output<typeof ServeSpecSchema>;

export interface AssembleServerOptions extends AssemblyOptions {
  /** An open run store for the explorer (it stays open); by default the spec's `store`, opened here. */
  store?: Store;
  /** Observes every model call (tracing's model-call spans). */
  observer?: ModelCallObserver;
  traceConversation?: ServerDeps["traceConversation"];
  /** The server's log (errors with stacks). */
  log?: (line: string) => void;
  /** Sentences worth telling whoever starts the server (a missing web app, a voice runs folder not there). */
  onNote?: (text: string) => void;
}

/** What the server and its voice playground are made of, and how to close what was opened for them. */
export interface AssembledServer {
  deps: ServerDeps;
  voice: VoicePlaygroundDeps;
  /** The gym's sessions, the response cache and a store opened here. */
  close(): void;
}

/**
 * Turn a serve spec into the server's dependencies (`createServer(deps)`; the voice playground's for
 * `attachVoicePlayground`): the offered agents, customers and judge built once through the runner's
 * builder, the domains loaded through one {@link DomainCatalog} with the spec's retrieval config, the
 * store opened. Every configuration problem (an unknown provider, a missing key, a model a spend cap
 * cannot price, a retrieval config a conversation cannot use) is thrown here, before anything is served.
 */
export function assembleServer(spec: ServeSpec, options: AssembleServerOptions = {}): AssembledServer {
  const parsed = ServeSpecSchema.safeParse(spec);
  if (!parsed.success)
    throw new ConfigError(
      `serve spec: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  const s = parsed.data;
  const env = options.env ?? process.env;
  const domains = options.domains ?? builtinDomains;
  const dataDir = resolveDataDir(s.dataDir, env);
  const priceOverrides = s.prices !== undefined ? loadPriceOverrides(s.prices) : undefined;
  const offered = offeredParticipants(s, options, { env, domains, dataDir, priceOverrides });
  const loadDomain = domainLoader(s, {
    env,
    domains,
    catalog: options.catalog ?? new DomainCatalog(),
    priceOverrides,
  });
  if (s.retrievalConfig !== undefined)
    for (const domain of domains.values()) if (domain.configs) loadDomain(domain, dataDir);
  const store = options.store ?? Store.open(resolveStorePath(s.store, env), { create: true });
  const webRoot = s.webRoot ?? defaultWebRoot();
  if (!existsSync(path.join(webRoot, "index.html")))
    options.onNote?.(`warning: no built web app in ${webRoot}; run \`npm run build\`. Serving the API only.`);
  const gym = s.gym
    ? playgroundGym(s, s.gym.maxSessions, offered, (name) => loadDomain(getDomain(name, domains), dataDir))
    : undefined;
  const keyless = [...s.agents, ...s.users].every((m) => isScriptedSpec(m.model));
  const common = {
    domains,
    dataDir,
    loadDomainData: loadDomain,
    ...(offered.judge ? { judge: offered.judge } : {}),
    allowedHosts: s.allowedHosts,
    secrets: secretValues(env),
    ...(options.log ? { log: options.log } : {}),
  };
  const deps: ServerDeps = {
    ...common,
    participants: offered,
    store: sqliteRunCatalog(store),
    ...(s.voiceRuns ? { voiceRuns: voiceRunFolders(s.voiceRuns, options.onNote) } : {}),
    ...(options.perturbations ? { perturbations: options.perturbations } : {}),
    limits: {
      rateLimitMax: s.limits.rateLimit,
      rateLimitWindowMs: 60_000,
      maxStreamsPerClient: s.limits.maxStreamsPerClient,
      importsPerHour: s.limits.importsPerHour,
      dailySpendCapUsd: s.limits.dailySpendCap ?? null,
      conversationEstimateUsd: s.limits.conversationEstimate ?? null,
      maxActive: s.limits.maxConversations,
      maxSteps: s.maxSteps,
    },
    webRoot,
    trustProxy: s.trustProxy,
    protocol: offered.protocol,
    ...(s.toolSpec ? { toolOverrides: readToolSpecFile(s.toolSpec) } : {}),
    ...(options.traceConversation ? { traceConversation: options.traceConversation } : {}),
    // No model at all: the playground is a paced replay of the gold path, and says so.
    ...(keyless ? { scriptedReplay: HUMAN_PACED_REPLAY } : {}),
    ...(gym ? { gym } : {}),
  };
  return {
    deps,
    voice: { ...common, env, ...voiceParticipants(s, env, offered) },
    close: () => {
      gym?.closeAll();
      offered.cache?.close();
      if (!options.store) store.close();
    },
  };
}

/** The offered agents and customers, made once under the spec's call settings (a cap needs prices). */
function offeredParticipants(
  s: ParsedServeSpec,
  options: AssembleServerOptions,
  at: {
    env: NodeJS.ProcessEnv;
    domains: ReadonlyMap<string, AnyDomain>;
    dataDir: string;
    priceOverrides?: ReturnType<typeof loadPriceOverrides> | undefined;
  },
): OfferedParticipants {
  const unanswered = s.agents.filter((m) => !isScriptedSpec(m.model)).map((m) => m.model);
  if (unanswered.length > 0 && s.users.every((m) => isScriptedSpec(m.model)))
    options.onNote?.(
      `note: no --user-llm model: ${unanswered.join(", ")} can be tried only with you as the customer; ` +
        "pass --user-llm <provider>:<model> for simulated customers",
    );
  return buildOfferedParticipants({
    agents: s.agents,
    users: s.users,
    ...(s.judge ? { judge: s.judge } : {}),
    ...(s.protocol ? { protocol: s.protocol } : {}),
    ...(s.upstream ? { upstream: s.upstream } : {}),
    dataDir: at.dataDir,
    domains: [...at.domains.values()].filter((d) => d.tau2 !== undefined),
    env: at.env,
    timeoutSeconds: s.timeoutSeconds,
    maxAttempts: s.maxRetries,
    ...(s.agentPromptTemplate
      ? { agentPromptTemplates: readAgentPromptTemplates(s.agentPromptTemplate) }
      : {}),
    ...(at.priceOverrides ? { priceOverrides: at.priceOverrides } : {}),
    ...(s.cache ? { cache: s.cache } : {}),
    ...(s.promptCache === false ? { promptCache: false } : {}),
    ...(s.maxAgentMessageBytes !== undefined ? { maxAgentMessageBytes: s.maxAgentMessageBytes } : {}),
    ...(options.agentModules ? { agentModules: options.agentModules } : {}),
    ...(options.observer ? { observer: options.observer } : {}),
    requirePrices: s.limits.dailySpendCap !== undefined,
  });
}

/**
 * How the server loads a domain: domains with configurations (banking_knowledge's retrieval) run the
 * spec's, and one a conversation cannot use (a sandboxed shell, an unverified reranker prompt) is refused.
 * The reranker's calls are counted to each conversation (`tool_model_cost`) and toward the daily cap.
 */
function domainLoader(
  s: ParsedServeSpec,
  context: Parameters<typeof loadDomainData>[2],
): (domain: AnyDomain, dataDir: string) => DomainData {
  const retrieval: DomainLoadSpec = {
    ...(s.retrievalConfig !== undefined ? { retrievalConfig: s.retrievalConfig } : {}),
    ...(s.retrievalConfigKwargs !== undefined ? { retrievalConfigKwargs: s.retrievalConfigKwargs } : {}),
    ...(s.upstream !== undefined ? { upstream: s.upstream } : {}),
    ...(s.reranker !== undefined ? { reranker: s.reranker } : {}),
  };
  return (domain, dataDir) => {
    const data = loadDomainData(domain.name, { dataDir, ...(domain.configs ? retrieval : {}) }, context);
    if (domain.configs) data.assertConversable();
    return data;
  };
}

/** The gym's sessions read the same domain data as the playground's conversations. */
function playgroundGym(
  s: ParsedServeSpec,
  maxSessions: number,
  offered: OfferedParticipants,
  domain: (name: string) => DomainData,
): GymSessions {
  return new GymSessions(
    () => new AgentGym({ domain, protocol: offered.protocol, maxSteps: s.maxSteps }),
    { maxSessions },
    Date.now,
    {
      // A model customer spends money the gym does not count yet: under a spend cap, scripted only.
      offered: s.users
        .map((m) => m.model)
        .filter((spec) => isScriptedSpec(spec) || s.limits.dailySpendCap === undefined),
      create: (spec) => offered.customerFor(spec),
    },
  );
}

/**
 * The voice playground's participants: a realtime agent for each provider whose key is set, the cascaded
 * agent (offered, or named as unavailable with why), and a simulated customer speaking with OpenAI's
 * voice when a model writes the customer's words and OPENAI_API_KEY is set (else the scripted, keyless
 * customer).
 */
function voiceParticipants(
  s: ParsedServeSpec,
  env: NodeJS.ProcessEnv,
  offered: OfferedParticipants,
): Pick<VoicePlaygroundDeps, "agents" | "customer" | "cascade"> {
  const agents = [
    ...(env.OPENAI_API_KEY ? ["openai:gpt-realtime"] : []),
    ...(env.GEMINI_API_KEY || env.GOOGLE_GENERATIVE_AI_API_KEY ? ["gemini"] : []),
  ];
  const userSpec = s.users.find((m) => !isScriptedSpec(m.model))?.model;
  const customer =
    userSpec && env.OPENAI_API_KEY
      ? {
          llm: createLanguageModel(userSpec, { role: "user", env }),
          speech: createSpeechModel("openai:gpt-4o-mini-tts", { env }),
        }
      : undefined;
  // The cascade's text agent is the text playground's own (its first model), between the speech models.
  const cascade = voiceCascadeOffer({
    agentSpecs: offered.agents,
    agentFor: (spec) => offered.agentFor(spec),
    transcription: s.voiceCascade.transcription,
    speech: s.voiceCascade.speech,
    env,
  });
  return { agents, cascade, ...(customer ? { customer } : {}) };
}

/** Voice run folders as absolute paths; one that is not there is named now, not later as an empty list. */
function voiceRunFolders(folders: readonly string[], onNote: ((text: string) => void) | undefined): string[] {
  return folders.map((folder) => {
    const absolute = path.resolve(folder);
    if (!existsSync(absolute))
      onNote?.(`warning: --voice-runs ${folder}: no such folder (the explorer lists no run from it)`);
    return absolute;
  });
}
