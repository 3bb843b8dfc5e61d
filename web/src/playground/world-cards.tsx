import { useMemo, useState, type ReactNode } from "react";
import type { FieldChange, SequencedEvent } from "../../../src/server/api-schemas.js";
import { describeValue, money, topField, touchedRecords, type TouchedRecord } from "./world-records.js";

/** The collections drawn as cards: airline's reservations, retail's orders. */
const CARD_COLLECTIONS: ReadonlySet<string> = new Set(["reservations", "orders"]);

const words = (value: unknown) => (typeof value === "string" ? value.replace(/_/g, " ") : "—");
const list = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value)
    ? value.filter((v): v is Record<string, unknown> => v !== null && typeof v === "object")
    : [];

/** One line of a card; highlighted when a field it shows changed. */
function Row(props: {
  label: string;
  fields: readonly string[];
  changed: ReadonlySet<string>;
  children: ReactNode;
}) {
  const changed = props.fields.some((f) => props.changed.has(f));
  return (
    <div className={changed ? "world-row changed" : "world-row"} data-changed={changed || undefined}>
      <dt>{props.label}</dt>
      <dd>{props.children}</dd>
    </div>
  );
}

/** What changed, old → new, field by field. */
function Changes(props: { changes: readonly FieldChange[] }) {
  if (props.changes.length === 0) return null;
  return (
    <ul className="world-changes" aria-label="What changed" data-testid="world-changes">
      {props.changes.map((c) => (
        <li key={c.path}>
          <span className="world-path">{c.path.replace(/_/g, " ")}</span> <del>{describeValue(c.before)}</del>{" "}
          → <ins>{describeValue(c.after)}</ins>
        </li>
      ))}
    </ul>
  );
}

function Status(props: { status: string; added: boolean; changed: boolean }) {
  const bad = /cancel/.test(props.status);
  return (
    <span className="world-status">
      {props.added && <span className="badge added">new</span>}
      <span className={`badge${bad ? " bad" : props.changed ? " changed" : ""}`} data-testid="world-status">
        {props.status}
      </span>
    </span>
  );
}

/** Airline: a reservation's itinerary, passengers, cabin, bags, status and payments. */
function ReservationCard(props: { touched: TouchedRecord }) {
  const { record: r, changes, added, id } = props.touched;
  const changed = new Set(changes.map((c) => topField(c.path)));
  const status = typeof r.status === "string" && r.status !== "" ? r.status : "active";
  return (
    <article
      className="world-card"
      data-testid="reservation-card"
      data-id={id}
      aria-label={`Reservation ${id}`}
    >
      <header>
        <strong>Reservation {id}</strong>
        <Status status={status} added={added} changed={changed.has("status")} />
      </header>
      <dl>
        <Row label="Trip" fields={["origin", "destination", "flight_type", "cabin"]} changed={changed}>
          {String(r.origin ?? "—")} → {String(r.destination ?? "—")} · {words(r.flight_type)} ·{" "}
          {words(r.cabin)}
        </Row>
        <Row label="Flights" fields={["flights"]} changed={changed}>
          <ul className="world-list">
            {list(r.flights).map((f, i) => (
              <li key={i}>
                <code>{String(f.flight_number)}</code> {String(f.origin)}→{String(f.destination)}{" "}
                {String(f.date)} <span className="muted">{money(f.price)}</span>
              </li>
            ))}
          </ul>
        </Row>
        <Row label="Passengers" fields={["passengers"]} changed={changed}>
          {list(r.passengers).map(describeValue).join(", ") || "—"}
        </Row>
        <Row label="Bags" fields={["total_baggages", "nonfree_baggages", "insurance"]} changed={changed}>
          {String(r.total_baggages ?? 0)} ({String(r.nonfree_baggages ?? 0)} paid) · insurance{" "}
          {words(r.insurance)}
        </Row>
        <Row label="Payments" fields={["payment_history"]} changed={changed}>
          {list(r.payment_history).map(describeValue).join("; ") || "—"}
        </Row>
      </dl>
      <Changes changes={changes} />
    </article>
  );
}

/** Retail: an order's items, status, address, payments, and an exchange or return requested. */
function OrderCard(props: { touched: TouchedRecord }) {
  const { record: o, changes, added, id } = props.touched;
  const changed = new Set(changes.map((c) => topField(c.path)));
  const pending = ["exchange_items", "return_items"].filter((k) => Array.isArray(o[k]));
  return (
    <article className="world-card" data-testid="order-card" data-id={id} aria-label={`Order ${id}`}>
      <header>
        <strong>Order {id}</strong>
        <Status status={words(o.status)} added={added} changed={changed.has("status")} />
      </header>
      <dl>
        <Row label="Items" fields={["items"]} changed={changed}>
          <ul className="world-list">
            {list(o.items).map((item, i) => (
              <li key={i}>
                {String(item.name ?? "item")} <span className="muted">{String(item.item_id ?? "")}</span>{" "}
                {money(item.price)}
              </li>
            ))}
          </ul>
        </Row>
        <Row label="Ship to" fields={["address"]} changed={changed}>
          {describeValue(o.address)}
        </Row>
        <Row label="Payments" fields={["payment_history"]} changed={changed}>
          {list(o.payment_history).map(describeValue).join("; ") || "—"}
        </Row>
        {pending.map((k) => (
          <Row key={k} label={k === "return_items" ? "Return" : "Exchange"} fields={[k]} changed={changed}>
            {(o[k] as unknown[]).map(String).join(", ")}
            {k === "exchange_items" && Array.isArray(o.exchange_new_items)
              ? ` → ${o.exchange_new_items.map(String).join(", ")}`
              : ""}
          </Row>
        ))}
        {typeof o.cancel_reason === "string" && (
          <Row label="Cancelled" fields={["cancel_reason"]} changed={changed}>
            {words(o.cancel_reason)}
          </Row>
        )}
      </dl>
      <Changes changes={changes} />
    </article>
  );
}

/**
 * The agent's world as the conversation goes (airline's reservations, retail's orders): each record a
 * tool call named or changed, newest first, as the server holds it, with what changed old → new.
 */
export function WorldCards(props: { events: readonly SequencedEvent[] }) {
  const touched = useMemo(() => touchedRecords(props.events, CARD_COLLECTIONS), [props.events]);
  // Open beside the conversation on a wide screen; on a phone a line above the chat, opened by a tap.
  const [open, setOpen] = useState(() => !window.matchMedia?.("(max-width: 900px)").matches);
  if (touched.length === 0) return null;
  const changed = touched.filter((t) => t.added || t.changes.length > 0).length;
  return (
    <details
      className="world-cards"
      data-testid="world-cards"
      open={open}
      onToggle={(e) => setOpen(e.currentTarget.open)}
    >
      <summary>
        {touched.length === 1
          ? `${touched[0]!.collection === "reservations" ? "Reservation" : "Order"} ${touched[0]!.id}`
          : `${touched.length} ${touched[0]!.collection === "reservations" ? "reservations" : "orders"}`}
        {changed > 0 && <span className="badge changed">{changed} changed</span>}
      </summary>
      {touched.map((t) =>
        t.collection === "reservations" ? (
          <ReservationCard key={`r-${t.id}`} touched={t} />
        ) : (
          <OrderCard key={`o-${t.id}`} touched={t} />
        ),
      )}
    </details>
  );
}
