import type { FieldChange, RecordChange, RecordDiff } from "../../../src/server/api-schemas.js";
import { fieldRows, type DiffRow } from "./value-diff.js";
import { ValueView } from "./value-view.js";

function DiffRows(props: { rows: readonly DiffRow[]; left: string; right: string }) {
  if (props.rows.length === 0) return null;
  return (
    <div className="diff-rows" role="table" aria-label={`${props.left} vs ${props.right}`}>
      <div className="diff-row diff-head" role="row">
        <span role="columnheader">field</span>
        <span role="columnheader">{props.left}</span>
        <span role="columnheader">{props.right}</span>
      </div>
      {props.rows.map((row) => (
        <div key={row.path} className={`diff-row ${row.status}`} role="row">
          <span className="diff-path" role="rowheader" title={row.path}>
            {row.path}
          </span>
          <span className="diff-old" role="cell" data-side={props.left}>
            {row.status === "only-right" ? (
              <span className="muted">absent</span>
            ) : (
              <ValueView value={row.left} inline={36} />
            )}
          </span>
          <span className="diff-new" role="cell" data-side={props.right}>
            {row.status === "only-left" ? (
              <span className="muted">absent</span>
            ) : (
              <ValueView value={row.right} inline={36} />
            )}
          </span>
        </div>
      ))}
    </div>
  );
}

/** A record added or removed as a whole: its fields and values (there is no "before" to compare with). */
function RecordFields(props: { fields: ReadonlyArray<{ path: string; value: unknown }> }) {
  if (props.fields.length === 0) return null;
  return (
    <dl className="record-fields">
      {props.fields.map((f) => (
        <div key={f.path} style={{ display: "contents" }}>
          <dt>{f.path}</dt>
          <dd>
            <ValueView value={f.value} inline={40} />
          </dd>
        </div>
      ))}
    </dl>
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
          {record.kind === "changed" ? (
            <DiffRows
              left="before"
              right="after"
              rows={fieldRows(
                record.fields.map((f: FieldChange) => ({ path: f.path, left: f.before, right: f.after })),
              )}
            />
          ) : (
            <RecordFields
              fields={record.fields.map((f) => ({
                path: f.path,
                value: record.kind === "added" ? f.after : f.before,
              }))}
            />
          )}
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

/** Predicted-vs-gold differences of one side's final database. */
export function DbDiffView(props: { diffs: readonly RecordDiff[]; title: string; equalText: string }) {
  return (
    <section className="card diff-card" data-testid="db-diff" aria-label={props.title}>
      <h3>{props.title}</h3>
      {props.diffs.length === 0 && <p className="muted">{props.equalText}</p>}
      {props.diffs.map((diff) => (
        <div key={`${diff.collection}/${diff.id}`} className="record">
          <p className="record-name">
            <span className={`badge ${diff.kind === "changed" ? "changed" : "removed"}`}>
              {KIND_LABEL[diff.kind]}
            </span>{" "}
            {diff.collection} · <code>{diff.id || "(whole collection)"}</code>
          </p>
          <DiffRows
            left="agent's world"
            right="gold world"
            rows={fieldRows(diff.fields.map((f) => ({ path: f.path, left: f.predicted, right: f.gold })))}
          />
        </div>
      ))}
    </section>
  );
}
