import { useState, type ReactNode } from "react";
import type { Message, ToolCall, ToolMessage } from "../../../src/core/message.js";
import { perturbationMarks } from "../../../src/core/perturbation.js";
import type { PolicyLinkNote } from "../../../src/server/api-schemas.js";
import { ShellTerminal, shellCommand } from "./shell-terminal.js";
import { ValueView } from "./value-view.js";

/** The words that end a conversation, and what they mean (they are control signals, not speech). */
const STOP_EVENTS: ReadonlyArray<{ token: string; customer: string; agent: string }> = [
  { token: "###STOP###", customer: "ended the conversation", agent: "ended the conversation" },
  {
    token: "###TRANSFER###",
    customer: "asked to be transferred to a human",
    agent: "transferred the customer",
  },
  {
    token: "###OUT-OF-SCOPE###",
    customer: "ended: the request is out of scope",
    agent: "ended: out of scope",
  },
];

/** A message's words without its stop token, and the event the token stands for. */
export function splitStopToken(content: string | null | undefined): {
  text: string;
  event: (typeof STOP_EVENTS)[number] | null;
} {
  const text = content ?? "";
  const event = STOP_EVENTS.find((e) => text.includes(e.token)) ?? null;
  return { text: event ? text.split(event.token).join("").trim() : text, event };
}

export interface MessageMark {
  /** Shown above the message, e.g. "first departure from the gold actions". */
  label: string;
  detail?: ReactNode;
}

function CallNote(props: { call: ToolCall; result?: ToolMessage | undefined }) {
  const command = shellCommand(props.call);
  if (command !== undefined)
    return <ShellTerminal command={command} output={props.result?.content} error={props.result?.error} />;
  const args = JSON.stringify(props.call.arguments);
  return (
    <div className="call-note">
      <span className="call-name">→ {props.call.name}</span>
      {args === "{}" ? (
        <code className="value">()</code>
      ) : (
        <ValueView value={props.call.arguments} inline={90} />
      )}
    </div>
  );
}

/** What a perturbation (`--perturb`) did to a message: a fault, a partial result, an injected instruction. */
function PerturbationTags(props: { message: Message }) {
  const marks = perturbationMarks(props.message);
  if (marks.length === 0) return null;
  return (
    <>
      {marks.map((mark, i) => (
        <p key={i} className="perturbation-tag" data-testid="perturbation">
          <span aria-hidden="true">⚡</span> {mark.perturbation}: {mark.effect.replace(/_/g, " ")}
          {mark.detail ? ` (${mark.detail})` : ""}
        </p>
      ))}
    </>
  );
}

/** The policy passage a tool call or a refusal exercises, its text one click away. */
function PolicyNote(props: { note: PolicyLinkNote }) {
  const { note } = props;
  return (
    <details className="policy-note" data-testid="policy-note">
      <summary title={`${note.link.section} (score ${note.link.score.toFixed(1)})`}>
        § {note.link.section.split(" › ").at(-1) || "policy"} <span className="muted">— {note.by}</span>
      </summary>
      <pre className="policy-excerpt">{note.excerpt}</pre>
    </details>
  );
}

/** A message's words, folded past `foldAt` characters behind a button that shows them all. */
function Bubble(props: { text: string; foldAt: number | undefined }) {
  const [open, setOpen] = useState(false);
  const { text, foldAt } = props;
  if (foldAt === undefined || text.length <= foldAt || open) return <p className="bubble">{text}</p>;
  // Cut at a word boundary near the limit, so the fold does not split a word or an id.
  const cut = text.lastIndexOf(" ", Math.floor(foldAt * 0.8));
  const shown = text.slice(0, cut > foldAt / 2 ? cut : Math.floor(foldAt * 0.8));
  return (
    <p className="bubble folded" data-testid="folded-message">
      {shown}…{" "}
      <button type="button" className="link-button" onClick={() => setOpen(true)}>
        show all {text.length.toLocaleString("en")} characters
      </button>
    </p>
  );
}

/**
 * A conversation as chat bubbles. Tool calls show as notes (long arguments expand), tool results are
 * folded (or left to the trace); a stop or transfer token shows as an event, not as words.
 */
export function MessageList(props: {
  messages: readonly Message[];
  showToolResults?: boolean;
  /** Messages to mark (by index), e.g. where a trajectory departs from the gold actions. */
  marks?: ReadonlyMap<number, MessageMark>;
  /** DOM ids `${idPrefix}-${index}`, so a mark can be scrolled to. */
  idPrefix?: string;
  /** The person at the keyboard plays the customer ("You ended the conversation"). */
  customerIsYou?: boolean;
  /** Number each message (its index, as turn links and `turn_idx` count), linking to it. */
  turnHref?: (index: number) => string;
  /** Only the messages that call tools (and their results, when shown). */
  toolCallsOnly?: boolean;
  /** Fold message texts longer than this many characters. */
  foldLongAt?: number;
  /** Shown at the end of a participant's message (by index): the model call behind it. */
  after?: (index: number, message: Message) => ReactNode;
  /** The policy passages messages exercise (a tool call's, a refusal's), shown under them. */
  policyLinks?: readonly PolicyLinkNote[];
}) {
  // A shell call shows its answer in its terminal, so that answer is not shown again on its own.
  const shellCalls = new Set(
    props.messages.flatMap((m) =>
      m.role === "assistant" || m.role === "user"
        ? (m.tool_calls ?? []).filter((c) => c.id !== "" && shellCommand(c) !== undefined).map((c) => c.id)
        : [],
    ),
  );
  const results = new Map<string, ToolMessage>();
  for (const m of props.messages) if (m.role === "tool" && shellCalls.has(m.id)) results.set(m.id, m);
  return (
    <ol className="messages">
      {props.messages.map((message, i) => {
        const mark = props.marks?.get(i);
        const id = props.idPrefix ? `${props.idPrefix}-${i}` : undefined;
        const marked = mark ? " marked" : "";
        const number = props.turnHref && (
          <a className="turn-number" href={props.turnHref(i)} title={`Link to turn ${i}`}>
            #{i}
          </a>
        );
        const markNote = mark && (
          <div className="mark-note" role="note">
            <strong>{mark.label}</strong>
            {mark.detail && <div className="mark-detail">{mark.detail}</div>}
          </div>
        );
        if (message.role === "tool") {
          // A perturbed result shows even when results are folded away: it explains what follows.
          const inTerminal = shellCalls.has(message.id);
          if ((inTerminal || !props.showToolResults) && !mark && perturbationMarks(message).length === 0)
            return null;
          return (
            <li
              key={i}
              id={id}
              className={`tool-result${message.error ? " error" : ""}${marked}`}
              data-index={i}
            >
              {markNote}
              {number}
              <PerturbationTags message={message} />
              {!inTerminal && (
                <details>
                  <summary>
                    {message.error ? "✗ tool error" : "← tool result"}{" "}
                    <span className="muted">({(message.content ?? "").length} chars)</span>
                  </summary>
                  <pre>{message.content}</pre>
                </details>
              )}
            </li>
          );
        }
        if (message.role === "system") return null;
        if (props.toolCallsOnly && (message.tool_calls ?? []).length === 0 && !mark) return null;
        const who = message.role === "assistant" ? "agent" : "customer";
        const { text, event } = splitStopToken(message.content);
        const actor = who === "agent" ? "The agent" : props.customerIsYou ? "You" : "The customer";
        return (
          <li key={i} id={id} className={`message ${who}${marked}`} data-index={i}>
            {markNote}
            <PerturbationTags message={message} />
            {(text !== "" || (message.tool_calls ?? []).length > 0) && (
              <span className="who">
                {number} {who}
              </span>
            )}
            {text !== "" && <Bubble text={text} foldAt={props.foldLongAt} />}
            {(message.tool_calls ?? []).map((call) => (
              <CallNote key={call.id} call={call} result={results.get(call.id)} />
            ))}
            {(props.policyLinks ?? [])
              .filter((note) => note.messageIndex === i)
              .map((note, j) => (
                <PolicyNote key={j} note={note} />
              ))}
            {event && (
              <p className="conversation-event" data-testid="stop-event">
                <span aria-hidden="true">■</span> {actor} {who === "agent" ? event.agent : event.customer}
              </p>
            )}
            {props.after?.(i, message)}
          </li>
        );
      })}
    </ol>
  );
}
