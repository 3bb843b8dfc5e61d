import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent, type ReactNode } from "react";
import type { Message } from "../../../src/core/message.js";
import type { ToolSummary } from "../../../src/server/api-schemas.js";
import { MessageList } from "../components/message-list.js";
import { CustomerTools } from "./customer-tools.js";
import type { ConversationStatus } from "./use-conversation.js";

export function ConversationPane(props: {
  messages: readonly Message[];
  status: ConversationStatus;
  connection: "connected" | "reconnecting";
  attempts: number;
  /** Why the page ended the conversation itself, if it did. */
  lost: string | null;
  /** How the server ended it, when not by finishing (stopped, failed, interrupted by a restart). */
  closing: { reason: string; message: string | null } | null;
  human: boolean;
  /** Whether this browser started it (and may type and end it); a shared link only watches. */
  owner: boolean;
  /** The customer's own tools, usable in human mode. */
  customerTools: readonly ToolSummary[];
  /** Resolves to whether the server took the message (the draft is kept otherwise). */
  onSay: (text: string) => Promise<boolean>;
  onUseTool: (name: string, args: Record<string, unknown>) => void;
  onEnd: () => void;
  onStopWaiting: () => void;
  /** Words to start the person's draft with (a scenario chip's opening line), once per conversation. */
  suggestion?: { conversationId: string; text: string } | null;
  /** The customer's brief, kept beside the composer while a person plays the customer. */
  brief?: ReactNode;
  /** Continue a stopped or interrupted conversation in a new one (its owner only). */
  onContinue?: () => void;
}) {
  const [draft, setDraft] = useState("");
  const suggested = props.suggestion;
  useEffect(() => {
    if (suggested) setDraft(suggested.text);
  }, [suggested?.conversationId]);
  const end = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  const reconnecting = props.connection === "reconnecting" && props.status !== "ended";
  const canType = props.owner && props.human && props.status === "awaiting-customer" && !reconnecting;
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: "end" });
  }, [props.messages.length]);
  useEffect(() => {
    if (canType) input.current?.focus();
  }, [canType]);

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    const text = draft.trim();
    if (!text || !canType) return;
    void props.onSay(text).then((sent) => {
      if (sent) setDraft((current) => (current.trim() === text ? "" : current));
    });
  };
  const onKey = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey) submit(event);
  };
  const running =
    props.status === "running" || props.status === "awaiting-customer" || props.status === "starting";

  return (
    <div className="conversation">
      {reconnecting && (
        <div className="connection-banner" role="alert" data-testid="connection-lost">
          <span className="spinner" aria-hidden="true" />
          <span>
            <strong>Connection lost, retrying…</strong>{" "}
            <span className="muted small">
              {props.attempts > 1 ? `attempt ${props.attempts}; ` : ""}the conversation resumes where it left
              off once the server answers.
            </span>
          </span>
          <button type="button" className="secondary" onClick={props.onStopWaiting}>
            Stop waiting
          </button>
        </div>
      )}
      <div className="conversation-scroll" aria-live="polite">
        {props.messages.length === 0 && props.status === "idle" && (
          <p className="muted empty">Pick a real request on the left, or a task, and start a conversation.</p>
        )}
        <MessageList messages={props.messages} customerIsYou={props.human} />
        {props.status === "running" && !reconnecting && (
          <p className="typing muted" role="status">
            {props.human ? "The agent is answering…" : "The conversation is running…"}
          </p>
        )}
        {props.closing && !props.lost && (
          <p
            className="card end-card lost"
            role="status"
            data-testid="conversation-closed"
            data-reason={props.closing.reason}
          >
            <strong>
              {props.closing.reason === "interrupted"
                ? "Interrupted."
                : props.closing.reason === "abandoned"
                  ? "Stopped."
                  : "Failed."}
            </strong>{" "}
            {props.closing.message}
            {props.owner &&
              props.onContinue &&
              (props.closing.reason === "interrupted" || props.closing.reason === "abandoned") && (
                <>
                  {" "}
                  <button type="button" className="secondary" onClick={props.onContinue}>
                    Continue
                  </button>
                </>
              )}
          </p>
        )}
        {props.lost && (
          <p className="card end-card lost" role="status" data-testid="conversation-lost">
            {props.lost}
          </p>
        )}
        <div ref={end} />
      </div>
      {!props.owner && running && (
        <p className="muted small" role="status" data-testid="watching-only">
          You are watching: only the browser that started this conversation can type in it or stop it.
        </p>
      )}
      {props.owner && props.human && props.status !== "idle" && props.brief}
      {props.owner && props.human && props.status !== "ended" && props.status !== "idle" && (
        <CustomerTools tools={props.customerTools} enabled={canType} onUse={props.onUseTool} />
      )}
      {props.owner && (props.human || running) && props.status !== "idle" && (
        <form className="composer" onSubmit={submit} aria-label="Your message">
          {props.human && (
            <>
              <label htmlFor="customer-message" className="visually-hidden">
                Message to the agent
              </label>
              <textarea
                id="customer-message"
                ref={input}
                rows={2}
                value={draft}
                maxLength={4000}
                disabled={!canType}
                placeholder={
                  canType
                    ? "Type as the customer… (Enter to send)"
                    : props.status === "ended"
                      ? "The conversation has ended."
                      : reconnecting
                        ? "Waiting for the server…"
                        : "Wait for the agent…"
                }
                onChange={(e) => setDraft(e.target.value)}
                onKeyDown={onKey}
              />
              <button type="submit" disabled={!canType || draft.trim() === ""}>
                Send
              </button>
            </>
          )}
          {running && !reconnecting && (
            <button
              type="button"
              className="secondary"
              onClick={props.onEnd}
              title={
                props.human
                  ? "End the conversation here and grade it (nothing is sent as if you typed it)"
                  : "Stop the simulation (it is not graded)"
              }
            >
              {props.human ? "End & grade" : "Stop"}
            </button>
          )}
        </form>
      )}
    </div>
  );
}
