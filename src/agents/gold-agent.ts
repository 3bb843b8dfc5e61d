import { AGENT_STOP_TOKEN, type AgentSession } from "../core/agent.js";
import type { AssistantMessage, Message } from "../core/message.js";
import type { Task } from "../core/task.js";
import { taskReadingAgent } from "../core/task-reading-agent.js";

/** The gold agent's last message: the strings the task expects communicated, or "Done.". */
export function goldFinalMessage(task: Task): string {
  const info = task.evaluation_criteria?.communicate_info ?? [];
  return info.length > 0 ? info.join(" ") : "Done.";
}

/** What the gold agent says when the customer must act on their side. */
export const USER_ACTION_REQUEST = "Please do the following on your side:";

/**
 * `scripted:gold` — a keyless demo agent that plays the task's gold actions in order: its own calls as
 * tool calls, the customer's as a request to the customer, then a final message carrying the
 * information the task expects to be communicated. Paired with the gold user it earns full reward on
 * tasks whose gold actions are sufficient, so a newcomer can see the whole pipeline without a model.
 */
export const goldAgent = taskReadingAgent(
  { name: "scripted:gold", model: "scripted:gold" },
  (init, task): AgentSession => {
    const actions = task.evaluation_criteria?.actions ?? [];
    let position = 0;
    let callCount = 0;
    let awaitingCustomer = false;
    let finished = false;
    return {
      async respond(incoming: readonly Message[]): Promise<AssistantMessage> {
        const customerSpoke = incoming.some((m) => m.role === "user");
        if (awaitingCustomer && customerSpoke) {
          while (actions[position]?.requestor === "user") position++;
          awaitingCustomer = false;
        }
        const next = actions[position];
        if (next && (next.requestor === "assistant" || init.solo)) {
          position++;
          const id = `gold_call_${callCount++}`;
          return {
            role: "assistant",
            content: null,
            tool_calls: [{ id, name: next.name, arguments: next.arguments, requestor: "assistant" }],
            cost: 0,
          };
        }
        if (next) {
          awaitingCustomer = true;
          const steps: string[] = [];
          for (let i = position; actions[i]?.requestor === "user"; i++)
            steps.push(`${actions[i]!.name} ${JSON.stringify(actions[i]!.arguments)}`);
          return { role: "assistant", content: `${USER_ACTION_REQUEST} ${steps.join("; ")}.`, cost: 0 };
        }
        if (init.solo) return { role: "assistant", content: AGENT_STOP_TOKEN, cost: 0 };
        if (!finished) {
          finished = true;
          return { role: "assistant", content: goldFinalMessage(task), cost: 0 };
        }
        return { role: "assistant", content: "Is there anything else I can help you with?", cost: 0 };
      },
    };
  },
);
