import path from "node:path";
import type { AgentPromptTemplates } from "../agents/agent-prompt.js";
import { createAgent, isRemoteAgentSpec, isScriptedSpec, type ModelOptions } from "../agents/create-agent.js";
import { DEFAULT_MAX_AGENT_MESSAGE_BYTES } from "../agents/remote/index.js";
import type { Agent, UserSimulator } from "../core/agent.js";
import type { Judge } from "../core/judge.js";
import { ConfigError } from "../core/errors.js";
import type { AnyDomain } from "../env/domain.js";
import type { ToolOverrides } from "../env/tool-schema.js";
import {
  loadReferenceTexts,
  missingUpstreamMessage,
  resolveUpstreamDir,
} from "../formats/tau2/upstream/reference-texts.js";
import { createJudge } from "../judge/create-judge.js";
import type { CallLimiter } from "../llm/call-limits.js";
import {
  createLanguageModel,
  openResponseCache,
  type LlmArgs,
  type ModelCallObserver,
  type PriceOverrides,
  type ResponseCache,
} from "../llm/index.js";
import { createUserSimulator, customerSpecFor, readUserGuidelines } from "../users/create-user.js";
import type { RunParticipants } from "./run.js";
import { DEFAULT_CALL_SETTINGS } from "./run-spec.js";
import type { ConversationProtocol } from "./simulation-setup.js";

/** One participant's model: its spec (`<provider>:<model>`, `scripted:gold`, …), base URL and call settings. */
export interface ModelSpec {
  model: string;
  baseUrl?: string;
  args?: LlmArgs;
}

/** What the participants of a run are made of — typed values, no flag strings or file paths. */
export interface ParticipantsSpec {
  agent: ModelSpec;
  user?: ModelSpec;
  judge?: ModelSpec;
  /** `tau2` or `passk`; by default τ²'s on τ²'s own domains, passk's on yours. */
  protocol?: "tau2" | "passk";
  /** The upstream τ²-bench source the τ² protocol reads its texts from. */
  upstream?: string;
  /** The data directory (user guidelines, the default upstream directory). */
  dataDir: string;
  domains: readonly AnyDomain[];
  env?: Readonly<Record<string, string | undefined>>;
  timeoutSeconds?: number;
  maxAttempts?: number;
  agentPromptTemplates?: AgentPromptTemplates;
  toolOverrides?: ToolOverrides;
  priceOverrides?: PriceOverrides;
  /** Cache model responses: `true` for `.passk/llm-cache.db`, or a file. */
  cache?: string | boolean;
  promptCache?: boolean;
  maxAgentMessageBytes?: number;
  /** Agents loaded from modules (`module:<path>` specs), by spec. */
  agentModules?: ReadonlyMap<string, Agent>;
  observer?: ModelCallObserver;
  limiter?: CallLimiter;
  /** Solo and `chat` conversations have no simulated customer: none is required. */
  noCustomer?: boolean;
}

/** A run's participants, with the response cache to close after the run. */
export interface Participants extends Omit<RunParticipants, "userGuidelines"> {
  cache?: ResponseCache;
}

/**
 * The protocol conversations run under: the asked one, else τ²'s on τ²'s own domains and passk's on
 * yours. τ²'s protocol needs the reference's texts as soon as a model (or your agent) reads them.
 */
export function resolveProtocol(
  spec: Pick<ParticipantsSpec, "protocol" | "upstream" | "dataDir" | "domains" | "env"> & {
    agent: string;
    user?: string;
  },
): ConversationProtocol {
  const foreign = spec.domains.filter((d) => d.tau2 === undefined).map((d) => d.name);
  const name = spec.protocol ?? (foreign.length === 0 ? "tau2" : "passk");
  if (name === "passk") return { name };
  if (name !== "tau2")
    throw new ConfigError(`--protocol "${String(name)}" is not a protocol; use tau2 or passk`);
  if (foreign.length > 0)
    throw new ConfigError(
      `--protocol tau2 runs τ²-bench's own domains as the reference does, and ${foreign.join(", ")} is not one of them; drop --protocol or pass --protocol passk`,
    );
  const modelReads = !isScriptedSpec(spec.agent) || !isScriptedSpec(spec.user ?? "scripted:gold");
  const dir = resolveUpstreamDir(spec.upstream, spec.env ?? process.env, spec.dataDir);
  if (dir === undefined) {
    if (modelReads) throw new ConfigError(missingUpstreamMessage("This run"));
    // Scripted participants read no text: the protocol's turn rules apply, no texts are needed.
    return { name };
  }
  return { name, texts: loadReferenceTexts(dir) };
}

/** τ² calls both models at temperature 0 unless told otherwise (its DEFAULT_LLM_ARGS_AGENT / _USER). */
function withTau2Temperature(args: LlmArgs | undefined): LlmArgs {
  return args?.temperature === undefined ? { ...args, temperature: 0 } : args;
}

/** What every participant of a run or a server is made with: its models' settings, not which models. */
export type ParticipantSettings = Omit<ParticipantsSpec, "agent" | "user" | "judge" | "noCustomer">;

/**
 * Makes agents, customers and judges from model specs under one protocol and one set of call settings
 * (keys, timeouts, retries, prices, cache, tracing, limits): a run takes one of each, a server offers
 * several. The response cache, if any, is the maker's to close.
 */
export interface ParticipantMaker {
  protocol: ConversationProtocol;
  agent(model: ModelSpec): Agent;
  customer(model: ModelSpec): UserSimulator;
  judge(model: ModelSpec): Judge;
  /** The call settings a participant's model is actually called with (τ²'s temperature 0 by default). */
  effectiveArgs(args: LlmArgs | undefined): LlmArgs | undefined;
  /** Whether passk can price the model's calls (a spend cap needs it); false when the price table lacks it. */
  priced(model: ModelSpec): boolean;
  cache?: ResponseCache;
}

/**
 * A maker of participants. The protocol is resolved for `reads` (the agent and customer specs whose
 * models read its texts): every configuration problem (missing upstream texts) surfaces here.
 */
export function participantMaker(
  settings: ParticipantSettings,
  reads: { agent: string; user?: string },
): ParticipantMaker {
  const protocol = resolveProtocol({ ...settings, ...reads });
  const texts = protocol.name === "tau2" ? protocol.texts : undefined;
  const effectiveArgs = (args: LlmArgs | undefined) =>
    protocol.name === "tau2" ? withTau2Temperature(args) : args;
  const common: ModelOptions = {
    env: settings.env ?? process.env,
    timeoutMs: (settings.timeoutSeconds ?? DEFAULT_CALL_SETTINGS.timeoutSeconds) * 1000,
    retry: { maxAttempts: settings.maxAttempts ?? DEFAULT_CALL_SETTINGS.maxAttempts },
  };
  if (settings.observer) common.observer = settings.observer;
  if (settings.priceOverrides) common.priceOverrides = settings.priceOverrides;
  if (settings.limiter) common.limiter = settings.limiter;
  if (settings.promptCache === false) common.promptCache = false;
  let cache: ResponseCache | undefined;
  if (settings.cache) {
    cache = openResponseCache(
      typeof settings.cache === "string" ? settings.cache : path.join(".passk", "llm-cache.db"),
    );
    common.cache = cache;
  }
  const templates = settings.agentPromptTemplates ?? texts?.prompts.agent;
  const withModel = (model: ModelSpec, args: LlmArgs | undefined): ModelOptions => ({
    ...common,
    ...(model.baseUrl ? { baseUrl: model.baseUrl } : {}),
    ...(args ? { args } : {}),
  });
  return {
    protocol,
    effectiveArgs,
    agent: (model) =>
      createAgent(model.model, {
        ...withModel(model, effectiveArgs(model.args)),
        ...(templates ? { templates } : {}),
        ...(texts ? { doneTool: texts.doneTool } : {}),
        ...(settings.agentModules ? { modules: settings.agentModules } : {}),
        maxAgentMessageBytes: settings.maxAgentMessageBytes ?? DEFAULT_MAX_AGENT_MESSAGE_BYTES,
      }),
    customer: (model) =>
      createUserSimulator(model.model, {
        ...withModel(model, effectiveArgs(model.args)),
        guidelines: () => ({
          ...readUserGuidelines(settings.dataDir),
          ...(texts ? { template: texts.prompts.user.SYSTEM_PROMPT } : {}),
        }),
      }),
    judge: (model) => createJudge(model.model, withModel(model, model.args)),
    priced: (model) => createLanguageModel(model.model, withModel(model, model.args)).priced !== false,
    ...(cache ? { cache } : {}),
  };
}

/** What a server that offers several agents and customers (the playground) makes them of. */
export interface OfferedParticipantsSpec extends ParticipantSettings {
  /** The agents offered; the first is the default. */
  agents: readonly ModelSpec[];
  /** The simulated customers offered; the first is the default. */
  users: readonly ModelSpec[];
  judge?: ModelSpec;
  /** A spend cap counts dollars: refuse models whose calls passk cannot price. */
  requirePrices?: boolean;
}

/** The agents and customers a server offers, by spec, made once and shared by its conversations. */
export interface OfferedParticipants {
  agents: readonly string[];
  users: readonly string[];
  agentFor(spec: string): Agent;
  customerFor(spec: string): UserSimulator;
  judge?: Judge;
  protocol: ConversationProtocol;
  /** The response cache, if any: the server's to close. */
  cache?: ResponseCache;
}

/** A team's own agent (module, A2A, HTTP) pays for its own calls, as a scripted one makes none. */
const countsNoSpend = (model: string) =>
  isScriptedSpec(model) || model.startsWith("module:") || isRemoteAgentSpec(model);

/**
 * Build every agent and customer a server offers, and its judge and protocol, under one set of call
 * settings (as {@link buildParticipants} builds a run's): configuration problems (an unknown provider,
 * a missing key or price) surface here, before anything is served. The protocol's texts are read when
 * any model offered reads them.
 */
export function buildOfferedParticipants(spec: OfferedParticipantsSpec): OfferedParticipants {
  const { agents, users, judge: judgeModel, requirePrices, ...settings } = spec;
  const firstModel = (models: readonly ModelSpec[]) =>
    models.find((m) => !isScriptedSpec(m.model))?.model ?? "scripted:gold";
  const maker = participantMaker(settings, { agent: firstModel(agents), user: firstModel(users) });
  if (requirePrices) {
    const unpriced = [...agents, ...users, ...(judgeModel ? [judgeModel] : [])]
      .filter((m) => !countsNoSpend(m.model) && !maker.priced(m))
      .map((m) => m.model);
    if (unpriced.length > 0) throw unpricedError([...new Set(unpriced)]);
  }
  const made = <T>(models: readonly ModelSpec[], make: (model: ModelSpec) => T) =>
    new Map(models.map((model) => [model.model, make(model)]));
  const offeredAgents = made(agents, maker.agent);
  const offeredUsers = made(users, maker.customer);
  const offered =
    <T>(map: Map<string, T>, what: string) =>
    (name: string) => {
      const found = map.get(name);
      if (found === undefined)
        throw new ConfigError(`${what} ${name} is not offered; offered: ${[...map.keys()].join(", ")}`);
      return found;
    };
  return {
    agents: [...offeredAgents.keys()],
    users: [...offeredUsers.keys()],
    agentFor: offered(offeredAgents, "agent"),
    customerFor: offered(offeredUsers, "customer"),
    ...(judgeModel ? { judge: maker.judge(judgeModel) } : {}),
    protocol: maker.protocol,
    ...(maker.cache ? { cache: maker.cache } : {}),
  };
}

function unpricedError(models: readonly string[]): ConfigError {
  const one = models.length === 1;
  return new ConfigError(
    `--daily-spend-cap cannot count the spend of ${models.join(", ")}: the price table does not know ` +
      `${one ? "it" : "them"}. Pass --prices FILE with ${one ? "its" : "their"} prices ` +
      '(e.g. {"models": {"openai-compatible:my-model": {"input_mtok": 0.5, "output_mtok": 1.5}}}), or drop the cap.',
  );
}

/**
 * Build the agent, customer and judge of a run, and its protocol with τ²'s defaults. Every
 * configuration problem (unknown provider, missing API key, missing upstream texts) surfaces here,
 * before any conversation starts or any money is spent.
 */
export function buildParticipants(spec: ParticipantsSpec): Participants {
  const { agent: agentModel, user: userModel, judge: judgeModel, noCustomer, ...settings } = spec;
  const maker = participantMaker(settings, {
    agent: agentModel.model,
    ...(userModel ? { user: userModel.model } : {}),
  });
  // The agent first: a malformed agent spec is the sentence to show, before what its customer lacks.
  const agent = maker.agent(agentModel);
  const userSpec = customerSpecFor(agentModel.model, userModel?.model, noCustomer);
  const user = maker.customer({ ...userModel, model: userSpec });
  const judge = judgeModel ? maker.judge(judgeModel) : undefined;
  const recordedArgs = (model: string, args: LlmArgs | undefined): Record<string, unknown> =>
    isScriptedSpec(model) || model.startsWith("module:") || isRemoteAgentSpec(model) || args === undefined
      ? {}
      : args;
  return {
    agent,
    user,
    protocol: maker.protocol,
    agentLlmArgs: recordedArgs(agentModel.model, maker.effectiveArgs(agentModel.args)),
    userLlmArgs: recordedArgs(userSpec, maker.effectiveArgs(userModel?.args)),
    ...(judge ? { judge } : {}),
    ...(spec.toolOverrides ? { toolOverrides: spec.toolOverrides } : {}),
    scriptedDemo: isScriptedSpec(agentModel.model) && isScriptedSpec(userSpec),
    ...(maker.cache ? { cache: maker.cache } : {}),
  };
}
