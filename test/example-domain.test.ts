import path from "node:path";
import { describe, expect, it } from "vitest";
import { libraryDataDir, libraryDomain } from "../examples/library/index.js";
import { replayGoldActions } from "../src/evaluation/gold-replay.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { parseTasks } from "../src/formats/tau2/tasks-file.js";
import { checkComposedTasks } from "../src/generator/check-composed-tasks.js";
import { composeTasks } from "../src/generator/compose-tasks.js";
import { formatPyJson } from "../src/python/py-json-indent.js";
import { generateTasks } from "../src/generator/generate-tasks.js";
import { readTaskComponents } from "../src/generator/read-task-components.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";

const data = new DomainData(libraryDomain, libraryDataDir);
const componentsFile = path.join(data.folder, "task_components.json");

describe("example domain: library", () => {
  it("loads through DomainData with its policy, tasks and splits", () => {
    expect(data.tasks).toHaveLength(8);
    expect(data.policy).toContain("Civic Recovery Services");
    expect(Object.keys(data.splits!)).toEqual(["train", "test", "base"]);
    expect(data.tasksOfSplit("base").map((t) => t.id)).toEqual(data.tasks.map((t) => t.id));
  });

  it.each(data.tasks.map((t) => [t.id, t] as const))("gold task %s replays with reward 1.0", (_id, task) => {
    const record = replayGoldActions("library", task, (o) => data.newWorld(o));
    expect(record.steps.filter((s) => s.error)).toEqual([]);
    expect(record.evaluation.reward_excluding_nl_assertions).toBe(1);
    expect(record.env_assertions?.every((a) => a.result) ?? true).toBe(true);
  });

  it("tools answer in Python's JSON (hand-computed dates, floats with .0)", () => {
    const replay = (id: string) =>
      replayGoldActions("library", data.task(id), (o) => data.newWorld(o)).steps.map((s) => s.output);
    expect(replay("pay_fines_then_renew_overdue").slice(1)).toEqual([
      '{"payment_id": "P1002", "member_id": "M1003", "amount": 14.5}',
      // Overdue since 2025-05-28: 14 days from today (2025-06-02).
      '{"loan_id": "L3001", "member_id": "M1003", "book_id": "B104", "due_date": "2025-06-16", "renewals": 1, "status": "out"}',
    ]);
    expect(replay("fined_member_renews_after_paying")[1]).toBe(
      '{"payment_id": "P1002", "member_id": "M1001", "amount": 11.0}',
    );
    const world = data.newWorld();
    expect(
      world.callTool({ name: "renew_loan", arguments: { loan_id: "L2002" }, requestor: "assistant" }),
    ).toMatchObject({
      error: true,
      content: "Error: Loan L2002 cannot be renewed: another member is waiting for this book",
    });
  });

  describe("compositional tasks from its components", () => {
    const components = readTaskComponents(componentsFile);

    it("composes 28 tasks; `tasks` keeps up to 2 sub-issues (22), `tasks_small` one (9)", () => {
      expect(composeTasks(components)).toHaveLength(28);
      expect(generateTasks(components)).toHaveLength(22);
      // Odometer order of the single-issue combinations, personas cycling None, Brisk, Chatty per manager.
      expect(generateTasks(components, { set: "tasks_small" }).map((t) => t.task.id)).toEqual([
        "[borrowing_blocked]fines_over_limit[PERSONA:None]",
        "[borrowing_blocked]fines_in_collections[PERSONA:Brisk]",
        "[borrowing_blocked]membership_expired[PERSONA:Chatty]",
        "[borrowing_blocked]card_reported_lost[PERSONA:None]",
        "[borrowing_blocked]card_blocked[PERSONA:Brisk]",
        "[renewal_refused]renewal_limit_reached[PERSONA:None]",
        "[renewal_refused]fines_over_limit[PERSONA:Brisk]",
        "[renewal_refused]fines_in_collections[PERSONA:Chatty]",
        "[renewal_refused]membership_expired[PERSONA:None]",
      ]);
    });

    it("every generated task passes the generator self-check and replays with reward 1.0 from the written file", () => {
      const generated = generateTasks(components, { set: "generated" });
      expect(checkComposedTasks(components, generated, () => data.newWorld())).toEqual([]);
      const text = formatPyJson(generated.map((g) => g.task));
      expect(text).toContain('"amount": 12.0');
      expect(text).toContain('"expected_amount": 0.0');
      const tasks = parseTasks(text, "generated.json");
      for (const task of tasks) {
        const record = replayGoldActions("library", task, (o) => data.newWorld(o));
        expect(
          record.steps.filter((s) => s.error),
          task.id,
        ).toEqual([]);
        expect(record.evaluation.reward_excluding_nl_assertions, task.id).toBe(1);
      }
      // Unfixable = uses fines_in_collections, card_blocked or renewal_limit_reached: 17 - 7 fixable
      // borrowing combinations (2 * 2 * 2 - 1) plus 11 - 3 renewal ones (2 * 2 - 1).
      expect(tasks.filter((t) => t.evaluation_criteria?.reward_basis.includes("ACTION"))).toHaveLength(18);
    });

    it("the self-check catches a sub-issue whose fix does not fix it", () => {
      const broken = readTaskComponents(componentsFile);
      broken.subtasks.membership_expired!.fix_actions = [
        { requestor: "assistant", name: "get_member_details", arguments: { member_id: "M1001" } },
      ];
      const problems = checkComposedTasks(broken, generateTasks(broken, { set: "tasks_small" }), () =>
        data.newWorld(),
      );
      expect(problems).toEqual([
        {
          taskId: "[borrowing_blocked]membership_expired[PERSONA:Chatty]",
          message: "not solved after the gold actions",
        },
        {
          taskId: "[borrowing_blocked]membership_expired[PERSONA:Chatty]",
          message: 'env assertion assert_can_borrow({"member_id":"M1001"}) fails',
        },
        {
          taskId: "[renewal_refused]membership_expired[PERSONA:None]",
          message: "not solved after the gold actions",
        },
        {
          taskId: "[renewal_refused]membership_expired[PERSONA:None]",
          message: 'env assertion assert_can_renew({"loan_id":"L1001"}) fails',
        },
      ]);
    });
  });

  it("the CLI loads it from its module path: replay and tasks generate --check", async () => {
    const domain = "./examples/library/index.ts";
    const replay = await runCliInProcess(["replay", "--domain", domain, "--data", "examples/library"]);
    const rewards = replay.stdout
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { evaluation: { reward_excluding_nl_assertions: number } }).evaluation);
    expect(rewards.map((r) => r.reward_excluding_nl_assertions)).toEqual(Array(8).fill(1));

    const run = await runCliInProcess([
      "tasks",
      "generate",
      "--domain",
      domain,
      "--data",
      "examples/library",
      "--check",
      "--set",
      "tasks_small",
    ]);
    expect(run.stderr).toBe("checked 9 tasks: all pass\n");
    expect((JSON.parse(run.stdout) as unknown[]).length).toBe(9);
  });
});
