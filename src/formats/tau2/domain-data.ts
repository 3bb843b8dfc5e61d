import { existsSync } from "node:fs";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import type { z } from "zod";
import { ConfigError, InvalidInputFileError, UnknownNameError } from "../../core/errors.js";
import type { LanguageModel } from "../../core/llm.js";
import type { EmbeddingCache, TextEmbedderFactory } from "../../core/text-embedder.js";
import type { Task, TaskSplits } from "../../core/task.js";
import type { DocumentHit, Domain, DomainEnv, ReadDataFile, WorldContext } from "../../env/domain.js";
import { World, type WorldOptions } from "../../env/world.js";
import { DEFAULT_EMBEDDING_CACHE, openEmbeddingCache } from "../../llm/embedding-cache.js";
import { createConfigEmbedder } from "../../llm/text-embedder.js";
import { pyJsonLoads } from "../../python/py-json-loads.js";
import { parseJsonFile, readInputText, validateInputFile } from "../../core/json-file.js";
import { parseOrderedJson } from "../../core/ordered-json.js";
import { referenceDiscoverableTools } from "./upstream/discoverable-tools.js";
import { resolveUpstreamDir } from "./upstream/reference-texts.js";
import { readSplitsFile, readTaskFolder, readTasksFile, taskFolderPattern } from "./tasks-file.js";

export interface DomainDataOptions {
  /** `--tasks FILE`: tasks from this file instead of the domain's own. */
  tasksFile?: string;
  /**
   * The domain configuration to run under (banking_knowledge: `--retrieval-config`); default: the
   * domain's default. An error for a domain without configurations.
   */
  config?: string;
  /** Overrides of the configuration's settings (banking_knowledge: `--retrieval-config-kwargs`). */
  configKwargs?: Readonly<Record<string, unknown>>;
  /**
   * The upstream source files (`--upstream`), whose texts some tools of a configured domain show
   * (banking_knowledge's discoverable tools); default: `$PASSK_TAU2_UPSTREAM`, else `<data dir>/upstream`.
   */
  upstream?: string;
  /** The model a configuration's tools call (banking_knowledge's LLM reranker: `--reranker-llm`). */
  toolModel?: LanguageModel;
  /**
   * The environment the domain and its tools read (API keys, `PASSK_TAU2_UPSTREAM`,
   * `PASSK_EMBEDDING_CACHE`); default: the process's.
   */
  env?: DomainEnv;
  /** Builds the embedders of a configuration's dense search; default: llm's, keys read from `env`. */
  textEmbedder?: TextEmbedderFactory;
  /**
   * The document embeddings kept across runs; default: the file `PASSK_EMBEDDING_CACHE` names, else
   * `.passk/embeddings.db` under the current directory (beside the default store), opened when a dense
   * search first runs.
   */
  embeddingCache?: EmbeddingCache;
}

/**
 * A domain together with its data from one data directory, under one configuration: the parsed, frozen
 * databases, the policy and (lazily) its tasks and the configuration's services. Parsing happens once;
 * every world shares these databases.
 */
export class DomainData<ADB = unknown, UDB = unknown> {
  readonly domain: Domain<ADB, UDB>;
  /** The data directory this was loaded from (holds `user_simulator/` too). */
  readonly dataDir: string;
  readonly folder: string;
  readonly agentDb: ADB;
  readonly userDb: UDB | undefined;
  readonly tasksFile: string;
  /** The configuration the worlds run under (domains with configurations only). */
  readonly config: string | undefined;
  readonly #read: ReadDataFile;
  readonly #upstream: string | undefined;
  readonly #toolModel: LanguageModel | undefined;
  readonly #configKwargs: Readonly<Record<string, unknown>> | undefined;
  readonly #env: DomainEnv;
  readonly #textEmbedder: TextEmbedderFactory;
  #embeddingCache: EmbeddingCache | undefined;
  #services: { value: unknown } | undefined;
  #policy: string | undefined;
  #soloPolicy: { value: string | undefined } | undefined;
  #policies = new WeakMap<Task, string>();
  #tasks: Task[] | undefined;
  #splits: TaskSplits | undefined | null;

  constructor(domain: Domain<ADB, UDB>, dataDir: string, options: DomainDataOptions = {}) {
    this.domain = domain;
    this.dataDir = dataDir;
    this.folder = path.join(dataDir, domain.data.folder);
    const env = (this.#env = options.env ?? process.env);
    this.#textEmbedder = options.textEmbedder ?? ((request) => createConfigEmbedder(request, { env }));
    this.#embeddingCache = options.embeddingCache;
    this.config = resolveConfig(domain, options.config, env);
    this.#toolModel = options.toolModel;
    this.#configKwargs = options.configKwargs;
    if (!existsSync(this.folder)) {
      throw new InvalidInputFileError(
        this.folder,
        [{ path: "(folder)", message: `the data directory has no ${domain.data.folder}/ folder` }],
        `run \`passk data pull\`, or point --data at a directory that contains ${domain.data.folder}/.`,
      );
    }
    const format = domain.data.dbFormat ?? "json";
    this.agentDb = readDb(path.join(this.folder, domain.data.db), domain.agent.db, format);
    this.userDb =
      domain.user && domain.data.userDb
        ? readDb(path.join(this.folder, domain.data.userDb), domain.user.db, format)
        : undefined;
    this.#read = (relative: string) => readText(path.join(this.folder, relative));
    this.#upstream = options.upstream;
    this.tasksFile = options.tasksFile ?? path.join(this.folder, domain.data.tasks);
  }

  /**
   * Refuse, before any conversation, a configuration under which conversations cannot run (a tool it
   * offers cannot work here); replays and single calls do not need this.
   */
  assertConversable(): void {
    const blocker =
      this.config !== undefined
        ? this.domain.configs?.conversationBlocker?.(this.config, {
            toolModel: this.#toolModel !== undefined,
            upstreamDir: this.#upstreamDir(),
            env: this.#env,
          })
        : undefined;
    if (blocker) throw new ConfigError(`${this.domain.name}: ${blocker}.`);
  }

  /** Whether the domain has documents a person can search (`searchDocuments`). */
  get hasDocuments(): boolean {
    return this.domain.configs?.searchDocuments !== undefined;
  }

  /** The documents that best match a person's query, best first; empty for a domain without any. */
  searchDocuments(query: string, limit = 10): DocumentHit[] {
    return this.domain.configs?.searchDocuments?.(this.services, query, limit) ?? [];
  }

  /** Releases what a finished conversation's world held outside it (a shell sandbox). */
  endConversation(world: World<ADB, UDB>): void {
    if (this.#services?.value !== undefined)
      this.domain.configs?.endConversation?.(this.#services.value, world.session);
  }

  /** What the domain built for the configuration (`DomainConfigs.services`), on first use. */
  get services(): unknown {
    if (!this.#services) {
      const build = this.domain.configs?.services;
      const upstreamDir = this.#upstreamDir();
      this.#services = {
        value:
          build && this.config !== undefined
            ? build({
                folder: this.folder,
                config: this.config,
                configKwargs: this.#configKwargs,
                read: this.#read,
                upstreamDir,
                toolModel: this.#toolModel,
                env: this.#env,
                textEmbedder: this.#textEmbedder,
                embeddingCache: () =>
                  (this.#embeddingCache ??= openEmbeddingCache(
                    this.#env.PASSK_EMBEDDING_CACHE || DEFAULT_EMBEDDING_CACHE,
                  )),
                referenceDiscoverableTools: (file, className) =>
                  referenceDiscoverableTools(upstreamDir, file, className),
              })
            : undefined,
      };
    }
    return this.#services.value;
  }

  #upstreamDir(): string | undefined {
    try {
      return resolveUpstreamDir(this.#upstream, this.#env, this.dataDir);
    } catch {
      return undefined;
    }
  }

  /** The agent's policy (outside any task; see {@link policyFor}). */
  get policy(): string {
    this.#policy ??= this.#assemble(this.domain.data.policy, undefined);
    return this.#policy;
  }

  /**
   * The agent's policy for one task: the same text for most domains; banking_knowledge's
   * `golden_retrieval` config inlines the task's required documents.
   */
  policyFor(task: Task | undefined): string {
    const policy = this.domain.data.policy;
    if (task === undefined || typeof policy !== "function" || this.domain.configs === undefined)
      return this.policy;
    let text = this.#policies.get(task);
    if (text === undefined) {
      text = this.#assemble(policy, task);
      this.#policies.set(task, text);
    }
    return text;
  }

  /** The policy for solo mode, when the domain has one. */
  get soloPolicy(): string | undefined {
    if (!this.#soloPolicy) {
      const solo = this.domain.data.soloPolicy;
      this.#soloPolicy = { value: solo === undefined ? undefined : this.#assemble(solo, undefined) };
    }
    return this.#soloPolicy.value;
  }

  #assemble(
    source: string | ((read: ReadDataFile, context?: WorldContext) => string),
    task: Task | undefined,
  ): string {
    if (typeof source !== "function") return this.#read(source);
    if (this.domain.configs === undefined) return source(this.#read);
    return source(this.#read, {
      ...(task !== undefined ? { task } : {}),
      ...(this.config !== undefined ? { config: this.config } : {}),
      services: this.services,
    });
  }

  /** The domain's tasks (parsed and validated on first use). */
  get tasks(): Task[] {
    if (!this.#tasks) {
      const pattern = taskFolderPattern(this.tasksFile);
      this.#tasks = pattern ? readTaskFolder(pattern.folder, pattern.pattern) : readTasksFile(this.tasksFile);
    }
    return this.#tasks;
  }

  /** Named task splits (`base`, `train`, `test`…), or undefined when the domain has no split file. */
  get splits(): TaskSplits | undefined {
    if (this.#splits === undefined) {
      const file = this.domain.data.splits ? path.join(this.folder, this.domain.data.splits) : undefined;
      this.#splits = file && existsSync(file) ? readSplitsFile(file) : null;
    }
    return this.#splits ?? undefined;
  }

  task(id: string): Task {
    const task = this.tasks.find((t) => t.id === id);
    if (!task)
      throw new UnknownNameError(
        `${this.domain.name} task`,
        id,
        this.tasks.map((t) => t.id),
        "List them with `passk tasks list`.",
      );
    return task;
  }

  /** Tasks of a split, in split order. */
  tasksOfSplit(split: string): Task[] {
    const splits = this.splits;
    const ids = splits?.[split];
    if (!ids) throw new UnknownNameError(`${this.domain.name} task split`, split, Object.keys(splits ?? {}));
    const byId = new Map(this.tasks.map((t) => [t.id, t]));
    return ids.map((id) => {
      const task = byId.get(id);
      if (!task)
        throw new UnknownNameError(`${this.domain.name} task (listed in split "${split}")`, id, [
          ...byId.keys(),
        ]);
      return task;
    });
  }

  /**
   * A fresh world over the pristine databases (O(1): the databases are shared, copy-on-write), under
   * this data's configuration; `task` is the task it is built for (its tools may read it).
   */
  newWorld(options: Omit<WorldOptions, "config" | "services"> = {}): World<ADB, UDB> {
    return new World(
      this.domain,
      { agent: this.agentDb, user: this.userDb },
      {
        ...options,
        ...(this.config !== undefined ? { config: this.config, services: this.services } : {}),
      },
    );
  }
}

/**
 * The configuration name a domain runs under: `requested` (or an alias of one), else its default in
 * `env` (the environment its tools would read).
 */
export function resolveConfig(
  domain: { readonly name: string; readonly configs?: Domain["configs"] },
  requested: string | undefined,
  env: DomainEnv,
): string | undefined {
  const configs = domain.configs;
  if (!configs) {
    if (requested !== undefined)
      throw new ConfigError(
        `domain ${domain.name} has no configurations to choose from; leave out --retrieval-config`,
      );
    return undefined;
  }
  if (requested === undefined) return configs.defaultFor?.(env) ?? configs.default;
  const name = configs.aliases?.[requested] ?? requested;
  if (!configs.names.includes(name))
    throw new UnknownNameError(`${domain.name} ${configs.label}`, requested, [...configs.names]);
  return name;
}

function readText(file: string): string {
  try {
    return readInputText(file, "check that the data directory is complete (`passk data pull`).");
  } catch (error) {
    if (error instanceof InvalidInputFileError) throw error;
    const denied = (error as { code?: string }).code === "EACCES";
    throw new InvalidInputFileError(
      file,
      [
        {
          path: "(file)",
          message: denied ? "permission denied: this user may not read it" : (error as Error).message,
        },
      ],
      denied
        ? "fix the file's permissions (or its folder's), or point --data at a copy you can read."
        : "check that the data directory is complete (`passk data pull`).",
    );
  }
}

/**
 * Read and validate a database file (`.json` keeping key order, or `.toml`). `python` reads JSON as
 * Python's `json.load` does, floats as `PyFloat` (free-form records, see `DomainDataFiles.dbFormat`).
 */
export function readDb<T>(file: string, schema: z.ZodType<T>, format: "json" | "python" = "json"): T {
  const text = readText(file);
  const syntaxHint = "fix the syntax of the database file.";
  const raw = file.endsWith(".toml")
    ? parseTomlFile(text, file, syntaxHint)
    : parseJsonFile(text, file, syntaxHint, format === "python" ? (t) => pyJsonLoads(t) : parseOrderedJson);
  return validateInputFile(
    schema,
    raw,
    file,
    "the database does not match the domain's schema; restore the official file with `passk data pull`.",
  );
}

/** A TOML database; smol-toml's message carries the position, so the problem is given at the start. */
function parseTomlFile(text: string, file: string, hint: string): unknown {
  try {
    return parseToml(text);
  } catch (error) {
    throw new InvalidInputFileError(
      file,
      [{ path: "line 1, column 1", message: (error as Error).message }],
      hint,
    );
  }
}
