import type { Command } from "commander";
import type { Agent } from "../core/agent.js";
import { ConfigError, PasskError } from "../core/errors.js";
import { systemFailure } from "../core/system-failure.js";

export { systemFailure };
import type { AnyDomain } from "../env/domain.js";
import type { PerturbationRegistry } from "../perturbations/registry.js";
import { builtinDomains, getDomain } from "../domains/registry.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import { DomainCatalog } from "../formats/tau2/domain-catalog.js";
import { resolveDataDir } from "../formats/tau2/data-dir.js";
import { loadPriceOverrides } from "../llm/index.js";
import { rerankerToolModel } from "../runner/reranker-model.js";
import { parseRetrievalConfigKwargs } from "../knowledge/configs.js";

/** Everything a command needs from its surroundings; tests can swap the streams. */
export interface CliContext {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  domains: ReadonlyMap<string, AnyDomain>;
  /** Agents loaded from modules for `--agent-llm module:<path>`, by spec. */
  agentModules?: ReadonlyMap<string, Agent>;
  /** The perturbations `--perturb` may name: passk's own and those of `--perturbation-module`s. */
  perturbations?: PerturbationRegistry;
  /** Domain data parsed so far (made on first use): every command of this process shares it. */
  catalog?: DomainCatalog;
}

export function defaultContext(): CliContext {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, domains: builtinDomains };
}

/** Load a domain's data once per process (`--data`, `PASSK_DATA_DIR`, or the per-user data dir). */
export function loadDomain(
  context: CliContext,
  name: string,
  options: {
    data?: string;
    tasks?: string;
    retrievalConfig?: string;
    /** `--retrieval-config-kwargs` JSON: validated here (unknown keys refused). */
    retrievalConfigKwargs?: string;
    upstream?: string;
    /** `--reranker-llm` / `--reranker-llm-base-url`: the model the `_reranker` configs rate hits with. */
    rerankerLlm?: string;
    rerankerLlmBaseUrl?: string;
    /** `--prices`: price overrides the reranker's calls are priced with too. */
    prices?: string;
  } = {},
): DomainData {
  const domain = getDomain(name, context.domains);
  const reranker = options.rerankerLlm !== undefined && domain.configs !== undefined;
  // --upstream, else this command's $PASSK_TAU2_UPSTREAM (not the process's).
  const upstream = options.upstream ?? (context.env.PASSK_TAU2_UPSTREAM || undefined);
  return (context.catalog ??= new DomainCatalog()).load(domain, {
    dataDir: resolveDataDir(options.data, context.env),
    ...(options.tasks ? { tasksFile: options.tasks } : {}),
    ...(options.retrievalConfig !== undefined ? { config: options.retrievalConfig } : {}),
    ...(options.retrievalConfigKwargs !== undefined && domain.configs
      ? { configKwargs: parseRetrievalConfigKwargs(options.retrievalConfigKwargs) }
      : {}),
    ...(upstream !== undefined ? { upstream } : {}),
    ...(reranker
      ? rerankerToolModel(
          {
            model: options.rerankerLlm!,
            ...(options.rerankerLlmBaseUrl !== undefined ? { baseUrl: options.rerankerLlmBaseUrl } : {}),
          },
          {
            env: context.env,
            ...(options.prices !== undefined ? { priceOverrides: loadPriceOverrides(options.prices) } : {}),
          },
        )
      : {}),
  });
}

/**
 * Add `--retrieval-config NAME`, the configuration of domains that have them (banking_knowledge: how the
 * agent searches its knowledge base; default bm25). Commands pass it to `loadDomain`.
 */
export function withRetrievalConfigOption(command: Command): Command {
  return command
    .option(
      "--retrieval-config <name>",
      "banking_knowledge's retrieval config (no_knowledge, full_kb, golden_retrieval, bm25, bm25_grep, grep_only, …; default bm25)",
    )
    .option(
      "--retrieval-config-kwargs <json>",
      "overrides of the retrieval config's settings, e.g. '{\"top_k\": 5}' (top_k, grep_top_k, case_sensitive, reranker_min_score)",
    )
    .option(
      "--reranker-llm <model>",
      "the model that rates each search hit under the _reranker retrieval configs, <provider>:<model>",
    )
    .option("--reranker-llm-base-url <url>", "base URL for an openai-compatible reranker model");
}

/**
 * The task ids of a τ² domain's `base` split, when its data is at hand (`dataDir`, else --data's
 * defaults); undefined for other domains or without the data.
 */
export function baseSplitIds(context: CliContext, name: string, dataDir?: string): string[] | undefined {
  const domain = context.domains.get(name);
  if (!domain?.tau2) return undefined;
  try {
    const data = loadDomain(context, name, dataDir !== undefined ? { data: dataDir } : {});
    return data.splits?.base ?? data.tasks.map((t) => t.id);
  } catch {
    return undefined;
  }
}

/** Write one line to stdout. */
export function println(context: CliContext, text = ""): void {
  context.stdout.write(`${text}\n`);
}

/** Add the `--data DIR` option shared by commands that read τ² data. */
/** A flag's whole-number value (0…max), or a ConfigError naming the flag. */
export function wholeNumber(flag: string, text: string, max = Number.MAX_SAFE_INTEGER): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value > max)
    throw new ConfigError(`${flag} "${text}" is not a whole number between 0 and ${max}; e.g. ${flag} 42`);
  return value;
}

export function withDataOption(command: Command): Command {
  return command.option(
    "--data <dir>",
    "τ² data directory (default: $PASSK_DATA_DIR, else the per-user data dir)",
  );
}

/**
 * Render an error for the terminal as one sentence with the fix: PasskErrors by their message, the
 * machine's own failures (a full disk, a permission, a corrupt or read-only store, an input too large
 * to hold) by what they mean. Only a failure nobody foresaw keeps its stack — that is a bug to report.
 */
export function describeError(error: unknown): string {
  if (PasskError.isInstance(error)) return `error: ${error.message}`;
  const known = systemFailure(error);
  if (known !== undefined) return `error: ${known}`;
  if (error instanceof Error) return `error: ${error.stack ?? error.message}`;
  return `error: ${String(error)}`;
}
