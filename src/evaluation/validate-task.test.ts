import { describe, expect, it } from "vitest";
import { tallyValidations, type TaskValidation } from "./validate-task.js";

const result = (taskId: string, over: Partial<TaskValidation> = {}): TaskValidation => ({
  taskId,
  ok: true,
  problems: [],
  warnings: [],
  breakdown: {},
  needsJudge: 0,
  ...over,
});

describe("tallyValidations", () => {
  it("counts passed, failed and judge-needing tasks and names those with defect warnings", () => {
    const tally = tallyValidations([
      result("a"),
      result("b", { ok: false, problems: ["DB = 0 for the gold actions"] }),
      result("c", { needsJudge: 2, warnings: ["task defect: gold action 1 raises"] }),
    ]);
    expect(tally).toEqual({ passed: 2, failed: 1, judged: 1, defective: ["c"] });
  });
});
