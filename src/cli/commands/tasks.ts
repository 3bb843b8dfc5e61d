import type { Command } from "commander";
import type { Task } from "../../core/task.js";
import { validateTask } from "../../evaluation/validate-task.js";
import type { DomainData } from "../../formats/tau2/domain-data.js";
import { println, withDataOption, type CliContext } from "../context.js";
import { loadDomain, withRetrievalConfigOption } from "../domain-flags.js";
import { registerTasksGenerate } from "./tasks-generate.js";

interface TaskSelection {
  domain: string;
  data?: string;
  retrievalConfig?: string;
  tasks?: string;
  split?: string;
  task?: string[];
}

/** Tasks chosen by `--split` / `--task` (all tasks by default). */
export function selectTasks(data: DomainData, options: TaskSelection): Task[] {
  if (options.task) return options.task.map((id) => data.task(id));
  if (options.split) return data.tasksOfSplit(options.split);
  return data.tasks;
}

function withTaskOptions(command: Command): Command {
  return withRetrievalConfigOption(withDataOption(command))
    .requiredOption("--domain <name>", "domain")
    .option("--tasks <file>", "tasks file to use instead of the domain's tasks.json")
    .option("--split <name>", "only the tasks of this split (base, train, test, …)")
    .option("--task <id...>", "only these task ids");
}

export function registerTasks(program: Command, context: CliContext): Command {
  const tasks = program.command("tasks").description("List, show, validate and generate tasks");

  withTaskOptions(tasks.command("list").description("One line per task: id and purpose")).action(
    (options: TaskSelection) => {
      const data = loadDomain(context, options.domain, options);
      for (const task of selectTasks(data, options)) {
        const purpose = task.description?.purpose?.replace(/\s+/g, " ") ?? "";
        println(context, purpose ? `${task.id}\t${purpose}` : task.id);
      }
    },
  );

  withDataOption(tasks.command("show").description("Print one task as JSON"))
    .requiredOption("--domain <name>", "domain")
    .option("--tasks <file>", "tasks file to use instead of the domain's tasks.json")
    .argument("<id>", "task id")
    .action((id: string, options: TaskSelection) => {
      const data = loadDomain(context, options.domain, options);
      println(context, JSON.stringify(data.task(id), null, 2));
    });

  withTaskOptions(
    tasks
      .command("validate")
      .description(
        "Check each task: schema, known names, gold actions replay and earn every reward component",
      ),
  )
    .option("--json", "one JSON object per task")
    .action((options: TaskSelection & { json?: boolean }) => {
      const data = loadDomain(context, options.domain, options);
      let passed = 0;
      let failed = 0;
      let judged = 0;
      const defective: string[] = [];
      for (const task of selectTasks(data, options)) {
        const result = validateTask(data.domain, task, (o) => data.newWorld(o));
        if (result.ok) passed++;
        else failed++;
        if (result.needsJudge > 0) judged++;
        if (result.warnings.length > 0) defective.push(task.id);
        if (options.json) {
          const { record: _record, ...rest } = result;
          println(context, JSON.stringify(rest));
          continue;
        }
        const components = Object.entries(result.breakdown)
          .map(([k, v]) => `${k}=${v === null ? "needs-judge" : v.toFixed(1)}`)
          .join(" ");
        const detail = result.ok ? components : result.problems.join("; ");
        const note = result.needsJudge > 0 ? ` (${result.needsJudge} NL assertion(s) need --judge-llm)` : "";
        println(context, `${result.ok ? "PASS" : "FAIL"} ${task.id}  ${detail}${note}`);
        for (const warning of result.warnings) println(context, `  WARNING ${task.id}: ${warning}`);
      }
      if (!options.json && judged > 0)
        println(context, `${judged} task(s) have NL assertions that only an LLM judge can score`);
      println(
        context,
        `${passed} passed, ${failed} failed` +
          (defective.length > 0
            ? `; ${defective.length} task(s) with a task-defect warning (gold actions that raise): ${defective.join(", ")}`
            : ""),
      );
      if (failed > 0) process.exitCode = 1;
    });
  registerTasksGenerate(tasks, context);
  return tasks;
}
