import type { RewardInfo } from "../core/simulation.js";

/** One check of a simulation's `reward_info` that failed and counted towards its reward. */
export interface FailedCheck {
  /** The reward component (`DB`, `ENV_ASSERTION`, `ACTION`, `NL_ASSERTION`, `COMMUNICATE`) or `TERMINATION`. */
  kind: string;
  /** A short description of what was expected, stable across trials so that failures can be counted. */
  check: string;
}

function describeCall(name: string, args: unknown): string {
  const text = JSON.stringify(args ?? {});
  return `${name}(${text.length > 120 ? `${text.slice(0, 117)}…` : text})`;
}

/**
 * The failed checks behind a reward below 1, read from τ²'s `reward_info`. Only components in the
 * task's `reward_basis` count (τ² also records e.g. action checks for DB-graded tasks, which do not
 * affect the reward). A conversation that ended prematurely reports its termination reason.
 */
export function failedChecks(
  rewardInfo: RewardInfo | null | undefined,
  terminationReason: string,
): FailedCheck[] {
  if (terminationReason !== "user_stop" && terminationReason !== "agent_stop") {
    return [{ kind: "TERMINATION", check: `conversation ended with ${terminationReason}` }];
  }
  if (!rewardInfo) return [{ kind: "EVALUATION", check: "not evaluated (no reward_info)" }];
  const basis = new Set(rewardInfo.reward_basis ?? []);
  const failed: FailedCheck[] = [];
  if (basis.has("DB") && rewardInfo.db_check && !rewardInfo.db_check.db_match) {
    failed.push({ kind: "DB", check: "final database differs from the gold database" });
  }
  if (basis.has("ENV_ASSERTION")) {
    for (const c of rewardInfo.env_assertions ?? []) {
      if (c.met) continue;
      const a = c.env_assertion;
      failed.push({
        kind: "ENV_ASSERTION",
        check: `${a.env_type}.${describeCall(a.func_name, a.arguments)} should be ${a.assert_value ?? true}`,
      });
    }
  }
  if (basis.has("ACTION")) {
    for (const c of rewardInfo.action_checks ?? []) {
      if (!c.action_match) {
        failed.push({ kind: "ACTION", check: `missing ${describeCall(c.action.name, c.action.arguments)}` });
      }
    }
  }
  if (basis.has("NL_ASSERTION")) {
    for (const c of rewardInfo.nl_assertions ?? []) {
      if (!c.met) failed.push({ kind: "NL_ASSERTION", check: c.nl_assertion });
    }
  }
  if (basis.has("COMMUNICATE")) {
    for (const c of rewardInfo.communicate_checks ?? []) {
      if (!c.met) failed.push({ kind: "COMMUNICATE", check: `did not communicate "${c.info}"` });
    }
  }
  if (failed.length === 0 && rewardInfo.reward < 1 - 1e-6) {
    // E.g. evaluation could not replay the trajectory; say so rather than nothing.
    const note = rewardInfo.info?.["error"] ?? rewardInfo.info?.["note"];
    failed.push({
      kind: "EVALUATION",
      check: typeof note === "string" ? note : `reward ${rewardInfo.reward}`,
    });
  }
  return failed;
}
