import type { FieldChange, SequencedEvent } from "../../../src/server/api-schemas.js";

/** A record of the agent's world the conversation touched, as it now stands and what changed in it. */
export interface TouchedRecord {
  collection: string;
  id: string;
  /** The record whole, as the server last sent it. */
  record: Record<string, unknown>;
  /** Each field the conversation changed: its value before the first change, after the last. */
  changes: FieldChange[];
  /** The conversation created it (e.g. a booking): it has no "before". */
  added: boolean;
  /** The sequence number of the last event that touched it. */
  seq: number;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The records of the given collections (airline's `reservations`, retail's `orders`) the agent's tool
 * calls named or changed, newest touched first: each whole as the server streamed it (the world's own
 * state, not what a tool answered), with its changes accumulated field by field. A field changed back
 * to where it started is no change.
 */
export function touchedRecords(
  events: readonly SequencedEvent[],
  collections: ReadonlySet<string>,
): TouchedRecord[] {
  const byKey = new Map<string, TouchedRecord>();
  const entry = (collection: string, id: string, seq: number): TouchedRecord | undefined => {
    if (!collections.has(collection)) return undefined;
    const key = `${collection}\u0000${id}`;
    let found = byKey.get(key);
    if (!found) byKey.set(key, (found = { collection, id, record: {}, changes: [], added: false, seq }));
    found.seq = seq;
    return found;
  };
  for (const event of events) {
    if (event.type === "tool-call-end") {
      for (const named of event.records ?? []) {
        const record = asRecord(named.record);
        const found = record && entry(named.collection, named.id, event.seq);
        if (found && record) found.record = record;
      }
    } else if (event.type === "world-change" && event.side === "agent") {
      for (const current of event.current ?? []) {
        const record = asRecord(current.record);
        const found = record && entry(current.collection, current.id, event.seq);
        if (found && record) found.record = record;
      }
      for (const change of event.records) {
        const found = entry(change.collection, change.id, event.seq);
        if (!found) continue;
        if (change.kind === "added") {
          found.added = true;
          continue;
        }
        if (found.added) continue;
        for (const field of change.fields) {
          const earlier = found.changes.find((c) => c.path === field.path);
          if (earlier) earlier.after = field.after;
          else found.changes.push({ ...field });
        }
        found.changes = found.changes.filter((c) => !same(c.before, c.after));
      }
    }
  }
  return [...byKey.values()].filter((r) => Object.keys(r.record).length > 0).sort((a, b) => b.seq - a.seq);
}

/** A field's value in a few words: flights, passengers, payments and items by what names them. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined || value === "") return "—";
  if (Array.isArray(value)) return value.length === 0 ? "none" : value.map(describeValue).join("; ");
  const record = asRecord(value);
  if (!record) return typeof value === "number" ? String(value) : String(value).replace(/_/g, " ");
  if (typeof record.flight_number === "string")
    return `${record.flight_number} ${String(record.origin ?? "")}→${String(record.destination ?? "")} ${String(record.date ?? "")}`.trim();
  if (typeof record.first_name === "string") return `${record.first_name} ${String(record.last_name ?? "")}`;
  if (typeof record.item_id === "string")
    return `${String(record.name ?? "item")} ${record.item_id}${typeof record.price === "number" ? ` ${money(record.price)}` : ""}`;
  const payer = record.payment_id ?? record.payment_method_id;
  if (typeof payer === "string" && typeof record.amount === "number")
    return `${record.transaction_type === "refund" ? "refund " : ""}${money(record.amount)} ${payer}`;
  if (typeof record.address1 === "string")
    return [record.address1, record.address2, record.city, record.state, record.zip, record.country]
      .filter((part) => typeof part === "string" && part !== "")
      .join(", ");
  return JSON.stringify(value);
}

/** An amount of money as the domains' data holds it (dollars). */
export function money(amount: unknown): string {
  if (typeof amount !== "number") return "—";
  const text = `$${Math.abs(amount).toLocaleString("en-US", { maximumFractionDigits: 2 })}`;
  return amount < 0 ? `-${text}` : text;
}

/** The top-level field a change's dotted path belongs to (`address.city` → `address`). */
export const topField = (path: string) => path.split(".")[0]!;

/** Whether the agent called one of the given write tools (whatever the call answered). */
export function agentWrote(events: readonly SequencedEvent[], writeTools: ReadonlySet<string>): boolean {
  return events.some(
    (e) => e.type === "tool-call-end" && e.result.requestor === "assistant" && writeTools.has(e.call.name),
  );
}
