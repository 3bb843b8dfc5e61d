import type { z } from "zod";
import type { LanguageModel } from "../core/llm.js";
import type { EmbeddingCache, TextEmbedderFactory } from "../core/text-embedder.js";
import type { EnvFunctionCall, Task } from "../core/task.js";
import type { SessionState } from "./session.js";
import type { Tool, Toolkit } from "./tool.js";

/** Reads a text file of the domain's data folder (path relative to that folder). */
export type ReadDataFile = (relativePath: string) => string;

/** The environment variables a domain may read (API keys of the services it calls), given by its loader. */
export type DomainEnv = Readonly<Record<string, string | undefined>>;

/**
 * What a world is built for, beyond its databases: the task being run and the domain configuration
 * (with what the domain built for it). Tools read it through their `ToolContext`; the evaluator builds
 * its worlds with the same context as the conversation's.
 */
export interface WorldContext {
  /** The task; undefined outside any task (`passk call`). */
  readonly task?: Task | undefined;
  /** The domain configuration (banking_knowledge: the retrieval config), for domains that have them. */
  readonly config?: string | undefined;
  /** What `DomainConfigs.services` built for that configuration. */
  readonly services?: unknown;
}

/**
 * Named configurations a domain runs under, chosen per run (banking_knowledge: its retrieval configs,
 * `--retrieval-config`): they may change the agent's tools, the policy and what tools search.
 */
export interface DomainConfigs {
  /** What a configuration is called in messages (`retrieval config`). */
  readonly label: string;
  /** The key a gold-replay record names the configuration under (`retrieval_config`). */
  readonly recordKey: string;
  readonly names: readonly string[];
  /** Other spellings accepted for a configuration (`AllTools` → `alltools`). */
  readonly aliases?: Readonly<Record<string, string>>;
  /** The configuration used when none is chosen (the reference's default). */
  readonly default: string;
  /** The configuration used when none is chosen in this environment, when that depends on it; default `default`. */
  defaultFor?(env: DomainEnv): string;
  /**
   * Releases what a conversation's world held outside it (banking_knowledge: its shell sandbox), given its
   * session state, when the conversation ends.
   */
  endConversation?(services: unknown, session: ReadonlyMap<string, unknown>): void;
  /** Why the default is not the reference's (what it would need), if it is not; shown when it is used. */
  defaultNote?(env: DomainEnv): string | undefined;
  /**
   * Why conversations cannot run under a configuration (a tool it offers cannot work here), or
   * undefined: runs and the playground refuse it before the first conversation; replays and single
   * calls still work.
   */
  conversationBlocker?(config: string, ready: ConfigReadiness): string | undefined;
  /**
   * The domain's documents that best match a person's query (the playground's knowledge-base search),
   * best first, from what `services` built; domains without documents leave it out.
   */
  searchDocuments?(services: unknown, query: string, limit: number): DocumentHit[];
  /**
   * What the tools of a configuration read (a knowledge base, search backends), built once per loaded
   * data and configuration: build expensive parts lazily, a world may never search.
   */
  services?(context: DomainServicesContext): unknown;
}

/**
 * What the loader of a domain's data gives the services of a configuration: the data, the run's
 * choices, and what the tools need from outside the domain (models, the reference's texts, a cache,
 * the environment) — the domain reads nothing of the process itself.
 */
export interface DomainServicesContext {
  /** The domain's data folder. */
  readonly folder: string;
  readonly config: string;
  /** Overrides of the configuration's settings (banking_knowledge: `--retrieval-config-kwargs`). */
  readonly configKwargs: Readonly<Record<string, unknown>> | undefined;
  readonly read: ReadDataFile;
  /** The reference's upstream source files, when at hand (its texts may be shown, see `tau2`). */
  readonly upstreamDir: string | undefined;
  /** The model a configuration's tools call, if one was given (banking_knowledge's LLM reranker). */
  readonly toolModel: LanguageModel | undefined;
  /** The environment the domain may read (banking_knowledge: the shell sandbox's account name). */
  readonly env: DomainEnv;
  /** Builds the embedder a configuration names (banking_knowledge's dense search). */
  readonly textEmbedder: TextEmbedderFactory;
  /** The document-embedding cache, opened on the first call and shared by the loaded data's searches. */
  embeddingCache(): EmbeddingCache;
  /**
   * The discoverable tools (`@is_discoverable_tool`) of a toolkit class in one of the reference's source
   * files, in source order, with their docstrings as `inspect.cleandoc` gives them; undefined when the
   * file is not at hand, is not the pinned commit's version, or cannot be read.
   */
  referenceDiscoverableTools(file: string, className: string): readonly ReferenceToolDoc[] | undefined;
}

/** A tool of the reference's source: its name and its cleaned docstring (empty when it has none). */
export interface ReferenceToolDoc {
  readonly name: string;
  readonly doc: string;
}

/** A document found by `searchDocuments`. */
export interface DocumentHit {
  readonly id: string;
  readonly title: string;
  readonly score: number;
  readonly content: string;
}

/** What a run brings that a configuration's tools may need. */
export interface ConfigReadiness {
  /** A model for the tools to call was given (`--reranker-llm`). */
  readonly toolModel: boolean;
  readonly upstreamDir: string | undefined;
  /** The environment the tools would read their keys from. */
  readonly env: DomainEnv;
}

/** Where a domain's data lives inside a data directory (τ²'s `data/tau2/domains/<name>` layout). */
export interface DomainDataFiles {
  /** Folder inside the data directory, e.g. `airline`. */
  readonly folder: string;
  /** Agent database file (`.json` or `.toml`). */
  readonly db: string;
  /** User (device) database file, for dual-control domains. */
  readonly userDb?: string;
  /**
   * Tasks: a JSON file holding the list, or a folder of one-task files given as `folder/prefix*.json`
   * (banking_knowledge's `tasks/task_*.json`), read in sorted file-name order.
   */
  readonly tasks: string;
  /** Optional split file: split name → task ids. */
  readonly splits?: string;
  /**
   * How the database files are read: `json` (default; the schema says what is a float), or `python`
   * for free-form records, read as Python's `json.load` reads them (floats as `PyFloat`, see
   * python/py-float-value.ts), since no schema can tell `100.0` from `100` there.
   */
  readonly dbFormat?: "json" | "python";
  /**
   * The policy given to the agent: a file name, or a function assembling it from several files — and,
   * for domains with configurations, from the configuration, its services and the task being run.
   */
  readonly policy: string | ((read: ReadDataFile, context?: WorldContext) => string);
  /** The policy for solo mode (agent alone with the ticket), when the domain supports it. */
  readonly soloPolicy?: string | ((read: ReadDataFile) => string);
}

/** The state of one world: the agent-side database and, in dual-control domains, the user's. */
export interface WorldState<ADB = unknown, UDB = unknown> {
  readonly agent: ADB;
  readonly user: UDB | undefined;
  /** Session state outside the databases (`ToolContext.session`): copied with the world, never hashed. */
  readonly session?: SessionState;
}

/**
 * A domain: databases, policy, the agent's toolkit and, for dual-control domains, the user's toolkit
 * (a separate namespace). Built-in domains are defined with this same API.
 */
export interface Domain<ADB = unknown, UDB = unknown> {
  readonly name: string;
  /** One sentence for `passk domains` and the web app. */
  readonly description: string;
  readonly agent: Toolkit<ADB>;
  readonly user?: Toolkit<UDB>;
  /**
   * The user's tools work on the agent's database (τ² banking_knowledge: both toolkits hold one DB
   * object): the world has one database, and the user DB hash is the agent's.
   */
  readonly sharedDb?: boolean;
  readonly data: DomainDataFiles;
  /** Named configurations the domain runs under (see {@link DomainConfigs}). */
  readonly configs?: DomainConfigs;
  /**
   * The tools one side is offered (listed to its model) in a world built for `context`, when that
   * depends on the configuration or the task (banking_knowledge: retrieval tools per config; the
   * customer gets only the task's `user_tools`). Default: the toolkit's `tools`. Any tool of the
   * toolkit (listed or `unlisted`) stays callable by name, as in the reference.
   */
  toolsFor?(side: "agent" | "user", context: WorldContext): readonly Tool<ADB | UDB>[];
  /**
   * Reconciles the two databases after every tool call and every orchestrator step (τ²'s
   * `sync_tools`), e.g. copying a line's status from the carrier's DB to the customer's phone.
   * Works on drafts: mutate `state.agent` / `state.user` in place.
   */
  sync?(state: { agent: ADB; user: UDB | undefined }): void;
  /**
   * Initialization run before a one-off call outside any task (`passk call`), so that a fresh world is
   * a plausible starting point (telecom: a customer with a phone, at home).
   */
  readonly standaloneSetup?: readonly Pick<EnvFunctionCall, "env_type" | "func_name" | "arguments">[];
  /**
   * Where τ²-bench defines this domain's toolkits (the toolkits' `className` inside these files of its
   * repository), so that the τ² protocol can show models the reference's own tool texts. `types` names
   * the domain's schemas by the Python names the reference's tool signatures use (`CabinClass`,
   * `FlightInfo`…). Absent for domains of your own, which run under passk's protocol.
   */
  readonly tau2?: DomainTau2Source;
}

export interface DomainTau2Source {
  readonly agentTools: string;
  readonly userTools?: string;
  readonly types?: ReadonlyMap<string, z.ZodType>;
  /**
   * More classes defining agent tools a world may offer (`Domain.toolsFor`) beyond the toolkit class:
   * banking_knowledge's retrieval mixins (`KBSearchMixin` in retrieval_mixins.py…).
   */
  readonly extraAgentToolkits?: ReadonlyArray<{ readonly file: string; readonly className: string }>;
}

/** A domain of any database types (what registries and the CLI hold). */
export type AnyDomain = Domain<unknown, unknown>;

/**
 * Define a domain.
 *
 * @example
 * export const shop = defineDomain({
 *   name: "shop", description: "A small web shop.",
 *   agent: { db: ShopDbSchema, tools: [getUser, cancelOrder] },
 *   data: { folder: "shop", db: "db.json", tasks: "tasks.json", policy: "policy.md" },
 * });
 */
export function defineDomain<ADB, UDB = never>(domain: Domain<ADB, UDB>): Domain<ADB, UDB> {
  const seen = new Set<string>();
  for (const tool of domain.agent.tools) {
    if (seen.has(tool.name))
      throw new Error(`domain ${domain.name}: agent tool "${tool.name}" is defined twice`);
    seen.add(tool.name);
  }
  if (domain.configs && !domain.configs.names.includes(domain.configs.default))
    throw new Error(
      `domain ${domain.name}: default ${domain.configs.label} "${domain.configs.default}" is not one of its names`,
    );
  if (domain.sharedDb && domain.data.userDb !== undefined)
    throw new Error(`domain ${domain.name}: a shared database (sharedDb) has no user DB file`);
  return Object.freeze(domain);
}
