import type { UserSession, UserSimulator } from "../core/agent.js";
import type { UserMessage } from "../core/message.js";

/**
 * A customer that says fixed lines in order, whatever the agent says, then `###STOP###`. For tests and
 * for driving an agent through a known conversation.
 */
export function scriptedUser(lines: readonly string[], options: { name?: string } = {}): UserSimulator {
  return {
    name: options.name ?? "scripted",
    start(): UserSession {
      let index = 0;
      return {
        async respond(): Promise<UserMessage> {
          const line = lines[index++];
          return { role: "user", content: line ?? "###STOP###", cost: 0 };
        },
      };
    },
  };
}
