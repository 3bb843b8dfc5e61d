import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { tau2DataDir } from "../testing/tau2-fixtures.js";
import type { TaskComponents } from "./components-schema.js";
import { composeTasks, type ComposedTask } from "./compose-tasks.js";
import { formatPyJson } from "../python/py-json-indent.js";
import { generateTasks } from "./generate-tasks.js";
import { readTaskComponents } from "./read-task-components.js";

// Oracle: the official telecom files, and the figures the reference README gives for them.
const telecom = path.join(tau2DataDir(), "telecom");

describe("telecom components compose the official task files", () => {
  let components: TaskComponents;
  let generated: ComposedTask[];
  beforeAll(() => {
    components = readTaskComponents(path.join(telecom, "task_components.json"));
    generated = composeTasks(components);
  });

  const countBy = (tasks: ComposedTask[], key: (t: ComposedTask) => string) => {
    const counts: Record<string, number> = {};
    for (const task of tasks) counts[key(task)] = (counts[key(task)] ?? 0) + 1;
    return counts;
  };

  it("generates 3405 tasks: mobile data 382, service 47, MMS 2976, in that order", () => {
    expect(generated).toHaveLength(3405);
    expect(countBy(generated, (t) => t.manager)).toEqual({
      mobile_data_issue: 382,
      service_issue: 47,
      mms_issue: 2976,
    });
    expect(generated.map((t) => t.manager).indexOf("service_issue")).toBe(382);
  });

  it("writes tasks_small.json byte for byte (20 tasks)", () => {
    const text = formatPyJson(generateTasks(components, { set: "tasks_small" }).map((t) => t.task));
    expect(text).toBe(readFileSync(path.join(telecom, "tasks_small.json"), "utf8"));
  });

  it("writes tasks.json byte for byte by default (2285 tasks), JSON-equal in order", () => {
    const official = readFileSync(path.join(telecom, "tasks.json"), "utf8");
    const tasks = generateTasks(components);
    expect(tasks).toHaveLength(2285);
    expect(countBy(tasks, (t) => t.manager)).toEqual({
      mobile_data_issue: 254,
      service_issue: 47,
      mms_issue: 1984,
    });
    expect(countBy(tasks, (t) => t.personaKey)).toEqual({ None: 769, Easy: 760, Hard: 756 });
    expect(tasks.filter((t) => !t.fixable)).toHaveLength(32);
    const text = formatPyJson(tasks.map((t) => t.task));
    // Compare ids first: a failure then names the first task that differs instead of a 14 MB diff.
    const officialTasks = JSON.parse(official) as Array<{ id: string }>;
    expect(tasks.map((t) => t.task.id)).toEqual(officialTasks.map((t) => t.id));
    expect(tasks.map((t) => t.task)).toEqual(officialTasks);
    expect(text.length).toBe(official.length);
    expect(text === official).toBe(true);
  });

  it("keeps whole floats as Python writes them", () => {
    const task = generated.find((t) => t.task.id === "[mobile_data_issue]data_usage_exceeded[PERSONA:Easy]")!;
    const text = formatPyJson(task.task);
    expect(text).toContain('"gb_amount": 2.0');
    expect(text).toContain('"expected_amount": 2.0');
    expect(text).toContain('"data_used_gb": 15.1');
    expect(text).toContain('"expected_speed": 200');
  });
});
