import { readFileSync, existsSync } from "node:fs";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import type { z } from "zod";
import { InvalidInputFileError, UnknownNameError } from "../../core/errors.js";
import type { Task, TaskSplits } from "../../core/task.js";
import type { Domain } from "../../env/domain.js";
import { World, type WorldOptions } from "../../env/world.js";
import { parseJsonFile, validateInputFile } from "../json-file.js";
import { parseOrderedJson } from "../ordered-json.js";
import { readSplitsFile, readTasksFile } from "./tasks-file.js";

/**
 * A domain together with its data from one data directory: the parsed, frozen databases, the policy
 * and (lazily) its tasks. Parsing happens once; every world shares these databases.
 */
export class DomainData<ADB = unknown, UDB = unknown> {
  readonly domain: Domain<ADB, UDB>;
  /** The data directory this was loaded from (holds `user_simulator/` too). */
  readonly dataDir: string;
  readonly folder: string;
  readonly agentDb: ADB;
  readonly userDb: UDB | undefined;
  readonly policy: string;
  readonly soloPolicy: string | undefined;
  readonly tasksFile: string;
  #tasks: Task[] | undefined;
  #splits: TaskSplits | undefined | null;

  constructor(domain: Domain<ADB, UDB>, dataDir: string, options: { tasksFile?: string } = {}) {
    this.domain = domain;
    this.dataDir = dataDir;
    this.folder = path.join(dataDir, domain.data.folder);
    if (!existsSync(this.folder)) {
      throw new InvalidInputFileError(
        this.folder,
        [{ path: "(folder)", message: `the data directory has no ${domain.data.folder}/ folder` }],
        `run \`passk data pull\`, or point --data at a directory that contains ${domain.data.folder}/.`,
      );
    }
    this.agentDb = readDb(path.join(this.folder, domain.data.db), domain.agent.db);
    this.userDb =
      domain.user && domain.data.userDb
        ? readDb(path.join(this.folder, domain.data.userDb), domain.user.db)
        : undefined;
    const read = (relative: string) => readText(path.join(this.folder, relative));
    const { policy, soloPolicy } = domain.data;
    this.policy = typeof policy === "function" ? policy(read) : read(policy);
    this.soloPolicy =
      soloPolicy === undefined
        ? undefined
        : typeof soloPolicy === "function"
          ? soloPolicy(read)
          : read(soloPolicy);
    this.tasksFile = options.tasksFile ?? path.join(this.folder, domain.data.tasks);
  }

  /** The domain's tasks (parsed and validated on first use). */
  get tasks(): Task[] {
    this.#tasks ??= readTasksFile(this.tasksFile);
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

  /** A fresh world over the pristine databases (O(1): the databases are shared, copy-on-write). */
  newWorld(options: WorldOptions = {}): World<ADB, UDB> {
    return new World(this.domain, { agent: this.agentDb, user: this.userDb }, options);
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
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

/** Read and validate a database file (`.json` keeping key order, or `.toml`). */
export function readDb<T>(file: string, schema: z.ZodType<T>): T {
  const text = readText(file);
  const syntaxHint = "fix the syntax of the database file.";
  const raw = file.endsWith(".toml")
    ? parseTomlFile(text, file, syntaxHint)
    : parseJsonFile(text, file, syntaxHint, parseOrderedJson);
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
