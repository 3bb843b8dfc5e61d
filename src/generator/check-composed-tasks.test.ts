import path from "node:path";
import { describe, expect, it } from "vitest";
import { builtinDomains } from "../domains/registry.js";
import { DomainData } from "../formats/tau2/domain-data.js";
import { tau2DataDir } from "../testing/tau2-fixtures.js";
import { checkComposedTasks } from "./check-composed-tasks.js";
import { composeTasks } from "./compose-tasks.js";
import { readTaskComponents } from "./read-task-components.js";

describe("checkComposedTasks on telecom", () => {
  const data = new DomainData(builtinDomains.get("telecom")!, tau2DataDir());
  const components = readTaskComponents(path.join(data.folder, "task_components.json"));

  it("passes all 3405 generated tasks (init checks, gold replay, assertions), as the reference README states", () => {
    expect(checkComposedTasks(components, composeTasks(components), () => data.newWorld())).toEqual([]);
  });

  it("reports an init check that does not hold", () => {
    const broken = readTaskComponents(path.join(data.folder, "task_components.json"));
    broken.subtasks.airplane_mode_on!.init_checks[0]!.assert_value = false;
    const tasks = composeTasks(broken).filter(
      (t) => t.task.id === "[service_issue]airplane_mode_on[PERSONA:None]",
    );
    expect(checkComposedTasks(broken, tasks, () => data.newWorld())).toEqual([
      {
        taskId: "[service_issue]airplane_mode_on[PERSONA:None]",
        message:
          'init check assert_airplane_mode_status({"expected_status":true}) of airplane_mode_on fails after 1 init action(s)',
      },
    ]);
  });
});
