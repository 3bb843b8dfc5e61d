import type { Agent, AgentSession } from "../core/agent.js";
import type { AssistantMessage, Message } from "../core/message.js";

/**
 * An agent that re-sends the assistant messages of a recorded conversation, in order — to re-run a
 * conversation exactly (e.g. against changed tools) or to drive tests. After the recording it stops
 * talking politely.
 */
export function replayAgent(recorded: readonly Message[], options: { name?: string } = {}): Agent {
  const messages = recorded.filter((m): m is AssistantMessage => m.role === "assistant");
  return {
    name: options.name ?? "replay",
    // Where it is in the recording follows from the history.
    resumesFromHistory: true,
    start(init): AgentSession {
      // Skip what the conversation already contains (the greeting or the task's history).
      let index = init.history.filter((m) => m.role === "assistant").length;
      return {
        async respond(): Promise<AssistantMessage> {
          const next = messages[index++];
          if (!next)
            return { role: "assistant", content: "Is there anything else I can help you with?", cost: 0 };
          return {
            role: "assistant",
            content: next.content ?? null,
            ...(next.tool_calls ? { tool_calls: next.tool_calls } : {}),
            cost: next.cost ?? 0,
            ...(next.usage ? { usage: next.usage } : {}),
          };
        },
      };
    },
  };
}
