import type { ReactNode } from "react";
import type { RewardInfo } from "../../../src/core/simulation.js";
import { isSuccessful } from "../../../src/metrics/pass-hat-k.js";
import { CulpritSchema, type Review } from "../../../src/review/blame.js";
import type { FailedCheck } from "../../../src/server/api-schemas.js";
import { ValueView } from "./value-view.js";

interface CheckRow {
  ok: boolean | null;
  label: ReactNode;
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

/** Which side's final database differs from the gold one, when a diff says so. */
export interface DbSides {
  agent: boolean;
  user: boolean;
}

/** What the database check found, saying which side differs (telecom: the customer's phone). */
export function dbCheckSentence(match: boolean, sides: DbSides | null | undefined): string {
  if (match) return "final database equals the gold one";
  if (!sides) return "final database differs from the gold one";
  if (sides.user && !sides.agent)
    return "the customer's side (their device and account as they see it) differs from the gold one; the agent's database matches";
  if (sides.user && sides.agent)
    return "both the agent's database and the customer's side differ from the gold ones";
  if (sides.agent) return "the agent's database differs from the gold one";
  return "the recorded check failed, but replaying the conversation here finds no difference";
}

/** The reward and every check behind it; failed checks that count are highlighted. */
const CULPRIT_WORDS: Record<Review["culprit"], string> = {
  agent: "the agent",
  user_simulator: "the simulated customer",
  task: "the task (a defect)",
  infrastructure: "the infrastructure",
  undetermined: "undetermined",
};

/** A culprit as a reader says it ("the simulated customer"); an unknown one as stored. */
export function culpritWords(culprit: string): string {
  const known = CulpritSchema.safeParse(culprit);
  return known.success ? CULPRIT_WORDS[known.data] : culprit.replace(/_/g, " ");
}

/** `passk review`'s verdict on a failure: who, at which turn, why, and what it rests on. */
export function ReviewSummary(props: {
  review: Review;
  onShowTurn?: (turn: number) => void;
  /** A person played the customer (the playground's human mode): the customer is "you". */
  customerIsPerson?: boolean;
}) {
  const { review, onShowTurn, customerIsPerson } = props;
  const by = review.source === "llm" ? "the reviewer model" : `check ${review.check ?? ""}`.trim();
  const culprit =
    customerIsPerson && review.culprit === "user_simulator"
      ? "you (the customer)"
      : CULPRIT_WORDS[review.culprit];
  return (
    <div className="failed-summary review-summary" data-testid="review">
      <strong>Who caused it:</strong> <span className="badge bad">{culprit}</span>
      {review.turn !== null && (
        <>
          {" "}
          at{" "}
          {onShowTurn ? (
            <button type="button" className="link-button" onClick={() => onShowTurn(review.turn!)}>
              turn {review.turn}
            </button>
          ) : (
            `turn ${review.turn}`
          )}
        </>
      )}{" "}
      <span className="muted small">({by})</span>
      <p className="review-reason">{review.reason}</p>
      {review.evidence && review.evidence.length > 0 && (
        <ul aria-label="Evidence">
          {review.evidence.map((e, i) => (
            <li key={i}>
              <span className="muted small">
                {customerIsPerson && e.who === "customer" ? "you" : e.who}
                {e.turn !== null ? `, turn ${e.turn}` : ""}:
              </span>{" "}
              <q>{e.quote}</q>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function RewardCard(props: {
  rewardInfo: RewardInfo;
  failedChecks: readonly FailedCheck[];
  title?: string;
  /** Which database differs, when the predicted-vs-gold diff is known. */
  dbSides?: DbSides | null;
  /** Who caused the failure, when `passk review` placed it; shown beside what failed. */
  review?: Review | null;
  onShowTurn?: (turn: number) => void;
  customerIsPerson?: boolean;
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
                <span className="badge bad">{f.kind}</span>{" "}
                <span className="failed-check">
                  {f.kind === "DB" && props.dbSides ? dbCheckSentence(false, props.dbSides) : f.check}
                </span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {!passed && props.review && (
        <ReviewSummary
          review={props.review}
          onShowTurn={props.onShowTurn}
          customerIsPerson={props.customerIsPerson ?? false}
        />
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
                  label: dbCheckSentence(reward.db_check.db_match, props.dbSides),
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
          label: (
            <span className="call-inline">
              <code>{c.action.name}</code> <ValueView value={c.action.arguments} inline={70} />
            </span>
          ),
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
          label: (
            <span className="call-inline">
              <code>
                {c.env_assertion.env_type}.{c.env_assertion.func_name}
              </code>{" "}
              <ValueView value={c.env_assertion.arguments} inline={70} />
            </span>
          ),
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
