import {
  fixedDesignTrials,
  meanSuccessInterval,
  nextTrials,
  type MeanSuccessInterval,
  type TrialTally,
} from "../metrics/adaptive-trials.js";
import { executeRun, type ExecuteRunOptions, type RunOutcome } from "./execute-run.js";

/** `passk run --adaptive`: at least `minTrials` per task, more where they narrow the interval most. */
export interface AdaptivePlan {
  /** Every task gets these first (the run's `--num-trials`); pass^k is reported up to this k. */
  minTrials: number;
  /** No task gets more. */
  maxTrials: number;
  /** Stop once the 95% interval of the mean success rate is no wider than ± this. */
  targetHalfWidth: number;
}

/** Where an adaptive run stands after a round. */
export interface AdaptiveRound {
  round: number;
  interval: MeanSuccessInterval;
  /** Trials queued for the next round (0 when the run stops). */
  added: number;
}

export interface AdaptiveOutcome {
  outcome: RunOutcome;
  /** The target was reached; otherwise the trials, the budget or a stop ended the run first. */
  reached: boolean;
  interval: MeanSuccessInterval;
  /** Trials per task a fixed design would need for the same interval, at the rates observed. */
  fixedTrialsPerTask: number;
  rounds: number;
}

export interface ExecuteAdaptiveRunOptions extends ExecuteRunOptions {
  plan: AdaptivePlan;
  /** Per task of the run: its evaluable trials and successes so far (from the store). */
  tallies: () => TrialTally[];
  onRound?: (round: AdaptiveRound) => void;
}

/**
 * Run the queued trials, then, round after round, queue the trials that narrow the run's interval most
 * (`nextTrials`) and run them, until the interval reaches the target, every task has `maxTrials`, the
 * budget is spent or the run is stopped. A round queues as many trials as workers run at once, so that
 * the workers stay busy and each choice still sees the results before it.
 */
export async function executeAdaptiveRun(options: ExecuteAdaptiveRunOptions): Promise<AdaptiveOutcome> {
  const { plan, tallies, onRound, ...runOptions } = options;
  let previous = runOptions.previous;
  let round = 0;
  let completed = 0;
  let storeMs = 0;
  for (;;) {
    const outcome = await executeRun({ ...runOptions, ...(previous ? { previous } : {}) });
    completed += outcome.completed;
    storeMs += outcome.storeMs;
    const merged = { ...outcome, completed, storeMs };
    const current = tallies();
    const interval = meanSuccessInterval(current);
    const reached = interval.halfWidth <= plan.targetHalfWidth;
    const finish = (added: number): AdaptiveOutcome => {
      onRound?.({ round, interval, added });
      return {
        outcome: merged,
        reached,
        interval,
        fixedTrialsPerTask: fixedDesignTrials(current, interval.halfWidth, { minTrials: plan.minTrials }),
        rounds: round + 1,
      };
    };
    if (outcome.reason !== "completed" || outcome.setupError || reached) return finish(0);
    const picks = nextTrials(current, {
      count: Math.max(1, Math.floor(runOptions.concurrency)),
      maxTrials: plan.maxTrials,
    });
    if (picks.length === 0) return finish(0);
    const indexes = new Map(
      (await runOptions.queue.nextTrialIndexes(runOptions.runId)).map((r) => [
        `${r.domain}\u0000${r.taskId}`,
        r.next,
      ]),
    );
    const jobs = picks.map((tally) => {
      const key = `${tally.domain}\u0000${tally.task_id}`;
      const trial = indexes.get(key) ?? 0;
      indexes.set(key, trial + 1);
      return { domain: tally.domain, taskId: tally.task_id, trial };
    });
    // Jobs always take new trial indexes, so each is queued; nothing queued would loop forever.
    const { queued } = await runOptions.queue.enqueue(runOptions.runId, jobs);
    if (queued === 0) return finish(0);
    onRound?.({ round, interval, added: jobs.length });
    round++;
    previous = { cost: outcome.spent, successes: 0 };
  }
}
