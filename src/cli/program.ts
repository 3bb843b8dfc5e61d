import { Command } from "commander";
import { passkVersion } from "../version.js";
import { registerCall } from "./commands/call.js";
import { registerCompare } from "./commands/compare.js";
import { registerPlan } from "./commands/plan.js";
import { registerReview } from "./commands/review.js";
import { registerData } from "./commands/data.js";
import { registerExport } from "./commands/export.js";
import { registerImport } from "./commands/import.js";
import { registerModels } from "./commands/models.js";
import { registerReplay } from "./commands/replay.js";
import { registerSimulate } from "./commands/simulate.js";
import { registerSubmit } from "./commands/submit.js";
import { registerReport } from "./commands/report.js";
import { registerRobustness } from "./commands/robustness.js";
import { registerRun } from "./commands/run.js";
import { registerRuns } from "./commands/runs.js";
import { registerScore } from "./commands/score.js";
import { registerServe } from "./commands/serve.js";
import { registerTasks } from "./commands/tasks.js";
import { registerTools } from "./commands/tools.js";
import { registerWorker } from "./commands/worker.js";
import type { CliContext } from "./context.js";

/** The `passk` command line: every command registers itself on one commander program. */
export function buildProgram(context: CliContext): Command {
  const program = new Command("passk")
    .description("Build, simulate and reliability-test LLM customer-service agents (τ²-bench compatible)")
    .version(passkVersion())
    .showHelpAfterError()
    .configureOutput({
      writeOut: (text) => context.stdout.write(text),
      writeErr: (text) => context.stderr.write(text),
    });
  registerReplay(program, context);
  registerSimulate(program, context);
  registerTasks(program, context);
  registerCall(program, context);
  registerTools(program, context);
  registerData(program, context);
  registerScore(program, context);
  registerReport(program, context);
  registerImport(program, context);
  registerExport(program, context);
  registerRun(program, context);
  registerRobustness(program, context);
  registerRuns(program, context);
  registerWorker(program, context);
  registerCompare(program, context);
  registerPlan(program, context);
  registerReview(program, context);
  registerSubmit(program, context);
  registerServe(program, context);
  registerModels(program, context);
  return program;
}
