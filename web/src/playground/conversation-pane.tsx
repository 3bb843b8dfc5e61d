import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import type { Message } from "../../../src/core/message.js";
import type { ToolSummary } from "../../../src/server/api-schemas.js";
import { MessageList } from "../components/message-list.js";
import { CustomerTools } from "./customer-tools.js";
import type { ConversationStatus } from "./use-conversation.js";

export function ConversationPane(props: {
  messages: readonly Message[];
  status: ConversationStatus;
  human: boolean;
  /** The customer's own tools, usable in human mode. */
  customerTools: readonly ToolSummary[];
  onSay: (text: string) => void;
  onUseTool: (name: string, args: Record<string, unknown>) => void;
  onEnd: () => void;
}) {
  const [draft, setDraft] = useState("");
  const end = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  const canType = props.human && props.status === "awaiting-customer";
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
    props.onSay(text);
    setDraft("");
  };
  const onKey = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey) submit(event);
  };
  const running =
    props.status === "running" || props.status === "awaiting-customer" || props.status === "starting";

  return (
    <div className="conversation">
      <div className="conversation-scroll" aria-live="polite">
        {props.messages.length === 0 && props.status === "idle" && (
          <p className="muted empty">Pick a task or a scenario and start a conversation.</p>
        )}
        <MessageList messages={props.messages} />
        {props.status === "running" && (
          <p className="typing muted" role="status">
            {props.human ? "The agent is answering…" : "The conversation is running…"}
          </p>
        )}
        <div ref={end} />
      </div>
      {props.human && props.status !== "ended" && props.status !== "idle" && (
        <CustomerTools tools={props.customerTools} enabled={canType} onUse={props.onUseTool} />
      )}
      {(props.human || running) && props.status !== "idle" && (
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
          {running && (
            <button type="button" className="secondary" onClick={props.onEnd}>
              {props.human ? "End & grade" : "Stop"}
            </button>
          )}
        </form>
      )}
    </div>
  );
}
