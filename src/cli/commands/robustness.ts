import type { Command } from "commander";
import { ConfigError } from "../../core/errors.js";
import { createPerturbationRegistry } from "../../perturbations/registry.js";
import { parseRobustnessThresholds, splitThresholds } from "../../runner/fail-under.js";
import { storedRobustnessRows } from "../../runner/robustness-pairs.js";
import { formatTable } from "../table.js";
import { println, type CliContext } from "../context.js";
import { formatRobustnessTable } from "./metrics-table.js";
import { perturbationSpecs, type RunFlags } from "./run-resolve.js";
import { loadPerturbations } from "../domain-modules.js";
import { RUN_EXIT, runCommand, withRunOptions } from "./run.js";
import { withStore } from "./run-source.js";
import { voiceRobustnessCommand } from "./voice-robustness.js";

/**
 * `passk robustness --perturb SPEC…`: a clean run and one run per perturbation on the same tasks and
 * seeds, each stored as `passk run` stores it, then the robustness table; `--fail-under
 * robustness.NAME=MIN` gates on the share of the clean pass^k each perturbation keeps.
 */
export function registerRobustness(program: Command, context: CliContext): void {
  const command = withRunOptions(
    program
      .command("robustness")
      .description(
        "Measure how much reliability an agent loses when the world misbehaves: a clean baseline and each " +
          "--perturb run on the same tasks and seeds, then pass^k clean vs perturbed, the drop with a paired " +
          "interval, and the tasks that broke",
      ),
  )
    .option("--list", "list the perturbations --perturb can name, and exit")
    .argument(
      "[dirs...]",
      "with --voice: two voice run directories, the baseline first (e.g. control, then regular)",
    )
    .option(
      "--voice",
      "pair two voice runs (passk run --voice --save-to DIR) task by task instead of making runs",
    )
    .option("--json", "with --voice: print the comparison as JSON");
  command.options.find((o) => o.long === "--agent-llm")?.makeOptionMandatory(false);
  command.action(
    async (dirs: string[], flags: RunFlags & { list?: boolean; voice?: boolean; json?: boolean }) => {
      if (flags.voice) {
        process.exitCode = await voiceRobustnessCommand(dirs, flags, context);
        return;
      }
      if (dirs.length > 0)
        throw new ConfigError(
          `passk robustness makes its runs; to pair two voice run directories (${dirs.join(", ")}) add --voice`,
        );
      process.exitCode = await robustnessCommand(flags, command, context);
    },
  );
}

async function robustnessCommand(
  flags: RunFlags & { list?: boolean },
  command: Command,
  context: CliContext,
): Promise<number> {
  await loadPerturbations(context, flags.perturbationModule ?? []);
  const registry = context.perturbations ?? createPerturbationRegistry();
  if (flags.list) {
    println(
      context,
      formatTable(
        ["perturbation", "kind", "what it does"],
        registry.names.map((name) => {
          const definition = registry.get(name)!;
          return [`${name}@${definition.version}`, definition.kind, definition.summary];
        }),
      ),
    );
    return 0;
  }
  if (flags.resume)
    throw new ConfigError(
      "passk robustness starts new runs; continue one of its runs with `passk run --resume RUN_ID` (its perturbations are stored with it)",
    );
  if (flags.saveTo)
    throw new ConfigError(
      "--save-to writes one run's results, and passk robustness makes several; write each with `passk export RUN_ID`",
    );
  const specs = perturbationSpecs(flags.perturb ?? [], registry);
  if (specs.length === 0)
    throw new ConfigError(
      "passk robustness needs at least one --perturb SPEC, e.g. --perturb tool-faults:rate=0.2 (`passk robustness --list` shows them)",
    );
  // Every gate is checked before the first conversation.
  const gates = splitThresholds(flags.failUnder ?? []);
  const names = specs.map((spec) => registry.resolve(spec).definition.name);
  const robustnessGates = parseRobustnessThresholds(gates.robustness, names);

  const label = (what: string) => (flags.label ? `${flags.label} · ${what}` : `robustness: ${what}`);
  const base: RunFlags = { ...flags, perturb: [] };
  delete base.failUnder;
  const clean = await runCommand(
    { ...base, label: label("clean"), ...(gates.run.length > 0 ? { failUnder: gates.run } : {}) },
    command,
    context,
  );
  if (!clean.runId || clean.code === RUN_EXIT.interrupted || clean.code === RUN_EXIT.nothingGraded)
    return clean.code;
  let code = clean.code;
  const perturbedRuns: string[] = [];
  for (const [i, spec] of specs.entries()) {
    const own = robustnessGates.filter((g) => g.perturbation === names[i]).map((g) => g.text);
    const arm = await runCommand(
      { ...base, perturb: [spec], label: label(spec), ...(own.length > 0 ? { failUnder: own } : {}) },
      command,
      context,
    );
    code = Math.max(code, arm.code);
    if (!arm.runId || arm.code === RUN_EXIT.interrupted) return Math.max(code, arm.code);
    perturbedRuns.push(arm.runId);
  }
  // The library's one pairing rule (completed runs of the same configuration), kept to the runs made here.
  const made = new Set(perturbedRuns);
  const rows = await withStore(context, flags.store, { create: false }, (store) =>
    storedRobustnessRows(store, clean.runId!).filter((row) => made.has(row.run_id ?? "")),
  );
  println(context);
  println(context, `clean run ${clean.runId}; perturbed runs ${perturbedRuns.join(", ")}`);
  println(context, formatRobustnessTable(rows));
  return code;
}
