import type { Command } from "commander";
import { readResultsFile } from "../../formats/tau2/results.js";
import { createPerturbationRegistry } from "../../perturbations/registry.js";
import { rescore, type Rescored } from "../../runner/rescore.js";
import { println, wholeNumber, withDataOption, type CliContext } from "../context.js";
import { loadDomain } from "../domain-flags.js";
import { formatTable } from "../table.js";
import { fixed, formatMetrics } from "./metrics-table.js";
import { SCRIPTED_DEMO_BANNER } from "../model-flags.js";
import { loadPerturbations } from "../domain-modules.js";
import { agentCostCounted, isScriptedDemoInfo, resultsDomain } from "../../runner/run-source.js";

interface ScoreOptions {
  json?: boolean;
  data?: string;
  domain?: string;
  seed: string;
  trustEmbeddedTasks?: boolean;
  perturbationModule?: string[];
}

/**
 * `passk score FILE`: an audit. Re-evaluate every simulation of a τ² results file against the official
 * tasks of the data directory (the file's own tasks only with `--trust-embedded-tasks`) and compare with
 * the recorded rewards. Exit code 1 when any recomputed reward differs from the recorded one, or when the
 * file disagrees with the data (edited tasks, another domain's trajectories) and its tasks are not trusted.
 */
export function registerScore(program: Command, context: CliContext): void {
  withDataOption(
    program
      .command("score")
      .description(
        "Re-evaluate every simulation of a τ²-bench results file and report recorded versus recomputed reward " +
          "(exit code 1 if any differs)",
      )
      .argument("<file>", "results JSON file (or a τ² run directory)")
      .option("--json", 'print {"simulations":[{id,task_id,trial,recorded_reward,reward}],"metrics":{…}}')
      .option("--domain <name>", "domain of the file when info.environment_info.domain_name is missing")
      .option(
        "--trust-embedded-tasks",
        "grade against the tasks embedded in the file instead of the data directory's official ones",
      )
      .option("--seed <n>", "seed of the bootstrap resampling", "0")
      .option(
        "--perturbation-module <file>",
        "a module defining the team perturbations the file's simulations were perturbed with (repeatable)",
        (value: string, previous: string[] = []) => [...previous, value],
      ),
  ).action(async (file: string, options: ScoreOptions) => {
    const seed = wholeNumber("--seed", options.seed, 2 ** 32 - 1);
    const results = readResultsFile(file);
    const domainName = resultsDomain(results, options.domain, file);
    const data = loadDomain(context, domainName, options);
    const trust = options.trustEmbeddedTasks ?? false;
    // A perturbed simulation is graded as its run graded it: its injections' policy violations applied.
    if (options.perturbationModule && options.perturbationModule.length > 0)
      await loadPerturbations(context, options.perturbationModule);
    const scored = await rescore(results, {
      domainName,
      data,
      domains: context.domains,
      trustEmbeddedTasks: trust,
      perturbations: context.perturbations ?? createPerturbationRegistry(),
      seed,
      label: file,
    });
    const { rows, disagreements, mismatches } = scored;
    if (scored.failed) process.exitCode = 1;
    if (disagreements.length > 0) {
      context.stderr.write(
        `${file} DISAGREES WITH THE OFFICIAL DATA:\n${disagreements.map((d) => `  - ${d}\n`).join("")}` +
          (trust
            ? "graded against the file's own tasks (--trust-embedded-tasks): these numbers are not an audit against the official tasks.\n"
            : `graded against the official ${domainName} tasks of ${data.dataDir}; pass --trust-embedded-tasks to grade against the file's own tasks instead.\n`),
      );
    }
    const demo = isScriptedDemoInfo(results.results.info);
    if (options.json) {
      println(
        context,
        JSON.stringify(
          {
            simulations: rows,
            metrics: scored.metrics,
            audit: { domain: domainName, tasks: trust ? "embedded" : "official", disagreements },
            ...(demo ? { scripted_demo: true } : {}),
            summary: {
              simulations: rows.length,
              matching: rows.length - mismatches.length,
              differing: mismatches.length,
              nl_assertions_not_judged: scored.notJudged.size,
              nl_verdicts_reused: scored.reusedVerdicts,
            },
          },
          null,
          2,
        ),
      );
      return;
    }
    printScored(context, scored, { demo, agentCostCounted: agentCostCounted(results.results.info) });
  });
}

/** The re-graded simulations as a table, the metrics, and what the rewards and verdicts came to. */
function printScored(
  context: CliContext,
  scored: Rescored,
  options: { demo: boolean; agentCostCounted: boolean },
): void {
  const { rows, mismatches, notJudged, reusedVerdicts } = scored;
  if (options.demo) println(context, `# ${SCRIPTED_DEMO_BANNER}`);
  println(
    context,
    formatTable(
      ["simulation", "task", "trial", "recorded", "recomputed", ""],
      rows.map((r) => [
        r.id,
        r.task_id,
        r.trial === null ? "-" : String(r.trial),
        fixed(r.recorded_reward),
        fixed(r.reward),
        scored.differs(r) ? "DIFFERS" : "",
      ]),
    ),
  );
  println(context);
  println(context, formatMetrics(scored.metrics, { agentCostCounted: options.agentCostCounted }));
  println(context);
  println(
    context,
    `${rows.length - mismatches.length} of ${rows.length} simulations reproduce their recorded reward` +
      (mismatches.length > 0 ? `; ${mismatches.length} differ` : ""),
  );
  if (options.demo) println(context, `# ${SCRIPTED_DEMO_BANNER}`);
  if (reusedVerdicts > 0)
    println(
      context,
      `${reusedVerdicts} simulation(s): natural-language assertions graded with the verdicts recorded in the file (the judge is not re-run)`,
    );
  if (notJudged.size > 0)
    println(
      context,
      `${notJudged.size} simulation(s) have natural-language assertions without recorded verdicts; graded without that component (an upper bound)`,
    );
}
