import type { FieldChange, RecordChange, RecordDiff } from "../../../src/server/api-schemas.js";
import { showValue } from "../format.js";

function FieldTable(props: {
  rows: Array<{ path: string; left: unknown; right: unknown }>;
  left: string;
  right: string;
}) {
  if (props.rows.length === 0) return null;
  return (
    <table className="field-table">
      <thead>
        <tr>
          <th scope="col">field</th>
          <th scope="col">{props.left}</th>
          <th scope="col">{props.right}</th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr key={row.path}>
            <th scope="row">{row.path}</th>
            <td className="old">{showValue(row.left)}</td>
            <td className="new">{showValue(row.right)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A world change during a conversation: each changed record, field by field, before → after. */
export function WorldChangeCard(props: { side: "agent" | "user"; records: readonly RecordChange[] }) {
  return (
    <article className="card world-card" data-testid="world-change-card" aria-label="World change">
      <h3>
        <span aria-hidden="true">⟳</span>{" "}
        {props.side === "agent" ? "Database changed" : "Customer's side changed"}
      </h3>
      {props.records.map((record) => (
        <div key={`${record.collection}/${record.id}`} className="record">
          <p className="record-name">
            <span className={`badge ${record.kind}`}>{record.kind}</span> {record.collection} ·{" "}
            <code>{record.id}</code>
          </p>
          <FieldTable
            left="before"
            right="after"
            rows={record.fields.map((f: FieldChange) => ({ path: f.path, left: f.before, right: f.after }))}
          />
        </div>
      ))}
    </article>
  );
}

const KIND_LABEL: Record<RecordDiff["kind"], string> = {
  changed: "differs",
  only_predicted: "only in the agent's world",
  only_gold: "missing (only in the gold world)",
};

/** Predicted-vs-gold differences of a simulation's final databases. */
export function DbDiffView(props: { diffs: readonly RecordDiff[]; title: string }) {
  return (
    <section className="card diff-card" data-testid="db-diff" aria-label={props.title}>
      <h3>{props.title}</h3>
      {props.diffs.length === 0 && (
        <p className="muted">No differences: the final database equals the gold one.</p>
      )}
      {props.diffs.map((diff) => (
        <div key={`${diff.collection}/${diff.id}`} className="record">
          <p className="record-name">
            <span className={`badge ${diff.kind === "changed" ? "changed" : "removed"}`}>
              {KIND_LABEL[diff.kind]}
            </span>{" "}
            {diff.collection} · <code>{diff.id || "(whole collection)"}</code>
          </p>
          <FieldTable
            left="agent's world"
            right="gold world"
            rows={diff.fields.map((f) => ({ path: f.path, left: f.predicted, right: f.gold }))}
          />
        </div>
      ))}
    </section>
  );
}
