/**
 * Bring your own agent: implement passk's `Agent` interface around your own code and test it like any
 * model, e.g.
 *
 *   passk simulate --domain mock --task create_task_1 --agent-llm module:./examples/custom-agent.ts
 *   passk run --domain mock --agent-llm module:./examples/custom-agent.ts --num-trials 3
 *
 * `start` is called once per conversation with the policy, the tools (JSON Schema) and the history;
 * `respond` gets what arrived since the agent last spoke (a customer message, or its tool results) and
 * returns one message: text for the customer, or tool calls. This toy agent handles the mock domain's
 * "create a task called '…'" requests with plain code; a real one would call its own LLM stack here.
 */
import type { Agent, AgentSession } from "../src/core/agent.js";
import type { AssistantMessage, Message } from "../src/core/message.js";

export const taskDeskAgent: Agent = {
  name: "task-desk-rules",
  start(init): AgentSession {
    const canCreate = init.tools.some((tool) => tool.name === "create_task");
    let calls = 0;
    return {
      async respond(incoming: readonly Message[]): Promise<AssistantMessage> {
        const result = incoming.find((m) => m.role === "tool");
        if (result) {
          return result.error
            ? { role: "assistant", content: `Sorry, that did not work: ${result.content}` }
            : { role: "assistant", content: "Your task has been created successfully." };
        }
        const said = incoming.find((m) => m.role === "user")?.content ?? "";
        const title = /called ['"‘’“”]([^'"‘’“”]+)['"‘’“”]/i.exec(said)?.[1];
        const user = /\buser_\d+\b/.exec(said)?.[0];
        if (canCreate && title && user) {
          return {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id: `desk_${calls++}`,
                name: "create_task",
                arguments: { user_id: user, title },
                requestor: "assistant",
              },
            ],
          };
        }
        return { role: "assistant", content: "Which user is it for, and what should the task be called?" };
      },
    };
  },
};

export default taskDeskAgent;
