import type { Message } from "../../../src/core/message.js";
import { showValue } from "../format.js";

/** A conversation as chat bubbles; tool calls show as one-line notes, tool results are left to the trace. */
export function MessageList(props: { messages: readonly Message[]; showToolResults?: boolean }) {
  return (
    <ol className="messages">
      {props.messages.map((message, i) => {
        if (message.role === "tool") {
          if (!props.showToolResults) return null;
          return (
            <li key={i} className={`tool-result${message.error ? " error" : ""}`}>
              <details>
                <summary>
                  {message.error ? "✗ tool error" : "← tool result"}{" "}
                  <span className="muted">({(message.content ?? "").length} chars)</span>
                </summary>
                <pre>{message.content}</pre>
              </details>
            </li>
          );
        }
        if (message.role === "system") return null;
        const who = message.role === "assistant" ? "agent" : "customer";
        return (
          <li key={i} className={`message ${who}`}>
            <span className="who">{who}</span>
            {message.content && <p className="bubble">{message.content}</p>}
            {(message.tool_calls ?? []).map((call) => (
              <p key={call.id} className="call-note">
                → {call.name}({showValue(call.arguments, 140)})
              </p>
            ))}
          </li>
        );
      })}
    </ol>
  );
}
