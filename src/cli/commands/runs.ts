import type { Command } from "commander";
import { gradingCoverage, partialCoverageLabel } from "../../metrics/coverage.js";
import type { RunMetrics } from "../../metrics/run-metrics.js";
import { participantOf } from "../../runner/run-info.js";
import { agentCostCounted } from "../../runner/run-source.js";
import {
  deleteStoredRun,
  listRunSummaries,
  runSummaryJson,
  storedRunDetails,
} from "../../runner/stored-runs.js";
import type { RunRecord } from "../../core/run-store.js";
import { println, type CliContext } from "../context.js";
import { formatTable } from "../table.js";
import { fixed, formatFailingTasks, formatMetrics } from "./metrics-table.js";
import { withStore, withStoreOption } from "./run-source.js";

/** pass^1 with how much of the run it covers when that is not all of it ("1.000 (graded 8 of 40)"). */
function passOneCell(metrics: RunMetrics, planned: number | null): string {
  const coverage = partialCoverageLabel(gradingCoverage(metrics, planned));
  return `${fixed(metrics.pass_hat_ks[1])}${coverage && metrics.pass_hat_ks[1] !== undefined ? ` (${coverage})` : ""}`;
}

/** `passk runs list|show|delete`: the runs in the store. */
export function registerRuns(program: Command, context: CliContext): void {
  const runs = program.command("runs").description("List, show and delete the runs in the store");
  registerRunsList(runs, context);
  registerRunsShow(runs, context);
  registerRunsDelete(runs, context);
}

/** `passk runs list`: the stored runs, newest first. */
function registerRunsList(runs: Command, context: CliContext): void {
  withStoreOption(
    runs
      .command("list")
      .description("The stored runs, newest first, with their average reward and pass^1")
      .option("--json", "print the runs as JSON"),
  ).action(async (options: { store?: string; json?: boolean }) => {
    const rows = await withStore(context, options.store, { create: false }, listRunSummaries);
    if (options.json) {
      println(context, JSON.stringify(rows.map(runSummaryJson), null, 2));
      return;
    }
    if (rows.length === 0) {
      println(context, "no runs yet (`passk run` or `passk import FILE` adds one)");
      return;
    }
    println(
      context,
      formatTable(
        ["id", "created", "status", "domains", "agent", "trials", "sims", "avg reward", "pass^1", "label"],
        rows.map(({ run, metrics, planned }) => [
          run.id,
          run.createdAt.slice(0, 19).replace("T", " "),
          run.status,
          run.domains.join(",") || "-",
          participantOf(run.info, "agent_info") ?? "-",
          run.numTrials === null ? "-" : String(run.numTrials),
          planned !== null ? `${run.simulationCount}/${planned}` : String(run.simulationCount),
          metrics.total_simulations > 0 ? fixed(metrics.avg_reward) : "-",
          passOneCell(metrics, planned),
          run.label ?? "",
        ]),
      ),
    );
  });
}

/** `passk runs show RUN`: one run, its job progress and metrics. */
function registerRunsShow(runs: Command, context: CliContext): void {
  withStoreOption(
    runs
      .command("show")
      .description("One run: its configuration, job progress and metrics")
      .argument("<run>", "run id (or unique prefix)")
      .option("--json", "print the run and its metrics as JSON"),
  ).action(async (ref: string, options: { store?: string; json?: boolean }) => {
    const { run, jobs, metrics, failing } = await withStore(
      context,
      options.store,
      { create: false },
      (store) => storedRunDetails(store, ref),
    );
    if (options.json) {
      println(context, JSON.stringify({ run, jobs, metrics, failing_tasks: failing }, null, 2));
      return;
    }
    println(context, describeRun(run));
    if (jobs.total > 0) {
      println(
        context,
        `jobs: ${jobs.done} done, ${jobs.queued} queued, ${jobs.claimed} running, ${jobs.failed} failed`,
      );
    }
    println(context);
    println(context, formatMetrics(metrics, { agentCostCounted: agentCostCounted(run.info) }));
    println(context);
    println(context, formatFailingTasks(failing, 10));
  });
}

/** `passk runs delete RUN`: a run and its simulations, unless a live process runs it. */
function registerRunsDelete(runs: Command, context: CliContext): void {
  withStoreOption(
    runs
      .command("delete")
      .description("Delete a run with its simulations")
      .argument("<run>", "run id (or unique prefix)")
      .option("--force", "delete it even though its status says a process on another machine runs it"),
  ).action(async (ref: string, options: { store?: string; force?: boolean }) => {
    const deleted = await withStore(context, options.store, { create: false }, (store) =>
      deleteStoredRun(store, ref, { force: options.force === true }),
    );
    println(context, `deleted run ${deleted.id} (${deleted.simulations} simulations)`);
  });
}

function describeRun(run: RunRecord): string {
  return [
    `run ${run.id}${run.label ? ` (${run.label})` : ""}`,
    `  status:   ${run.status}`,
    `  created:  ${run.createdAt}${run.updatedAt !== run.createdAt ? `, updated ${run.updatedAt}` : ""}`,
    `  domains:  ${run.domains.join(", ") || "-"}`,
    `  trials:   ${run.numTrials ?? "-"}, ${run.simulationCount} simulations stored`,
    `  agent:    ${participantOf(run.info, "agent_info") ?? "-"}`,
    `  user:     ${participantOf(run.info, "user_info") ?? "-"}`,
    `  config:   ${JSON.stringify(run.config)}`,
  ].join("\n");
}
