import { useState } from "react";
import {
  sentMessages,
  type ModelCall,
  type SentMessage,
  type SimulationModelCalls,
} from "../../../src/core/model-calls.js";
import { formatCost } from "../format.js";

const ROLE_NAMES: Readonly<Record<string, string>> = {
  agent: "agent",
  user: "customer",
  judge: "judge",
  reranker: "reranker",
};

const count = (n: number) => n.toLocaleString("en");

function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** One line: who called which model, tokens in → out, latency, attempts, cache. */
function callSummary(call: ModelCall): string {
  const parts = [`${ROLE_NAMES[call.role] ?? call.role} · ${call.model}`];
  if (call.usage)
    parts.push(`${count(call.usage.prompt_tokens)} → ${count(call.usage.completion_tokens)} tokens`);
  parts.push(formatMs(call.latency_ms));
  if (call.attempts > 1) parts.push(`${call.attempts} attempts`);
  if (call.cached) parts.push("from the response cache");
  if (call.error !== null) parts.push("failed");
  return parts.join(" · ");
}

function SentMessageView(props: { message: SentMessage }) {
  const { message } = props;
  if (message.role === "tool")
    return (
      <li className={`sent-message tool${message.isError ? " error" : ""}`}>
        <span className="sent-role">
          tool result · {message.toolName}
          {message.isError ? " · error" : ""}
        </span>
        <pre>{message.content}</pre>
      </li>
    );
  return (
    <li className={`sent-message ${message.role}`}>
      <span className="sent-role">{message.role}</span>
      {message.content !== null && message.content !== "" && <pre>{message.content}</pre>}
      {message.role === "assistant" &&
        (message.toolCalls ?? []).map((call) => (
          <code key={call.id} className="sent-tool-call">
            → {call.name}({call.argumentsText})
          </code>
        ))}
    </li>
  );
}

/** What the call was sent and what it got back; built only once opened (long conversations send a lot). */
function CallBody(props: { record: SimulationModelCalls; index: number }) {
  const { record, index } = props;
  const call = record.calls[index]!;
  const prompt = record.prompts[call.prompt];
  const messages = sentMessages(record, index);
  return (
    <div className="model-call-body">
      <dl className="model-call-facts">
        <dt>Model</dt>
        <dd>
          <code>{call.model}</code> ({ROLE_NAMES[call.role] ?? call.role})
        </dd>
        <dt>Started</dt>
        <dd>{call.started_at}</dd>
        <dt>Latency</dt>
        <dd>{formatMs(call.latency_ms)}, retries and their waits included</dd>
        <dt>Tokens</dt>
        <dd>
          {call.usage ? (
            <>
              {count(call.usage.prompt_tokens)} in
              {call.usage.cache_read_tokens ? ` (${count(call.usage.cache_read_tokens)} cache reads)` : ""}
              {call.usage.cache_write_tokens ? ` (${count(call.usage.cache_write_tokens)} cache writes)` : ""}
              , {count(call.usage.completion_tokens)} out · cost {formatCost(call.cost)}
            </>
          ) : (
            "none reported"
          )}
        </dd>
        <dt>Attempts</dt>
        <dd>
          {call.attempts}
          {call.cached ? " · answered from the response cache (--cache), not the provider" : ""}
        </dd>
        {Object.keys(call.params).length > 0 && (
          <>
            <dt>Settings</dt>
            <dd>
              <code>{JSON.stringify(call.params)}</code>
            </dd>
          </>
        )}
        {call.reply?.finish_reason && (
          <>
            <dt>Finish reason</dt>
            <dd>{call.reply.finish_reason}</dd>
          </>
        )}
      </dl>
      {(call.errors.length > 0 || call.error !== null) && (
        <ol className="model-call-errors" aria-label="Provider errors served">
          {call.errors.map((e) => (
            <li key={e.attempt}>
              Attempt {e.attempt}: {e.status !== null ? `HTTP ${e.status} — ` : ""}
              {e.reason} <span className="muted">(retried after {formatMs(e.delay_ms)})</span>
            </li>
          ))}
          {call.error !== null && <li className="final">Failed for good: {call.error}</li>}
        </ol>
      )}
      <details className="model-call-part">
        <summary>System prompt ({count(prompt?.system.length ?? 0)} characters)</summary>
        <pre>{prompt?.system}</pre>
      </details>
      <details className="model-call-part">
        <summary>Tools the model saw ({prompt?.tools.length ?? 0})</summary>
        <ul className="model-call-tools">
          {prompt?.tools.map((tool) => (
            <li key={tool.name}>
              <details>
                <summary>
                  <code>{tool.name}</code> <span className="muted">{tool.description.split("\n")[0]}</span>
                </summary>
                <pre>{tool.description}</pre>
                <pre>{JSON.stringify(tool.parameters, null, 2)}</pre>
              </details>
            </li>
          ))}
        </ul>
      </details>
      <details className="model-call-part">
        <summary>Messages sent ({messages.length})</summary>
        <p className="muted small">
          As this model was sent them: “assistant” is its own earlier replies
          {call.role === "user" ? ", “user” the agent's words" : ""}.
        </p>
        <ol className="sent-messages">
          {messages.map((message, i) => (
            <SentMessageView key={i} message={message} />
          ))}
        </ol>
      </details>
    </div>
  );
}

/** A "model call" disclosure: closed, one line; open, the exact request and what came back. */
export function ModelCallDisclosure(props: { record: SimulationModelCalls; index: number }) {
  const [open, setOpen] = useState(false);
  const call = props.record.calls[props.index]!;
  const troubled = call.error !== null || call.errors.length > 0;
  return (
    <details
      className={`model-call${troubled ? " troubled" : ""}`}
      data-testid="model-call"
      onToggle={(event) => setOpen(event.currentTarget.open)}
    >
      <summary>
        <span className="model-call-label">model call</span> {callSummary(call)}
      </summary>
      {open && <CallBody record={props.record} index={props.index} />}
    </details>
  );
}

/** The record's calls by the message they produced (turn index); those tied to none under `null`. */
export function callsByTurn(record: SimulationModelCalls | null): Map<number | null, number[]> {
  const byTurn = new Map<number | null, number[]>();
  record?.calls.forEach((call, index) => {
    const list = byTurn.get(call.turn_idx) ?? [];
    list.push(index);
    byTurn.set(call.turn_idx, list);
  });
  return byTurn;
}

/** The calls that produced no message: the judge's, and one that failed and ended the conversation. */
export function UnattachedCalls(props: { record: SimulationModelCalls; indexes: readonly number[] }) {
  if (props.indexes.length === 0) return null;
  return (
    <div className="unattached-calls" data-testid="unattached-calls">
      <h3>Model calls that produced no message</h3>
      <p className="muted small">The judge's, and a call that failed and ended the conversation.</p>
      {props.indexes.map((index) => (
        <ModelCallDisclosure key={index} record={props.record} index={index} />
      ))}
    </div>
  );
}
