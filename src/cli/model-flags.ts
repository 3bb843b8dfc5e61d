import { SCRIPTED_DEMO_NOTICE } from "../runner/run.js";
import type { CallLimiter } from "../llm/call-limits.js";
import path from "node:path";
import { Option, type Command } from "commander";
import type { RunParticipants } from "../runner/run.js";
import { createAgent, isRemoteAgentSpec, isScriptedSpec, type ModelOptions } from "../agents/create-agent.js";
import { readAgentPromptTemplates } from "../agents/agent-prompt.js";
import { DEFAULT_MAX_AGENT_MESSAGE_BYTES } from "../agents/remote/index.js";
import { createJudge } from "../judge/create-judge.js";
import { ConfigError } from "../core/errors.js";
import type { AnyDomain } from "../env/domain.js";
import {
  loadReferenceTexts,
  missingUpstreamMessage,
  resolveUpstreamDir,
} from "../formats/tau2/upstream/reference-texts.js";
import {
  loadPriceOverrides,
  openResponseCache,
  parseLlmArgs,
  type LlmArgs,
  type ModelCallObserver,
  type ResponseCache,
} from "../llm/index.js";
import type { ConversationProtocol } from "../runner/simulation-setup.js";
import { createUserSimulator, customerSpecFor, readUserGuidelines } from "../users/create-user.js";
import type { CliContext } from "./context.js";
import { readToolSpecFile } from "./commands/tools.js";

/** Flags naming the models of a conversation (the reference's names where it has them). */
export interface ModelFlags {
  agentLlm: string;
  agentLlmBaseUrl?: string;
  agentLlmArgs?: string;
  userLlm?: string;
  userLlmBaseUrl?: string;
  userLlmArgs?: string;
  judgeLlm?: string;
  judgeLlmBaseUrl?: string;
  judgeLlmArgs?: string;
  agentPromptTemplate?: string;
  toolSpec?: string;
  prices?: string;
  cache?: string | boolean;
  /** `--no-prompt-cache` sets it false: no prompt-cache markers are sent (they are, by default, where providers take them). */
  promptCache?: boolean;
  timeout?: string;
  maxRetries?: string;
  maxAgentMessageBytes?: string;
  protocol?: string;
  upstream?: string;
}

export function withModelFlags(command: Command, options: { user?: boolean; judge?: boolean } = {}): Command {
  command
    .requiredOption(
      "--agent-llm <model>",
      "agent: <provider>:<model> (openai, anthropic, openai-compatible), scripted:gold, module:<path> (your own Agent), " +
        "or your agent running elsewhere: a2a:<URL> (Agent2Agent) or http:<URL> (passk's HTTP protocol), its tools served over MCP",
    )
    .option("--agent-llm-base-url <url>", "base URL for openai-compatible agent models")
    .option("--agent-llm-args <json>", "agent call settings as JSON, e.g. '{\"temperature\":0}'")
    .option(
      "--agent-prompt-template <file>",
      "agent prompt templates (τ² prompt_templates.json format) to reproduce a prompt exactly",
    )
    .option("--tool-spec <file>", "tool descriptions/parameters shown to models, from a τ² tools JSON")
    .addOption(
      new Option(
        "--protocol <name>",
        "tau2: run as τ²-bench does (its prompt and tool texts, temperature 0, its handling of bad model output; " +
          "default on τ²'s domains); passk: passk's own prompt and descriptions, strict argument checks (default on your domains)",
      ).choices(["tau2", "passk"]),
    )
    .option(
      "--upstream <dir>",
      "the upstream τ²-bench source files the τ² protocol reads its texts from (default: $PASSK_TAU2_UPSTREAM, else <data>/upstream)",
    )
    .option("--prices <file>", "price overrides JSON for models the price table lacks")
    .option(
      "--cache [file]",
      "cache model responses in SQLite (default .passk/llm-cache.db) for cheap re-runs",
    )
    .option(
      "--no-prompt-cache",
      "send no prompt-cache markers (sent by default to Anthropic and Bedrock's Claude and Nova: cached prompt tokens cost less; what models are shown stays the same)",
    )
    .option("--timeout <seconds>", "per-request timeout for model calls", "120")
    .option("--max-retries <n>", "attempts per model call on 429/5xx/timeouts", "5")
    .option(
      "--max-agent-message-bytes <n>",
      `largest reply or tool-call arguments a remote agent (a2a:, http:) may send; a larger one is the agent's error (default: ${DEFAULT_MAX_AGENT_MESSAGE_BYTES})`,
    );
  if (options.user !== false) {
    command
      .option(
        "--user-llm <model>",
        "the simulated customer: <provider>:<model>, or scripted:gold (the default only with --agent-llm scripted:gold; any other agent needs one)",
      )
      .option("--user-llm-base-url <url>", "base URL for openai-compatible user models")
      .option("--user-llm-args <json>", "user simulator call settings as JSON");
  }
  if (options.judge !== false) {
    command
      .option("--judge-llm <model>", "model that judges natural-language assertions (NL_ASSERTION)")
      .option("--judge-llm-base-url <url>", "base URL for openai-compatible judge models")
      .option("--judge-llm-args <json>", "judge call settings as JSON");
  }
  return command;
}

/** A run's participants as the flags built them, with the response cache to close after the run. */
export interface Participants extends Omit<RunParticipants, "userGuidelines"> {
  cache?: ResponseCache;
}

/**
 * The protocol conversations run under: `--protocol`, else τ²'s on τ²'s own domains and passk's on
 * yours. τ²'s protocol needs the reference's texts as soon as a model (or your agent) reads them.
 */
export function resolveProtocol(
  flags: Pick<ModelFlags, "protocol" | "upstream" | "agentLlm" | "userLlm">,
  context: CliContext,
  dataDir: string,
  domains: readonly AnyDomain[],
): ConversationProtocol {
  const foreign = domains.filter((d) => d.tau2 === undefined).map((d) => d.name);
  const name = flags.protocol ?? (foreign.length === 0 ? "tau2" : "passk");
  if (name === "passk") return { name };
  if (name !== "tau2") throw new ConfigError(`--protocol "${name}" is not a protocol; use tau2 or passk`);
  if (foreign.length > 0)
    throw new ConfigError(
      `--protocol tau2 runs τ²-bench's own domains as the reference does, and ${foreign.join(", ")} is not one of them; drop --protocol or pass --protocol passk`,
    );
  const modelReads = !isScriptedSpec(flags.agentLlm) || !isScriptedSpec(flags.userLlm ?? "scripted:gold");
  const dir = resolveUpstreamDir(flags.upstream, context.env, dataDir);
  if (dir === undefined) {
    if (modelReads) throw new ConfigError(missingUpstreamMessage("This run"));
    // Scripted participants read no text: the protocol's turn rules apply, no texts are needed.
    return { name };
  }
  return { name, texts: loadReferenceTexts(dir) };
}

/** Node's timers hold 32-bit milliseconds; a longer delay silently becomes 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** `--timeout` in milliseconds: seconds > 0, within what a timer can wait. */
export function callTimeoutMs(text: string): number {
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds * 1000 > MAX_TIMER_MS)
    throw new ConfigError(
      `--timeout "${text}" is not a number of seconds between 0 and ${Math.floor(MAX_TIMER_MS / 1000)} (about 24 days); e.g. --timeout 120`,
    );
  return seconds * 1000;
}

/** `--max-retries`: attempts per model call, a whole number from 1 to 100. */
function callAttempts(text: string): number {
  const attempts = Number(text);
  if (!Number.isInteger(attempts) || attempts < 1 || attempts > 100)
    throw new ConfigError(
      `--max-retries "${text}" is not a whole number from 1 to 100; e.g. --max-retries 5`,
    );
  return attempts;
}

/** `--max-agent-message-bytes`: a whole number of bytes from 1 KiB to 32 MiB. */
function agentMessageBytes(text: string): number {
  const bytes = Number(text);
  if (!/^\d+$/.test(text.trim()) || bytes < 1024 || bytes > 32 * 1024 * 1024)
    throw new ConfigError(
      `--max-agent-message-bytes "${text}" is not a whole number of bytes from 1024 to 33554432; e.g. --max-agent-message-bytes ${DEFAULT_MAX_AGENT_MESSAGE_BYTES}`,
    );
  return bytes;
}

/** τ² calls both models at temperature 0 unless told otherwise (its DEFAULT_LLM_ARGS_AGENT / _USER). */
function withTau2Temperature(text: string | undefined, flag: string): LlmArgs | undefined {
  const args = text === undefined ? {} : parseLlmArgs(text, flag);
  return args.temperature === undefined ? { ...args, temperature: 0 } : args;
}

/**
 * Build the agent, user and judge a command asked for. Every configuration problem (unknown provider,
 * missing API key, bad JSON args, missing upstream texts) surfaces here, before any conversation starts
 * or any money is spent.
 */
export function participantsFromFlags(
  flags: ModelFlags,
  context: CliContext,
  dataDir: string,
  domains: readonly AnyDomain[],
  options: {
    observer?: ModelCallObserver;
    limiter?: CallLimiter;
    /** Solo and `chat` conversations have no simulated customer: none is required. */
    noCustomer?: boolean;
  } = {},
): Participants {
  const protocol = resolveProtocol(flags, context, dataDir, domains);
  const tau2 = protocol.name === "tau2";
  const texts = protocol.name === "tau2" ? protocol.texts : undefined;
  const agentArgs = tau2 ? withTau2Temperature(flags.agentLlmArgs, "--agent-llm-args") : flags.agentLlmArgs;
  const userArgs = tau2 ? withTau2Temperature(flags.userLlmArgs, "--user-llm-args") : flags.userLlmArgs;
  const common: ModelOptions = {
    env: context.env,
    timeoutMs: callTimeoutMs(flags.timeout ?? "120"),
    retry: { maxAttempts: callAttempts(flags.maxRetries ?? "5") },
  };
  if (options.observer) common.observer = options.observer;
  if (flags.prices) common.priceOverrides = loadPriceOverrides(flags.prices);
  if (options.limiter) common.limiter = options.limiter;
  if (flags.promptCache === false) common.promptCache = false;
  let cache: ResponseCache | undefined;
  if (flags.cache) {
    cache = openResponseCache(
      typeof flags.cache === "string" ? flags.cache : path.join(".passk", "llm-cache.db"),
    );
    common.cache = cache;
  }
  const templates = flags.agentPromptTemplate
    ? readAgentPromptTemplates(flags.agentPromptTemplate)
    : texts?.prompts.agent;
  const agent = createAgent(flags.agentLlm, {
    ...common,
    ...(flags.agentLlmBaseUrl ? { baseUrl: flags.agentLlmBaseUrl } : {}),
    ...(agentArgs ? { args: agentArgs } : {}),
    ...(templates ? { templates } : {}),
    ...(texts ? { doneTool: texts.doneTool } : {}),
    ...(context.agentModules ? { modules: context.agentModules } : {}),
    maxAgentMessageBytes: agentMessageBytes(
      flags.maxAgentMessageBytes ?? String(DEFAULT_MAX_AGENT_MESSAGE_BYTES),
    ),
  });
  const userSpec = customerSpecFor(flags.agentLlm, flags.userLlm, options.noCustomer);
  const user = createUserSimulator(userSpec, {
    ...common,
    ...(flags.userLlmBaseUrl ? { baseUrl: flags.userLlmBaseUrl } : {}),
    ...(userArgs ? { args: userArgs } : {}),
    guidelines: () => ({
      ...readUserGuidelines(dataDir),
      ...(texts ? { template: texts.prompts.user.SYSTEM_PROMPT } : {}),
    }),
  });
  const judge = flags.judgeLlm
    ? createJudge(flags.judgeLlm, {
        ...common,
        ...(flags.judgeLlmBaseUrl ? { baseUrl: flags.judgeLlmBaseUrl } : {}),
        ...(flags.judgeLlmArgs ? { args: flags.judgeLlmArgs } : {}),
      })
    : undefined;
  const effectiveArgs = (spec: string, args: string | LlmArgs | undefined): Record<string, unknown> =>
    isScriptedSpec(spec) || spec.startsWith("module:") || isRemoteAgentSpec(spec) || args === undefined
      ? {}
      : typeof args === "string"
        ? parseLlmArgs(args, "--llm-args")
        : args;
  return {
    agent,
    user,
    protocol,
    agentLlmArgs: effectiveArgs(flags.agentLlm, agentArgs),
    userLlmArgs: effectiveArgs(userSpec, userArgs),
    ...(judge ? { judge } : {}),
    ...(flags.toolSpec ? { toolOverrides: readToolSpecFile(flags.toolSpec) } : {}),
    scriptedDemo: isScriptedSpec(flags.agentLlm) && isScriptedSpec(userSpec),
    ...(cache ? { cache } : {}),
  };
}

export const SCRIPTED_DEMO_BANNER = SCRIPTED_DEMO_NOTICE;
