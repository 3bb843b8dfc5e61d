import type { Command } from "commander";
import { UnknownNameError } from "../../core/errors.js";
import type { Judge } from "../../core/judge.js";
import type { NlAssertionCheck, RewardInfo } from "../../core/simulation.js";
import type { Task } from "../../core/task.js";
import { evaluateSimulation } from "../../evaluation/evaluate-simulation.js";
import { readResultsFile } from "../../formats/tau2/results.js";
import { isSuccessful } from "../../metrics/pass-hat-k.js";
import { computeRunMetrics } from "../../metrics/run-metrics.js";
import { loadDomain, println, wholeNumber, withDataOption, type CliContext } from "../context.js";
import { formatTable } from "../table.js";
import { fixed, formatMetrics } from "./metrics-table.js";
import { SCRIPTED_DEMO_BANNER } from "../model-flags.js";
import { isScriptedDemoInfo, resultsDomain, scoredFromResults } from "./run-source.js";

interface ScoreOptions {
  json?: boolean;
  data?: string;
  domain?: string;
  seed: string;
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
 * `passk score FILE`: re-evaluate every simulation of a τ² results file against the data (tasks
 * embedded in the file take precedence) and compare with the recorded rewards. Exit code 1 when
 * any recomputed reward differs from the recorded one.
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
      .option("--seed <n>", "seed of the bootstrap resampling", "0"),
  ).action(async (file: string, options: ScoreOptions) => {
    const seed = wholeNumber("--seed", options.seed, 2 ** 32 - 1);
    const results = readResultsFile(file);
    const domainName = resultsDomain(results, options.domain, file);
    const data = loadDomain(context, domainName, options);
    const embedded = new Map<string, Task>(results.results.tasks.map((t) => [t.id, t]));
    const taskOf = (id: string): Task => {
      const task = embedded.get(id) ?? data.tasks.find((t) => t.id === id);
      if (!task) {
        throw new UnknownNameError(
          `${domainName} task`,
          id,
          [...embedded.keys(), ...data.tasks.map((t) => t.id)],
          `${file} neither embeds it nor does the data directory have it; pass --data with the data the run used.`,
        );
      }
      return task;
    };

    const rows: ScoredRow[] = [];
    // What the file records, with each reward_info replaced by the recomputed one below.
    const rescored = scoredFromResults(results, domainName);
    const notJudged = new Set<string>();
    let reusedVerdicts = 0;
    for (const [index, simulation] of results.results.simulations.entries()) {
      const recordedVerdicts = simulation.reward_info?.nl_assertions ?? null;
      const rewardInfo: RewardInfo = await evaluateSimulation(
        simulation,
        taskOf(simulation.task_id),
        {
          newWorld: (o) => data.newWorld(o),
          // Trajectories recorded by the reference passed arguments unchecked; replay them the same way.
          validation: "lenient",
        },
        recordedVerdicts ? recordedJudge(recordedVerdicts) : undefined,
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
    if (mismatches.length > 0) process.exitCode = 1;
    const demo = isScriptedDemoInfo(results.results.info);

    if (options.json) {
      println(
        context,
        JSON.stringify(
          {
            simulations: rows,
            metrics,
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
    println(context, formatMetrics(metrics));
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
