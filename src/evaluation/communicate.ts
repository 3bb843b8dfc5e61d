import type { Message } from "../core/message.js";
import type { CommunicateCheck, RewardInfo } from "../core/simulation.js";
import type { Task } from "../core/task.js";

/**
 * τ² `CommunicateEvaluator`: each `communicate_info` string must appear, case-insensitively, in some
 * agent text message once commas are removed from the message.
 */
export function evaluateCommunicate(task: Task, trajectory: readonly Message[]): RewardInfo {
  if (!task.evaluation_criteria) {
    return { reward: 1.0, info: { notes: "No evaluation criteria" }, reward_breakdown: { COMMUNICATE: 1.0 } };
  }
  const infos = task.evaluation_criteria.communicate_info;
  if (!infos || infos.length === 0) {
    return {
      reward: 1.0,
      info: { note: "No communicate_info to evaluate" },
      reward_breakdown: { COMMUNICATE: 1.0 },
    };
  }
  const checks: CommunicateCheck[] = infos.map((info) => {
    const needle = info.toLowerCase();
    const message = trajectory.find(
      (m) =>
        m.role === "assistant" &&
        typeof m.content === "string" &&
        m.content.trim() !== "" &&
        m.content.toLowerCase().replaceAll(",", "").includes(needle),
    );
    return message
      ? {
          info,
          met: true,
          justification: `Information '${info}' communicated in the message:\n '${message.content}'`,
        }
      : { info, met: false, justification: `Information '${info}' not communicated.` };
  });
  const reward = checks.every((c) => c.met) ? 1.0 : 0.0;
  return { reward, communicate_checks: checks, reward_breakdown: { COMMUNICATE: reward } };
}
