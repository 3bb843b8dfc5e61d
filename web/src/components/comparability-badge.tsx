import type { RunSummary } from "../../../src/server/api-schemas.js";

/**
 * Whether a run's numbers can stand beside the τ²-bench leaderboard's: a green "τ²-comparable" or an
 * amber "not τ²-comparable" whose reasons are listed (inline with `detailed`, else in the tooltip).
 */
export function ComparabilityBadge(props: {
  comparability: RunSummary["comparability"];
  detailed?: boolean;
}) {
  const { comparable, reasons } = props.comparability;
  if (comparable)
    return (
      <span
        className="badge added"
        title="Run as τ²-bench runs it: its numbers can stand beside the leaderboard's"
      >
        τ²-comparable
      </span>
    );
  return (
    <span className="comparability">
      <span className="badge changed" title={reasons.join("\n")}>
        not τ²-comparable
      </span>
      {props.detailed && <span className="muted comparability-reasons">: {reasons.join("; ")}</span>}
    </span>
  );
}
