import { createInterface } from "node:readline/promises";
import type { UserSession, UserSimulator } from "../core/agent.js";
import { parseToolCallArguments } from "../core/llm.js";
import type { UserMessage } from "../core/message.js";

/**
 * A person plays the customer at a terminal. Each line they type is a message; `/stop` ends the
 * conversation (`###STOP###`); `/tool <name> <json>` calls one of the customer's own tools.
 */
export function terminalUser(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): UserSimulator {
  return {
    name: "human",
    start(): UserSession {
      const lines = createInterface({ input, output, terminal: false });
      const iterator = lines[Symbol.asyncIterator]();
      let calls = 0;
      return {
        async respond(): Promise<UserMessage> {
          for (;;) {
            output.write("you> ");
            const next = await iterator.next();
            if (next.done) return { role: "user", content: "###STOP###", cost: 0 };
            const line = String(next.value).trim();
            if (line === "") continue;
            if (line === "/stop") return { role: "user", content: "###STOP###", cost: 0 };
            const tool = /^\/tool\s+(\S+)\s*(.*)$/.exec(line);
            if (tool) {
              const args = tool[2] ? parseToolCallArguments(tool[2]) : {};
              if (!args) {
                output.write("  (arguments must be a JSON object, e.g. /tool toggle_airplane_mode {})\n");
                continue;
              }
              return {
                role: "user",
                content: null,
                tool_calls: [
                  {
                    id: `human_call_${calls++}`,
                    name: tool[1]!,
                    arguments: args,
                    requestor: "user",
                  },
                ],
                cost: 0,
              };
            }
            return { role: "user", content: line, cost: 0 };
          }
        },
      };
    },
  };
}
