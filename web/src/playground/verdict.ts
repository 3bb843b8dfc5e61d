import type { FailedCheck } from "../../../src/server/api-schemas.js";

const removeQuotes = (text: string) => text.replace(/`/g, "");

/** One failed check in words: what should have happened and did not. */
export function failedCheckInWords(check: FailedCheck): string {
  const text = removeQuotes(check.check);
  switch (check.kind) {
    case "DB":
      return "the final database is not the one the task expects";
    case "ACTION": {
      const call = /^missing (.*)$/.exec(text)?.[1];
      return call ? `the agent never made the expected call ${call}` : text;
    }
    case "COMMUNICATE": {
      const info = /^did not communicate "(.*)"$/.exec(text)?.[1];
      return info !== undefined ? `the agent never told the customer "${info}"` : text;
    }
    case "NL_ASSERTION":
      return `not met: ${text}`;
    case "ENV_ASSERTION":
      return `the customer's side is not as expected: ${text}`;
    case "TERMINATION": {
      const reason = /^conversation ended with (.*)$/.exec(text)?.[1];
      return reason ? `the conversation ended early: ${reason.replace(/_/g, " ")}` : text;
    }
    case "EVALUATION":
      return `it could not be graded: ${text}`;
    default:
      return text;
  }
}

/**
 * The verdict of an ended conversation in one line: its reward, then "every check passed" or the
 * first failed check in words (and how many more failed).
 */
export function verdictSentence(reward: number, failed: readonly FailedCheck[]): string {
  const score = reward.toFixed(2);
  const first = failed[0];
  if (!first) return reward >= 1 - 1e-6 ? `${score} — every check passed` : `${score} — below full marks`;
  const more = failed.length - 1;
  return `${score} — ${failedCheckInWords(first)}${more > 0 ? ` (and ${more} more failed ${more === 1 ? "check" : "checks"})` : ""}`;
}
