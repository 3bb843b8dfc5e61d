import { showValue } from "../format.js";

/**
 * A JSON value, readable at any length: short values inline; long ones as a one-line preview that
 * expands to the value pretty-printed (never a narrow column of wrapped characters).
 */
export function ValueView(props: { value: unknown; inline?: number; className?: string }) {
  const max = props.inline ?? 60;
  const compact = props.value === undefined ? "—" : (JSON.stringify(props.value) ?? String(props.value));
  if (compact.length <= max) {
    return <code className={`value ${props.className ?? ""}`}>{compact}</code>;
  }
  return (
    <details className={`value long ${props.className ?? ""}`}>
      <summary>
        <code>{showValue(props.value, max)}</code>
      </summary>
      <pre>{JSON.stringify(props.value, null, 2)}</pre>
    </details>
  );
}
