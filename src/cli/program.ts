import { Command } from "commander";
import { passkVersion } from "../version.js";
import type { CliContext } from "./context.js";

type Register = (program: Command, context: CliContext) => void;

/**
 * Each command's module, loaded when asked for: a spawned `passk run` parses only the run command's
 * imports, not the server's, the voice track's or the submission's (they cost seconds on a loaded machine).
 */
const COMMANDS: Record<string, () => Promise<Register>> = {
  replay: async () => (await import("./commands/replay.js")).registerReplay,
  simulate: async () => (await import("./commands/simulate.js")).registerSimulate,
  chat: async () => (await import("./commands/simulate.js")).registerSimulate,
  tasks: async () => (await import("./commands/tasks.js")).registerTasks,
  call: async () => (await import("./commands/call.js")).registerCall,
  tools: async () => (await import("./commands/tools.js")).registerTools,
  data: async () => (await import("./commands/data.js")).registerData,
  score: async () => (await import("./commands/score.js")).registerScore,
  report: async () => (await import("./commands/report.js")).registerReport,
  import: async () => (await import("./commands/import.js")).registerImport,
  export: async () => (await import("./commands/export.js")).registerExport,
  run: async () => (await import("./commands/run.js")).registerRun,
  robustness: async () => (await import("./commands/robustness.js")).registerRobustness,
  runs: async () => (await import("./commands/runs.js")).registerRuns,
  worker: async () => (await import("./commands/worker.js")).registerWorker,
  compare: async () => (await import("./commands/compare.js")).registerCompare,
  plan: async () => (await import("./commands/plan.js")).registerPlan,
  review: async () => (await import("./commands/review.js")).registerReview,
  submit: async () => (await import("./commands/submit.js")).registerSubmit,
  serve: async () => (await import("./commands/serve.js")).registerServe,
  models: async () => (await import("./commands/models.js")).registerModels,
};

function emptyProgram(context: CliContext): Command {
  return new Command("passk")
    .description("Build, simulate and reliability-test LLM customer-service agents (τ²-bench compatible)")
    .version(passkVersion())
    .showHelpAfterError()
    .configureOutput({
      writeOut: (text) => context.stdout.write(text),
      writeErr: (text) => context.stderr.write(text),
    });
}

/**
 * The `passk` command line: every command registers itself on one commander program. Given the
 * arguments, only the command they name is loaded (all of them for `--help`, `--version` or a name
 * passk does not know, so the help lists every command and a typo gets its suggestion).
 */
export async function buildProgram(context: CliContext, argv?: readonly string[]): Promise<Command> {
  const program = emptyProgram(context);
  const name = argv?.[2];
  const wanted =
    name !== undefined && Object.hasOwn(COMMANDS, name) ? [COMMANDS[name]!] : Object.values(COMMANDS);
  const registered = new Set<Register>();
  for (const load of wanted) {
    const register = await load();
    if (registered.has(register)) continue;
    registered.add(register);
    register(program, context);
  }
  return program;
}
