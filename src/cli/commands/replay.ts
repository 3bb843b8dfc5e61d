import { Option, type Command } from "commander";
import { replayGoldActions, type GoldReplayRecord } from "../../evaluation/gold-replay.js";
import { println, withDataOption, type CliContext } from "../context.js";
import { loadDomain, withRetrievalConfigOption } from "../domain-flags.js";
import { formatTable } from "../table.js";

export function registerReplay(program: Command, context: CliContext): void {
  withRetrievalConfigOption(
    withDataOption(
      program
        .command("replay")
        .description(
          "Replay each task's gold actions in a fresh world and evaluate the result (one JSON line per task)",
        )
        .requiredOption("--domain <name>", "domain to replay")
        .option("--task <id...>", "only these task ids")
        .addOption(
          new Option("--format <format>", "output format").choices(["jsonl", "table"]).default("jsonl"),
        ),
    ),
  ).action(
    (options: {
      domain: string;
      task?: string[];
      format: string;
      data?: string;
      retrievalConfig?: string;
    }) => {
      const data = loadDomain(context, options.domain, options);
      const tasks = options.task ? options.task.map((id) => data.task(id)) : data.tasks;
      const records: GoldReplayRecord[] = [];
      for (const task of tasks) {
        const record = replayGoldActions(data.domain.name, task, (o) => data.newWorld(o));
        if (options.format === "jsonl") println(context, JSON.stringify(record));
        else records.push(record);
      }
      if (options.format !== "jsonl") {
        println(
          context,
          formatTable(
            ["task", "steps", "errors", "reward", "breakdown"],
            records.map((r) => [
              r.task_id,
              String(r.steps.length),
              String(r.steps.filter((s) => s.error).length),
              r.evaluation.reward_excluding_nl_assertions.toFixed(1),
              Object.entries(r.evaluation.reward_breakdown)
                .map(([k, v]) => `${k}=${v === null ? "needs judge" : v}`)
                .join(" "),
            ]),
          ),
        );
      }
    },
  );
}
