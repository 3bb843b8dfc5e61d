import { Option, type Command } from "commander";
import { DEFAULT_MAX_AGENT_MESSAGE_BYTES } from "../agents/remote/index.js";
import { ConfigError } from "../core/errors.js";
import { parseLlmArgs } from "../llm/index.js";
import { DEFAULT_CALL_SETTINGS, type ModelSpec, type RunSpec } from "../runner/run-spec.js";
import { SCRIPTED_DEMO_NOTICE } from "../runner/run.js";

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
  /** One of commander's choices for `--protocol`. */
  protocol?: "tau2" | "passk";
  upstream?: string;
}

/** Which model flags a command takes: a run's agent and customer, or the models a playground offers. */
export interface ModelFlagsOptions {
  user?: boolean;
  judge?: boolean;
  /** `passk serve`: `--agent-llm`/`--user-llm` list the models offered, scripted:gold by default. */
  offered?: boolean;
}

export function withModelFlags(command: Command, options: ModelFlagsOptions = {}): Command {
  if (options.offered)
    command
      .option("--agent-llm <spec...>", "agent models the playground offers (first = default)", [
        "scripted:gold",
      ])
      .option(
        "--user-llm <spec...>",
        "simulated customers the playground offers (scripted:gold answers only the scripted agent; any other agent needs a model here, or you play the customer)",
        ["scripted:gold"],
      );
  else
    command.requiredOption(
      "--agent-llm <model>",
      "agent: <provider>:<model> (openai, anthropic, openai-compatible), scripted:gold, module:<path> (your own Agent), " +
        "or your agent running elsewhere: a2a:<URL> (Agent2Agent) or http:<URL> (passk's HTTP protocol), its tools served over MCP",
    );
  command
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
        options.offered
          ? "tau2 (default): playground conversations on τ²'s domains run as τ²-bench runs them; passk: passk's own prompt and tool descriptions"
          : "tau2: run as τ²-bench does (its prompt and tool texts, temperature 0, its handling of bad model output; " +
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
    .option(
      "--max-agent-message-bytes <n>",
      `largest reply or tool-call arguments a remote agent (a2a:, http:) may send; a larger one is the agent's error (default: ${DEFAULT_MAX_AGENT_MESSAGE_BYTES})`,
    );
  if (options.user !== false) {
    if (!options.offered)
      command.option(
        "--user-llm <model>",
        "the simulated customer: <provider>:<model>, or scripted:gold (the default only with --agent-llm scripted:gold; any other agent needs one)",
      );
    command
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
export function callAttempts(text: string): number {
  const attempts = Number(text);
  if (!Number.isInteger(attempts) || attempts < 1 || attempts > 100)
    throw new ConfigError(
      `--max-retries "${text}" is not a whole number from 1 to 100; e.g. --max-retries 5`,
    );
  return attempts;
}

/** `--max-agent-message-bytes`: a whole number of bytes from 1 KiB to 32 MiB. */
export function agentMessageBytes(text: string): number {
  const bytes = Number(text);
  if (!/^\d+$/.test(text.trim()) || bytes < 1024 || bytes > 32 * 1024 * 1024)
    throw new ConfigError(
      `--max-agent-message-bytes "${text}" is not a whole number of bytes from 1024 to 33554432; e.g. --max-agent-message-bytes ${DEFAULT_MAX_AGENT_MESSAGE_BYTES}`,
    );
  return bytes;
}

/** The participants whose model a flag names: `--agent-llm`, `--user-llm`, `--judge-llm`, `--reranker-llm`. */
type Role = "agent" | "user" | "judge" | "reranker";

/** A participant's `--<role>-llm-base-url` and `--<role>-llm-args`, as commander names them. */
type RoleFlags = { [R in Role as `${R}LlmBaseUrl`]?: string } & { [R in Role as `${R}LlmArgs`]?: string };

/** One participant's model (given, as `passk serve` offers several) with its flags' base URL and call settings parsed. */
export function modelSpecOfFlags(flags: RoleFlags, role: Role, model: string): ModelSpec {
  const baseUrl = flags[`${role}LlmBaseUrl`];
  const args = flags[`${role}LlmArgs`];
  return {
    model,
    ...(baseUrl ? { baseUrl } : {}),
    ...(args !== undefined ? { args: parseLlmArgs(args, `--${role}-llm-args`) } : {}),
  };
}

/** How every model is called, and the judge, as the run spec's settings: numbers checked, files by path. */
export type CallSettings = Pick<
  RunSpec,
  | "judge"
  | "protocol"
  | "upstream"
  | "agentPromptTemplate"
  | "toolSpec"
  | "prices"
  | "cache"
  | "promptCache"
  | "timeoutSeconds"
  | "maxRetries"
  | "maxAgentMessageBytes"
>;

/** The model flags but the agent's and the customer's as the spec's call settings. */
export function callSettingsOfFlags(flags: Omit<Partial<ModelFlags>, "agentLlm" | "userLlm">): CallSettings {
  return {
    ...(flags.judgeLlm !== undefined ? { judge: modelSpecOfFlags(flags, "judge", flags.judgeLlm) } : {}),
    ...(flags.protocol !== undefined ? { protocol: flags.protocol } : {}),
    ...(flags.upstream !== undefined ? { upstream: flags.upstream } : {}),
    ...(flags.agentPromptTemplate ? { agentPromptTemplate: flags.agentPromptTemplate } : {}),
    ...(flags.toolSpec ? { toolSpec: flags.toolSpec } : {}),
    ...(flags.prices ? { prices: flags.prices } : {}),
    ...(flags.cache ? { cache: flags.cache } : {}),
    ...(flags.promptCache === false ? { promptCache: false } : {}),
    timeoutSeconds: callTimeoutMs(flags.timeout ?? String(DEFAULT_CALL_SETTINGS.timeoutSeconds)) / 1000,
    maxRetries: callAttempts(flags.maxRetries ?? String(DEFAULT_CALL_SETTINGS.maxAttempts)),
    ...(flags.maxAgentMessageBytes !== undefined
      ? { maxAgentMessageBytes: agentMessageBytes(flags.maxAgentMessageBytes) }
      : {}),
  };
}

export const SCRIPTED_DEMO_BANNER = SCRIPTED_DEMO_NOTICE;
