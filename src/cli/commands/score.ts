import type { Command } from "commander";
import { ConfigError, UnknownNameError } from "../../core/errors.js";
import type { Judge } from "../../core/judge.js";
import type { NlAssertionCheck, RewardInfo } from "../../core/simulation.js";
import type { Task } from "../../core/task.js";
import { evaluateSimulation } from "../../evaluation/evaluate-simulation.js";
import { readResultsFile, type ResultsFile } from "../../formats/tau2/results.js";
import type { AnyDomain } from "../../env/domain.js";
import { changedTasks } from "../../evaluation/task-drift.js";
import type { ArgumentValidation } from "../../env/world.js";
import { isSuccessful } from "../../metrics/pass-hat-k.js";
import { computeRunMetrics } from "../../metrics/run-metrics.js";
import { loadDomain, println, wholeNumber, withDataOption, type CliContext } from "../context.js";
import { formatTable } from "../table.js";
import { fixed, formatMetrics } from "./metrics-table.js";
import { SCRIPTED_DEMO_BANNER } from "../model-flags.js";
import { loadPerturbations } from "../domain-modules.js";
import { gradeWithViolations, perturbConversation } from "../../perturbations/perturb-conversation.js";
import { createPerturbationRegistry } from "../../perturbations/registry.js";
import { agentCostCounted, isScriptedDemoInfo, resultsDomain, scoredFromResults } from "./run-source.js";

interface ScoreOptions {
  json?: boolean;
  data?: string;
  domain?: string;
  seed: string;
  trustEmbeddedTasks?: boolean;
  perturbationModule?: string[];
}

/**
 * How the file's trajectories passed arguments to tools: passk's protocol checked them strictly (runs
 * recorded before passk recorded its protocol ran passk's); the reference, and passk under τ²'s
 * protocol, passed them raw.
 */
function recordedValidation(info: unknown): ArgumentValidation {
  const passk = (info as { passk?: { protocol?: unknown } } | null)?.passk;
  if (passk === undefined || passk === null) return "lenient";
  return passk.protocol === "tau2" ? "lenient" : "strict";
}

/**
 * Where an audited file disagrees with the data: embedded tasks whose grading differs from the official
 * ones, simulations of tasks the domain does not have, and tool calls that name another domain's tools.
 */
function auditAgainstData(
  results: ResultsFile,
  domainName: string,
  official: ReadonlyMap<string, Task>,
  domains: ReadonlyMap<string, AnyDomain>,
): string[] {
  const problems: string[] = [];
  const changed = changedTasks(results.results.tasks, official);
  if (changed.length > 0)
    problems.push(
      `${changed.length} task(s) embedded in the file are graded differently from the official ${domainName} tasks ` +
        `(${changed.slice(0, 5).join(", ")}${changed.length > 5 ? ", …" : ""})`,
    );
  const unknown = [
    ...new Set(results.results.simulations.map((s) => s.task_id).filter((id) => !official.has(id))),
  ];
  if (unknown.length > 0)
    problems.push(
      `${unknown.length} simulated task(s) are not official ${domainName} tasks (${unknown.slice(0, 5).join(", ")}${unknown.length > 5 ? ", …" : ""})`,
    );
  // Tools of another domain in the trajectories: the declared domain is not the one that was run.
  const declared = domains.get(domainName);
  const own = new Set(
    [...(declared?.agent.tools ?? []), ...(declared?.user?.tools ?? [])].map((t) => t.name),
  );
  const called = new Set<string>();
  for (const simulation of results.results.simulations)
    for (const message of simulation.messages)
      if (message.role === "assistant" || message.role === "user")
        for (const call of message.tool_calls ?? []) if (!own.has(call.name)) called.add(call.name);
  for (const [name, other] of domains) {
    if (name === domainName || called.size === 0) continue;
    const theirs = new Set([...other.agent.tools, ...(other.user?.tools ?? [])].map((t) => t.name));
    const matching = [...called].filter((tool) => theirs.has(tool));
    if (matching.length > 0 && matching.length === called.size) {
      problems.push(
        `the trajectories call ${matching.length} tool(s) that ${domainName} does not have and ${name} does (${matching.slice(0, 5).join(", ")}): the file's declared domain (info.environment_info.domain_name) looks wrong`,
      );
      break;
    }
  }
  return problems;
}

/**
 * A judge that answers with the verdicts a results file recorded, so that re-scoring checks every
 * other component without re-running an LLM. Missing verdicts leave the component unjudged.
 */
function recordedJudge(verdicts: readonly NlAssertionCheck[]): Judge {
  return {
    judge: async ({ assertions }) =>
      assertions.map((assertion) => {
        const verdict = verdicts.find((v) => v.nl_assertion === assertion);
        if (!verdict) throw new Error(`no recorded verdict for "${assertion}"`);
        return { nl_assertion: assertion, met: verdict.met, justification: verdict.justification ?? "" };
      }),
  };
}

/** One re-graded simulation: what the file says, and what passk computes from its messages. */
export interface ScoredRow {
  id: string;
  task_id: string;
  trial: number | null;
  recorded_reward: number | null;
  reward: number;
}

const EPSILON = 1e-9;

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
    const official = new Map<string, Task>(data.tasks.map((t) => [t.id, t]));
    const embedded = new Map<string, Task>(results.results.tasks.map((t) => [t.id, t]));
    // An audit grades against the official tasks: a file's own tasks may have been edited to pass.
    const taskOf = (id: string): Task => {
      const task = trust ? (embedded.get(id) ?? official.get(id)) : official.get(id);
      if (!task) {
        throw new UnknownNameError(
          `${domainName} task`,
          id,
          [...official.keys()],
          trust
            ? `${file} neither embeds it nor does the data directory have it; pass --data with the data the run used.`
            : `it is not an official ${domainName} task: check the file's domain (--domain) and --data, or pass --trust-embedded-tasks to grade against the file's own tasks.`,
        );
      }
      return task;
    };
    const disagreements = auditAgainstData(results, domainName, official, context.domains);
    const validation = recordedValidation(results.results.info);
    const untrusted = results.results.simulations.filter((s) => !official.has(s.task_id));
    if (untrusted.length > 0 && !trust) {
      throw new ConfigError(
        `${file} disagrees with the official ${domainName} data: ${disagreements.join("; ")}. ` +
          "Check the file's domain (--domain) and --data, or pass --trust-embedded-tasks to grade against the file's own tasks.",
      );
    }

    // A perturbed simulation is graded as its run graded it: its injections' policy violations applied.
    if (options.perturbationModule && options.perturbationModule.length > 0)
      await loadPerturbations(context, options.perturbationModule);
    const registry = context.perturbations ?? createPerturbationRegistry();
    const violationsOf = (simulation: (typeof results.results.simulations)[number], task: Task): string[] => {
      const specs = (simulation.info as { perturbations?: unknown } | null | undefined)?.perturbations;
      if (!Array.isArray(specs) || specs.length === 0) return [];
      const perturbations = specs.map((spec) => registry.resolve(String(spec)));
      return perturbConversation(perturbations, { task, seed: simulation.seed ?? 0 }).violations(
        simulation.messages,
      );
    };

    const rows: ScoredRow[] = [];
    // What the file records, with each reward_info replaced by the recomputed one below.
    const rescored = scoredFromResults(results, domainName);
    const notJudged = new Set<string>();
    let reusedVerdicts = 0;
    for (const [index, simulation] of results.results.simulations.entries()) {
      const recordedVerdicts = simulation.reward_info?.nl_assertions ?? null;
      const task = taskOf(simulation.task_id);
      const rewardInfo: RewardInfo = gradeWithViolations(
        await evaluateSimulation(
          simulation,
          task,
          // Replayed with arguments checked as they were when recorded.
          { newWorld: (o) => data.newWorld(o), validation },
          recordedVerdicts ? recordedJudge(recordedVerdicts) : undefined,
        ),
        violationsOf(simulation, task),
      );
      const judged = rewardInfo.reward_breakdown?.NL_ASSERTION !== null;
      if (!judged) notJudged.add(simulation.id);
      if (judged && recordedVerdicts && (rewardInfo.nl_assertions?.length ?? 0) > 0) reusedVerdicts++;
      rows.push({
        id: simulation.id,
        task_id: simulation.task_id,
        trial: simulation.trial ?? null,
        recorded_reward: simulation.reward_info?.reward ?? null,
        reward: rewardInfo.reward,
      });
      rescored[index]!.reward_info = rewardInfo;
    }
    const differs = (r: ScoredRow) => {
      if (r.recorded_reward === null) return isSuccessful(r.reward);
      // Without the NL component the recomputed reward is an upper bound: only a lower one disagrees.
      if (notJudged.has(r.id)) return r.reward < r.recorded_reward - EPSILON;
      return Math.abs(r.recorded_reward - r.reward) > EPSILON;
    };
    const mismatches = rows.filter(differs);
    const metrics = computeRunMetrics(rescored, {
      numTrials: results.results.info.num_trials ?? null,
      bootstrap: { seed },
    });
    // Disagreeing with the data fails the audit, whatever the rewards, unless the file's tasks are trusted.
    if (mismatches.length > 0 || (disagreements.length > 0 && !trust)) process.exitCode = 1;
    const demo = isScriptedDemoInfo(results.results.info);
    if (disagreements.length > 0) {
      context.stderr.write(
        `${file} DISAGREES WITH THE OFFICIAL DATA:\n${disagreements.map((d) => `  - ${d}\n`).join("")}` +
          (trust
            ? "graded against the file's own tasks (--trust-embedded-tasks): these numbers are not an audit against the official tasks.\n"
            : `graded against the official ${domainName} tasks of ${data.dataDir}; pass --trust-embedded-tasks to grade against the file's own tasks instead.\n`),
      );
    }

    if (options.json) {
      println(
        context,
        JSON.stringify(
          {
            simulations: rows,
            metrics,
            audit: {
              domain: domainName,
              tasks: trust ? "embedded" : "official",
              disagreements,
            },
            ...(demo ? { scripted_demo: true } : {}),
            summary: {
              simulations: rows.length,
              matching: rows.length - mismatches.length,
              differing: mismatches.length,
              nl_assertions_not_judged: notJudged.size,
              nl_verdicts_reused: reusedVerdicts,
            },
          },
          null,
          2,
        ),
      );
      return;
    }
    if (demo) println(context, `# ${SCRIPTED_DEMO_BANNER}`);
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
          differs(r) ? "DIFFERS" : "",
        ]),
      ),
    );
    println(context);
    println(context, formatMetrics(metrics, { agentCostCounted: agentCostCounted(results.results.info) }));
    println(context);
    println(
      context,
      `${rows.length - mismatches.length} of ${rows.length} simulations reproduce their recorded reward` +
        (mismatches.length > 0 ? `; ${mismatches.length} differ` : ""),
    );
    if (demo) println(context, `# ${SCRIPTED_DEMO_BANNER}`);
    if (reusedVerdicts > 0) {
      println(
        context,
        `${reusedVerdicts} simulation(s): natural-language assertions graded with the verdicts recorded in the file (the judge is not re-run)`,
      );
    }
    if (notJudged.size > 0) {
      println(
        context,
        `${notJudged.size} simulation(s) have natural-language assertions without recorded verdicts; graded without that component (an upper bound)`,
      );
    }
  });
}
