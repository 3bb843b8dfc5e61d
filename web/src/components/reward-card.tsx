import type { RewardInfo } from "../../../src/core/simulation.js";
import { isSuccessful } from "../../../src/metrics/pass-hat-k.js";
import type { FailedCheck } from "../../../src/server/api-schemas.js";
import { showValue } from "../format.js";

interface CheckRow {
  ok: boolean | null;
  label: string;
  detail?: string | null | undefined;
}

function Section(props: { title: string; counted: boolean; rows: CheckRow[]; highlight: boolean }) {
  if (props.rows.length === 0) return null;
  return (
    <section className={`check-section${props.highlight ? " failing" : ""}`} aria-label={props.title}>
      <h4>
        {props.title}
        {!props.counted && <span className="badge muted"> not in reward basis</span>}
      </h4>
      <ul>
        {props.rows.map((row, i) => (
          <li key={i} className={row.ok === false ? "check-failed" : row.ok ? "check-ok" : "check-unknown"}>
            <span className="check-mark" aria-hidden="true">
              {row.ok === false ? "✗" : row.ok ? "✓" : "?"}
            </span>
            <span className="visually-hidden">
              {row.ok === false ? "failed:" : row.ok ? "passed:" : "not judged:"}
            </span>
            <span>
              {row.label}
              {row.detail ? <span className="check-detail"> — {row.detail}</span> : null}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The reward and every check behind it; failed checks that count are highlighted. */
export function RewardCard(props: {
  rewardInfo: RewardInfo;
  failedChecks: readonly FailedCheck[];
  title?: string;
}) {
  const { rewardInfo: reward } = props;
  const basis = new Set(reward.reward_basis ?? []);
  const failedKinds = new Set(props.failedChecks.map((f) => f.kind));
  const note = reward.info?.["note"];
  const passed = isSuccessful(reward.reward);
  return (
    <article
      className={`card reward-card ${passed ? "passed" : "failed"}`}
      data-testid="reward-card"
      aria-label="Reward"
    >
      <header className="reward-head">
        <h3>{props.title ?? "Reward"}</h3>
        <span className="reward-value" data-testid="reward-value">
          {reward.reward.toFixed(2)}
        </span>
      </header>
      {reward.reward_breakdown && (
        <p className="breakdown">
          {Object.entries(reward.reward_breakdown).map(([kind, value]) => (
            <span key={kind} className={`pill${value !== null && value < 1 ? " pill-bad" : ""}`}>
              {kind} {value === null ? "needs judge" : value.toFixed(2)}
            </span>
          ))}
        </p>
      )}
      {typeof note === "string" && <p className="note">{note}</p>}
      {props.failedChecks.length > 0 && (
        <div className="failed-summary" role="status">
          <strong>What failed:</strong>
          <ul>
            {props.failedChecks.map((f, i) => (
              <li key={i}>
                <span className="badge bad">{f.kind}</span> {f.check}
              </li>
            ))}
          </ul>
        </div>
      )}
      <Section
        title="Database"
        counted={basis.has("DB")}
        highlight={failedKinds.has("DB")}
        rows={
          reward.db_check
            ? [
                {
                  ok: reward.db_check.db_match,
                  label: reward.db_check.db_match
                    ? "final database equals the gold one"
                    : "final database differs from the gold one",
                },
              ]
            : []
        }
      />
      <Section
        title="Actions"
        counted={basis.has("ACTION")}
        highlight={failedKinds.has("ACTION")}
        rows={(reward.action_checks ?? []).map((c) => ({
          ok: c.action_match,
          label: `${c.action.name}(${showValue(c.action.arguments, 160)})`,
        }))}
      />
      <Section
        title="Communicated info"
        counted={basis.has("COMMUNICATE")}
        highlight={failedKinds.has("COMMUNICATE")}
        rows={(reward.communicate_checks ?? []).map((c) => ({
          ok: c.met,
          label: `"${c.info}"`,
          detail: c.justification,
        }))}
      />
      <Section
        title="Environment assertions"
        counted={basis.has("ENV_ASSERTION")}
        highlight={failedKinds.has("ENV_ASSERTION")}
        rows={(reward.env_assertions ?? []).map((c) => ({
          ok: c.met,
          label: `${c.env_assertion.env_type}.${c.env_assertion.func_name}(${showValue(c.env_assertion.arguments, 120)})`,
        }))}
      />
      <Section
        title="NL assertions"
        counted={basis.has("NL_ASSERTION")}
        highlight={failedKinds.has("NL_ASSERTION")}
        rows={(reward.nl_assertions ?? []).map((c) => ({
          ok: c.met,
          label: c.nl_assertion,
          detail: c.justification,
        }))}
      />
    </article>
  );
}
