import path from "node:path";
import type { AgentPromptTemplates } from "../agents/agent-prompt.js";
import { createAgent, isRemoteAgentSpec, isScriptedSpec, type ModelOptions } from "../agents/create-agent.js";
import { DEFAULT_MAX_AGENT_MESSAGE_BYTES } from "../agents/remote/index.js";
import type { Agent } from "../core/agent.js";
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
  openResponseCache,
  type LlmArgs,
  type ModelCallObserver,
  type PriceOverrides,
  type ResponseCache,
} from "../llm/index.js";
import { createUserSimulator, customerSpecFor, readUserGuidelines } from "../users/create-user.js";
import type { RunParticipants } from "./run.js";
import type { ConversationProtocol } from "./simulation-setup.js";

/** Model calls' defaults, named once: the CLI's flags, stored run configs and the builder use them. */
export const DEFAULT_CALL_SETTINGS = { timeoutSeconds: 120, maxAttempts: 5 } as const;

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

/**
 * Build the agent, customer and judge of a run, and its protocol with τ²'s defaults. Every
 * configuration problem (unknown provider, missing API key, missing upstream texts) surfaces here,
 * before any conversation starts or any money is spent.
 */
export function buildParticipants(spec: ParticipantsSpec): Participants {
  const userModel = spec.user?.model;
  const { agent: agentModel, user: _user, judge: _judge, ...rest } = spec;
  const protocol = resolveProtocol({
    ...rest,
    agent: agentModel.model,
    ...(userModel ? { user: userModel } : {}),
  });
  const texts = protocol.name === "tau2" ? protocol.texts : undefined;
  const tau2 = protocol.name === "tau2";
  const agentArgs = tau2 ? withTau2Temperature(spec.agent.args) : spec.agent.args;
  const userArgs = tau2 ? withTau2Temperature(spec.user?.args) : spec.user?.args;
  const common: ModelOptions = {
    env: spec.env ?? process.env,
    timeoutMs: (spec.timeoutSeconds ?? DEFAULT_CALL_SETTINGS.timeoutSeconds) * 1000,
    retry: { maxAttempts: spec.maxAttempts ?? DEFAULT_CALL_SETTINGS.maxAttempts },
  };
  if (spec.observer) common.observer = spec.observer;
  if (spec.priceOverrides) common.priceOverrides = spec.priceOverrides;
  if (spec.limiter) common.limiter = spec.limiter;
  if (spec.promptCache === false) common.promptCache = false;
  let cache: ResponseCache | undefined;
  if (spec.cache) {
    cache = openResponseCache(
      typeof spec.cache === "string" ? spec.cache : path.join(".passk", "llm-cache.db"),
    );
    common.cache = cache;
  }
  const templates = spec.agentPromptTemplates ?? texts?.prompts.agent;
  const agent = createAgent(spec.agent.model, {
    ...common,
    ...(spec.agent.baseUrl ? { baseUrl: spec.agent.baseUrl } : {}),
    ...(agentArgs ? { args: agentArgs } : {}),
    ...(templates ? { templates } : {}),
    ...(texts ? { doneTool: texts.doneTool } : {}),
    ...(spec.agentModules ? { modules: spec.agentModules } : {}),
    maxAgentMessageBytes: spec.maxAgentMessageBytes ?? DEFAULT_MAX_AGENT_MESSAGE_BYTES,
  });
  const userSpec = customerSpecFor(spec.agent.model, userModel, spec.noCustomer);
  const user = createUserSimulator(userSpec, {
    ...common,
    ...(spec.user?.baseUrl ? { baseUrl: spec.user.baseUrl } : {}),
    ...(userArgs ? { args: userArgs } : {}),
    guidelines: () => ({
      ...readUserGuidelines(spec.dataDir),
      ...(texts ? { template: texts.prompts.user.SYSTEM_PROMPT } : {}),
    }),
  });
  const judge = spec.judge
    ? createJudge(spec.judge.model, {
        ...common,
        ...(spec.judge.baseUrl ? { baseUrl: spec.judge.baseUrl } : {}),
        ...(spec.judge.args ? { args: spec.judge.args } : {}),
      })
    : undefined;
  const recordedArgs = (model: string, args: LlmArgs | undefined): Record<string, unknown> =>
    isScriptedSpec(model) || model.startsWith("module:") || isRemoteAgentSpec(model) || args === undefined
      ? {}
      : args;
  return {
    agent,
    user,
    protocol,
    agentLlmArgs: recordedArgs(spec.agent.model, agentArgs),
    userLlmArgs: recordedArgs(userSpec, userArgs),
    ...(judge ? { judge } : {}),
    ...(spec.toolOverrides ? { toolOverrides: spec.toolOverrides } : {}),
    scriptedDemo: isScriptedSpec(spec.agent.model) && isScriptedSpec(userSpec),
    ...(cache ? { cache } : {}),
  };
}
