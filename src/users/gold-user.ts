import type { UserSession, UserSimulator, UserStart } from "../core/agent.js";
import type { Message, UserMessage } from "../core/message.js";
import { goldFinalMessage, USER_ACTION_REQUEST } from "../agents/gold-agent.js";

/**
 * `scripted:gold` — the customer that goes with the gold agent: states the reason for the call, performs
 * its own gold actions (e.g. on its phone) when the agent asks, and ends the call once the agent has
 * given the final answer the gold agent gives.
 */
export const goldUser: UserSimulator = {
  name: "scripted:gold",
  model: "scripted:gold",
  start(init: UserStart): UserSession {
    const actions = init.task.evaluation_criteria?.actions ?? [];
    const userActionIndexes = actions.flatMap((a, i) => (a.requestor === "user" ? [i] : []));
    let next = 0; // index into userActionIndexes
    let opened = init.history.some((m) => m.role === "user");
    let callCount = 0;
    const instructions = init.scenario.instructions;
    const opening = typeof instructions === "string" ? instructions : instructions.reason_for_call;
    return {
      async respond(incoming: readonly Message[]): Promise<UserMessage> {
        if (incoming.some((m) => m.role === "tool"))
          return { role: "user", content: "I have done that.", cost: 0 };
        const said = incoming.find((m) => m.role === "assistant")?.content ?? "";
        if (!opened) {
          opened = true;
          return { role: "user", content: opening, cost: 0 };
        }
        if (said.startsWith(USER_ACTION_REQUEST) && next < userActionIndexes.length) {
          const calls = [];
          let index = userActionIndexes[next]!;
          while (actions[index]?.requestor === "user") {
            const action = actions[index]!;
            calls.push({
              id: `gold_user_call_${callCount++}`,
              name: action.name,
              arguments: action.arguments,
              requestor: "user" as const,
            });
            index++;
            next++;
          }
          return { role: "user", content: null, tool_calls: calls, cost: 0 };
        }
        if (said === goldFinalMessage(init.task) || said.startsWith("Is there anything else")) {
          return { role: "user", content: "Thank you, that is all. ###STOP###", cost: 0 };
        }
        return { role: "user", content: "Please go on.", cost: 0 };
      },
    };
  },
};
