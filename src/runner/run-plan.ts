import { ConfigError, UnknownNameError } from "../core/errors.js";
import type { Task } from "../core/task.js";
import type { JobKey } from "../core/job-queue.js";
import { PythonRandom } from "../python/py-random.js";

/** Which tasks of a domain a run takes (τ² `--task-split-name`, `--task-ids`, `--num-tasks`). */
export interface TaskSelection {
  /** A split name; `undefined` takes every task. */
  split?: string;
  taskIds?: readonly string[];
  numTasks?: number;
}

/** What task selection needs of a domain's data. */
export interface TaskSource {
  readonly domain: { readonly name: string };
  readonly tasks: Task[];
  readonly splits: Readonly<Record<string, readonly string[]>> | undefined;
  tasksOfSplit(split: string): Task[];
}

/**
 * The tasks of one domain a run takes, as τ² picks them: the split's tasks (all tasks when the split
 * is the default `base` and the domain has no such split), then only `taskIds` (kept in the split's
 * order), then the first `numTasks`.
 */
export function selectRunTasks(
  source: TaskSource,
  selection: TaskSelection,
  options: { splitIsDefault?: boolean } = {},
): Task[] {
  let tasks: Task[];
  const defaultMissing =
    options.splitIsDefault && (source.splits === undefined || !(selection.split! in source.splits));
  if (selection.split === undefined || defaultMissing) {
    tasks = source.tasks;
  } else if (source.splits === undefined) {
    throw new UnknownNameError(
      `${source.domain.name} task split`,
      selection.split,
      [],
      `The domain has no split file; leave out --task-split-name to run all its tasks.`,
    );
  } else {
    tasks = source.tasksOfSplit(selection.split);
  }
  if (selection.taskIds !== undefined) {
    const wanted = new Set(selection.taskIds);
    const inSet = new Set(tasks.map((t) => t.id));
    const missing = selection.taskIds.filter((id) => !inSet.has(id));
    if (missing.length > 0) {
      const inDomain = new Set(source.tasks.map((t) => t.id));
      const where =
        selection.split !== undefined && missing.every((id) => inDomain.has(id))
          ? ` (they exist, but not in split "${selection.split}"; pass --task-split-name full or another split)`
          : "";
      throw new UnknownNameError(
        `${source.domain.name} task`,
        missing[0]!,
        tasks.map((t) => t.id),
        `${missing.length > 1 ? `Also unknown: ${missing.slice(1).join(", ")}. ` : ""}List them with \`passk tasks list --domain ${source.domain.name}\`${where}.`,
      );
    }
    tasks = tasks.filter((t) => wanted.has(t.id));
  }
  if (selection.numTasks !== undefined) {
    if (!Number.isInteger(selection.numTasks) || selection.numTasks < 1) {
      throw new ConfigError(`--num-tasks ${selection.numTasks} must be a whole number ≥ 1`);
    }
    tasks = tasks.slice(0, selection.numTasks);
  }
  if (tasks.length === 0) {
    throw new ConfigError(`no ${source.domain.name} tasks to run with this selection; check the task flags`);
  }
  return tasks;
}

/**
 * The tasks of each domain of a run. With several domains a task id applies to the domains that have
 * it; an id no domain has, or a domain none of the ids names, is an error.
 */
export function selectTasksOfDomains(
  sources: readonly TaskSource[],
  selection: TaskSelection,
  options: { splitIsDefault?: boolean } = {},
): Task[][] {
  if (sources.length === 1 || selection.taskIds === undefined) {
    return sources.map((source) => selectRunTasks(source, selection, options));
  }
  const { taskIds, ...rest } = selection;
  const pools = sources.map((source) => selectRunTasks(source, { ...rest, numTasks: undefined }, options));
  const known = pools.map((tasks) => new Set(tasks.map((t) => t.id)));
  const nowhere = taskIds.filter((id) => !known.some((ids) => ids.has(id)));
  if (nowhere.length > 0) {
    throw new UnknownNameError(
      "task",
      nowhere[0]!,
      [...new Set(pools.flatMap((tasks) => tasks.map((t) => t.id)))],
      `No domain of the run (${sources.map((s) => s.domain.name).join(", ")}) has it.`,
    );
  }
  return sources.map((source, i) => {
    const ids = taskIds.filter((id) => known[i]!.has(id));
    if (ids.length === 0) {
      throw new ConfigError(
        `--task-ids names no ${source.domain.name} task; add some of its ids or drop ${source.domain.name} from --domain`,
      );
    }
    return selectRunTasks(source, { ...selection, taskIds: ids }, options);
  });
}

/** One domain of a run with the tasks it takes. */
export interface PlannedDomain {
  domain: string;
  tasks: readonly Task[];
}

/** A run's jobs: every (domain, task, trial), each trial with its seed. */
export interface RunPlan {
  numTrials: number;
  /** The run's seed (τ² `--seed`, default 300). */
  seed: number;
  /** Seed of trial t is `trialSeeds[t]`, the same for every task (as τ²). */
  trialSeeds: number[];
  domains: readonly PlannedDomain[];
  /** Trial-major, as τ² orders its work: trial 0 of every task, then trial 1… */
  jobs: Array<Omit<JobKey, "runId">>;
}

/**
 * The plan of a run: tasks × trials, with per-trial seeds derived from `seed` exactly as τ²-bench does
 * (so a trial's agent and user get the seed they would get from `tau2 run`).
 * @example planRun({ domains: [{ domain: "mock", tasks }], numTrials: 4, seed: 300 }).jobs.length // tasks.length * 4
 */
export function planRun(options: {
  domains: readonly PlannedDomain[];
  numTrials: number;
  seed: number;
}): RunPlan {
  const { numTrials, seed, domains } = options;
  if (!Number.isInteger(numTrials) || numTrials < 1) {
    throw new ConfigError(`--num-trials ${numTrials} must be a whole number ≥ 1`);
  }
  if (!Number.isSafeInteger(seed)) throw new ConfigError(`--seed ${seed} must be a whole number`);
  const jobs: RunPlan["jobs"] = [];
  for (let trial = 0; trial < numTrials; trial++) {
    for (const { domain, tasks } of domains) {
      for (const task of tasks) jobs.push({ domain, taskId: task.id, trial });
    }
  }
  return { numTrials, seed, trialSeeds: trialSeeds(seed, numTrials), domains, jobs };
}

/**
 * The per-trial seeds τ²-bench derives from a run's seed: `random.seed(seed)`, then one
 * `randint(0, 1_000_000)` per trial. Trial `t` (from 0) of every task uses `seeds[t]`.
 * @example trialSeeds(300, 3) // [626729, 373753, 361454], as CPython gives
 */
export function trialSeeds(seed: number, numTrials: number): number[] {
  const random = new PythonRandom(seed);
  return Array.from({ length: numTrials }, () => random.randint(0, 1_000_000));
}
