import type { Command } from "commander";
import type { DomainData } from "../formats/tau2/domain-data.js";
import { parseRetrievalConfigKwargs } from "../knowledge/configs.js";
import { loadPriceOverrides } from "../llm/index.js";
import { loadDomainData, type DomainLoadSpec } from "../runner/run-assembly.js";
import { assemblyOf, type CliContext } from "./context.js";
import { modelSpecOfFlags } from "./model-flags.js";

/** The flags that say where a domain's data comes from and how it is set up. */
export interface DomainFlags {
  data?: string;
  tasks?: string;
  retrievalConfig?: string;
  /** `--retrieval-config-kwargs` JSON: validated here (unknown keys refused). */
  retrievalConfigKwargs?: string;
  upstream?: string;
  rerankerLlm?: string;
  rerankerLlmBaseUrl?: string;
  /** `--prices`: price overrides the reranker's calls are priced with too. */
  prices?: string;
}

/** The retrieval flags as the library's domain load settings. */
export function retrievalOfFlags(
  flags: DomainFlags,
): Pick<DomainLoadSpec, "retrievalConfig" | "retrievalConfigKwargs" | "reranker"> {
  return {
    ...(flags.retrievalConfig !== undefined ? { retrievalConfig: flags.retrievalConfig } : {}),
    ...(flags.retrievalConfigKwargs !== undefined
      ? { retrievalConfigKwargs: parseRetrievalConfigKwargs(flags.retrievalConfigKwargs) }
      : {}),
    ...(flags.rerankerLlm !== undefined
      ? { reranker: modelSpecOfFlags(flags, "reranker", flags.rerankerLlm) }
      : {}),
  };
}

/** A domain's data as the flags say (`--data`, `PASSK_DATA_DIR`, or the per-user data dir), through the library. */
export function loadDomain(context: CliContext, name: string, flags: DomainFlags = {}): DomainData {
  return loadDomainData(
    name,
    {
      ...(flags.data !== undefined ? { dataDir: flags.data } : {}),
      ...(flags.tasks !== undefined ? { tasksFile: flags.tasks } : {}),
      ...(flags.upstream !== undefined ? { upstream: flags.upstream } : {}),
      ...retrievalOfFlags(flags),
    },
    {
      ...assemblyOf(context),
      ...(flags.prices !== undefined ? { priceOverrides: loadPriceOverrides(flags.prices) } : {}),
    },
  );
}

/**
 * The task ids of a τ² domain's `base` split, when its data is at hand (`dataDir`, else --data's
 * defaults); undefined for other domains or without the data.
 */
export function baseSplitIds(context: CliContext, name: string, dataDir?: string): string[] | undefined {
  if (!context.domains.get(name)?.tau2) return undefined;
  try {
    const data = loadDomain(context, name, dataDir !== undefined ? { data: dataDir } : {});
    return data.splits?.base ?? data.tasks.map((t) => t.id);
  } catch {
    return undefined;
  }
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

/** Domain data as the CLI loads it (its catalog, `--data`'s defaults), for the library's loaders. */
export const domainDataOf = (context: CliContext) => (name: string, dataDir: string | undefined) =>
  loadDomain(context, name, dataDir !== undefined ? { data: dataDir } : {});
