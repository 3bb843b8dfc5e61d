import path from "node:path";
import type { Command } from "commander";
import type { Agent, UserSimulator } from "../core/agent.js";
import type { Judge } from "../core/judge.js";
import { createAgent, isScriptedSpec, type ModelOptions } from "../agents/create-agent.js";
import { readAgentPromptTemplates } from "../agents/agent-prompt.js";
import type { ToolOverrides } from "../env/tool-schema.js";
import { createJudge } from "../judge/create-judge.js";
import { loadPriceOverrides, openResponseCache, type ResponseCache } from "../llm/index.js";
import { createUserSimulator, readUserGuidelines } from "../users/create-user.js";
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
  timeout?: string;
  maxRetries?: string;
}

export function withModelFlags(command: Command, options: { user?: boolean; judge?: boolean } = {}): Command {
  command
    .requiredOption(
      "--agent-llm <model>",
      "agent: <provider>:<model> (openai, anthropic, openai-compatible), scripted:gold, or module:<path> (your own Agent)",
    )
    .option("--agent-llm-base-url <url>", "base URL for openai-compatible agent models")
    .option("--agent-llm-args <json>", "agent call settings as JSON, e.g. '{\"temperature\":0}'")
    .option(
      "--agent-prompt-template <file>",
      "agent prompt templates (τ² prompt_templates.json format) to reproduce a prompt exactly",
    )
    .option("--tool-spec <file>", "tool descriptions/parameters shown to models, from a τ² tools JSON")
    .option("--prices <file>", "price overrides JSON for models the price table lacks")
    .option(
      "--cache [file]",
      "cache model responses in SQLite (default .passk/llm-cache.db) for cheap re-runs",
    )
    .option("--timeout <seconds>", "per-request timeout for model calls", "120")
    .option("--max-retries <n>", "attempts per model call on 429/5xx/timeouts", "5");
  if (options.user !== false) {
    command
      .option("--user-llm <model>", "user simulator model, or scripted:gold", "scripted:gold")
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

export interface Participants {
  agent: Agent;
  user: UserSimulator;
  judge?: Judge;
  toolOverrides?: ToolOverrides;
  /** Both sides are scripted: outputs say it is a scripted demo, not a model's score. */
  scriptedDemo: boolean;
  cache?: ResponseCache;
}

/**
 * Build the agent, user and judge a command asked for. Every configuration problem (unknown provider,
 * missing API key, bad JSON args) surfaces here, before any conversation starts or any money is spent.
 */
export function participantsFromFlags(flags: ModelFlags, context: CliContext, dataDir: string): Participants {
  const common: ModelOptions = {
    env: context.env,
    timeoutMs: Number(flags.timeout ?? 120) * 1000,
    retry: { maxAttempts: Math.max(1, Number(flags.maxRetries ?? 5)) },
  };
  if (flags.prices) common.priceOverrides = loadPriceOverrides(flags.prices);
  let cache: ResponseCache | undefined;
  if (flags.cache) {
    cache = openResponseCache(
      typeof flags.cache === "string" ? flags.cache : path.join(".passk", "llm-cache.db"),
    );
    common.cache = cache;
  }
  const agent = createAgent(flags.agentLlm, {
    ...common,
    ...(flags.agentLlmBaseUrl ? { baseUrl: flags.agentLlmBaseUrl } : {}),
    ...(flags.agentLlmArgs ? { args: flags.agentLlmArgs } : {}),
    ...(flags.agentPromptTemplate ? { templates: readAgentPromptTemplates(flags.agentPromptTemplate) } : {}),
    ...(context.agentModules ? { modules: context.agentModules } : {}),
  });
  const userSpec = flags.userLlm ?? "scripted:gold";
  const user = createUserSimulator(userSpec, {
    ...common,
    ...(flags.userLlmBaseUrl ? { baseUrl: flags.userLlmBaseUrl } : {}),
    ...(flags.userLlmArgs ? { args: flags.userLlmArgs } : {}),
    guidelines: () => readUserGuidelines(dataDir),
  });
  const judge = flags.judgeLlm
    ? createJudge(flags.judgeLlm, {
        ...common,
        ...(flags.judgeLlmBaseUrl ? { baseUrl: flags.judgeLlmBaseUrl } : {}),
        ...(flags.judgeLlmArgs ? { args: flags.judgeLlmArgs } : {}),
      })
    : undefined;
  return {
    agent,
    user,
    ...(judge ? { judge } : {}),
    ...(flags.toolSpec ? { toolOverrides: readToolSpecFile(flags.toolSpec) } : {}),
    scriptedDemo: isScriptedSpec(flags.agentLlm) && isScriptedSpec(userSpec),
    ...(cache ? { cache } : {}),
  };
}

export const SCRIPTED_DEMO_BANNER =
  "scripted demo: scripted:gold plays the task's gold actions — this is not a model's score";
