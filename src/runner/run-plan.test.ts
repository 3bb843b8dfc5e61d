import { describe, expect, it } from "vitest";
import { builtinDomains } from "../domains/registry.js";
import { DomainData } from "../formats/tau2/domain-data.js";
import { tau2DataDir } from "../testing/tau2-fixtures.js";
import { planRun, selectRunTasks, selectTasksOfDomains, trialSeeds, type TaskSource } from "./run-plan.js";

const mock = new DomainData(builtinDomains.get("mock")!, tau2DataDir());
const telecom = builtinDomains.has("telecom")
  ? new DomainData(builtinDomains.get("telecom")!, tau2DataDir())
  : undefined;
const ids = (tasks: { id: string }[]) => tasks.map((t) => t.id);

describe("selectRunTasks", () => {
  it("takes the split, then the ids in split order, then the first N", () => {
    expect(ids(selectRunTasks(mock, { split: "base" }))).toEqual(mock.splits!.base);
    expect(
      ids(selectRunTasks(mock, { split: "base", taskIds: ["impossible_task_1", "create_task_1"] })),
    ).toEqual(["create_task_1", "impossible_task_1"]);
    expect(ids(selectRunTasks(mock, { split: "base", numTasks: 2 }))).toEqual(mock.splits!.base!.slice(0, 2));
  });

  it.runIf(telecom)("telecom's default split is base (114 tasks), not the 2285 of tasks.json", () => {
    expect(selectRunTasks(telecom!, { split: "base" })).toHaveLength(114);
    expect(selectRunTasks(telecom!, { split: "small" })).toHaveLength(20);
  });

  it("names unknown splits and ids, with the fix", () => {
    expect(() => selectRunTasks(mock, { split: "test" })).toThrow(
      'mock task split "test" is not known (known: base)',
    );
    expect(() => selectRunTasks(mock, { split: "base", taskIds: ["create_task_2", "nope"] })).toThrow(
      /mock task "create_task_2" is not known .*did you mean "create_task_1"\?.*Also unknown: nope/,
    );
    // The default split falls back to all tasks where a domain has no such split.
    expect(selectRunTasks(mock, { split: "train" }, { splitIsDefault: true })).toHaveLength(
      mock.tasks.length,
    );
  });
});

describe("selectTasksOfDomains", () => {
  const source = (name: string, ids: string[]): TaskSource => ({
    domain: { name },
    tasks: ids.map((id) => ({ id }) as never),
    splits: undefined,
    tasksOfSplit: () => [],
  });
  const airline = source("airline", ["0", "1", "2"]);
  const retail = source("retail", ["0", "5", "6"]);

  it("applies each task id to the domains that have it", () => {
    const [a, r] = selectTasksOfDomains(
      [airline, retail],
      { split: "base", taskIds: ["5", "0", "1"] },
      { splitIsDefault: true },
    );
    expect([ids(a!), ids(r!)]).toEqual([
      ["0", "1"],
      ["0", "5"],
    ]);
  });

  it("refuses an id no domain has, and a domain no id names", () => {
    expect(() => selectTasksOfDomains([airline, retail], { taskIds: ["0", "9"] })).toThrow(
      /^task "9" is not known \(known: 0, 1, 2, 5, 6\).* No domain of the run \(airline, retail\) has it\.$/,
    );
    expect(() => selectTasksOfDomains([airline, retail], { taskIds: ["1"] })).toThrow(
      "--task-ids names no retail task; add some of its ids or drop retail from --domain",
    );
  });
});

describe("planRun", () => {
  it("orders jobs trial-major, as τ² does, with CPython-exact trial seeds", () => {
    const tasks = selectRunTasks(mock, { split: "base", numTasks: 2 });
    const plan = planRun({ domains: [{ domain: "mock", tasks }], numTrials: 3, seed: 300 });
    expect(plan.jobs.map((j) => `${j.taskId}/${j.trial}`)).toEqual([
      "create_task_1/0",
      "create_task_1_with_env_assertions/0",
      "create_task_1/1",
      "create_task_1_with_env_assertions/1",
      "create_task_1/2",
      "create_task_1_with_env_assertions/2",
    ]);
    expect(plan.trialSeeds).toEqual([626729, 373753, 361454]);
    expect(() => planRun({ domains: [], numTrials: 0, seed: 1 })).toThrow(
      "--num-trials 0 must be a whole number ≥ 1",
    );
  });
});

describe("trialSeeds", () => {
  it("equals τ²'s seeds: CPython's random.seed(seed), then randint(0, 1000000) per trial", () => {
    // Oracle: CPython 3.11, `random.seed(s); [random.randint(0, 1000000) for _ in range(6)]`.
    expect(trialSeeds(300, 6)).toEqual([626729, 373753, 361454, 1567, 514337, 363271]);
    expect(trialSeeds(-7, 3)).toEqual([339563, 993908, 158176]);
  });

  it("a prefix of the trials keeps the same seeds (more trials only add seeds)", () => {
    expect(trialSeeds(300, 2)).toEqual([626729, 373753]);
  });
});
