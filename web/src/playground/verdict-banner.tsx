import type { FailedCheck } from "../../../src/server/api-schemas.js";
import { verdictSentence } from "./verdict.js";

/**
 * The verdict at the top of the conversation when it has been graded, in words, with a link to the
 * check-by-check reward card in the trace.
 */
export function VerdictBanner(props: {
  reward: number;
  failedChecks: readonly FailedCheck[];
  onShowCard: () => void;
}) {
  const passed = props.failedChecks.length === 0 && props.reward >= 1 - 1e-6;
  return (
    <div
      className={`verdict-banner ${passed ? "passed" : "failed"}`}
      role="status"
      data-testid="verdict-banner"
    >
      <strong className="verdict-words">{verdictSentence(props.reward, props.failedChecks)}</strong>
      <button type="button" className="link-button" onClick={props.onShowCard}>
        See every check
      </button>
    </div>
  );
}
