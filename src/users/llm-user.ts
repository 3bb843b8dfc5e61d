import type { UserSession, UserSimulator, UserStart } from "../core/agent.js";
import type { LanguageModel, LlmMessage } from "../core/llm.js";
import type { Message, ToolCall, UserMessage } from "../core/message.js";
import { userSystemPrompt } from "./user-prompt.js";

export interface LlmUserOptions {
  /** Guidelines for a customer without tools (`data/user_simulator/simulation_guidelines.md`). */
  guidelines: string;
  /** Guidelines for a customer with tools (`simulation_guidelines_tools.md`). */
  guidelinesWithTools: string;
}

/**
 * The LLM customer: plays the task's hidden scenario, sees only the agent's text (never its tool
 * calls), may use its own tools (its phone), and ends with a stop token. Roles are flipped for the
 * model: the agent speaks as "user", the customer as "assistant".
 */
export function llmUser(model: LanguageModel, options: LlmUserOptions): UserSimulator {
  return {
    name: "user_simulator",
    model: model.spec,
    start(init: UserStart): UserSession {
      const guidelines = init.tools.length > 0 ? options.guidelinesWithTools : options.guidelines;
      const system = userSystemPrompt({ guidelines, scenario: init.scenario });
      const names = new Map<string, string>();
      const history: LlmMessage[] = userView(init.history, names);
      return {
        async respond(incoming: readonly Message[]): Promise<UserMessage> {
          history.push(...userView(incoming, names));
          const response = await model.generate({
            system,
            messages: history,
            tools: init.tools,
            params: { seed: init.seed },
            // The per-trial seed salts the response cache: k trials stay k conversations, not one replayed.
            cacheSalt: `trial-seed:${init.seed}`,
            ...(init.signal ? { signal: init.signal } : {}),
          });
          const toolCalls: ToolCall[] = response.toolCalls.map((call) => ({
            id: call.id,
            name: call.name,
            arguments: call.arguments ?? {},
            requestor: "user",
            ...(call.arguments === undefined ? { raw_arguments: call.argumentsText } : {}),
          }));
          const message: UserMessage = {
            role: "user",
            content: response.text && response.text.trim() !== "" ? response.text : null,
            tool_calls: toolCalls.length > 0 ? toolCalls : null,
            cost: response.cost,
            usage: {
              prompt_tokens: response.usage.promptTokens,
              completion_tokens: response.usage.completionTokens,
            },
            raw_data: response.raw ?? null,
          };
          history.push(...userView([message], names));
          return message;
        },
      };
    },
  };
}

/** The conversation from the customer's side, roles flipped; agent tool traffic is invisible. */
export function userView(messages: readonly Message[], names = new Map<string, string>()): LlmMessage[] {
  const out: LlmMessage[] = [];
  for (const message of messages) {
    if (message.role === "assistant" && !message.tool_calls?.length && message.content) {
      out.push({ role: "user", content: message.content });
    } else if (message.role === "user") {
      const calls = (message.tool_calls ?? []).map((c) => {
        names.set(c.id, c.name);
        const raw = (c as { raw_arguments?: unknown }).raw_arguments;
        return {
          id: c.id,
          name: c.name,
          arguments: c.arguments,
          argumentsText: typeof raw === "string" ? raw : JSON.stringify(c.arguments),
        };
      });
      out.push({
        role: "assistant",
        content: message.content ?? null,
        ...(calls.length > 0 ? { toolCalls: calls } : {}),
      });
    } else if (message.role === "tool" && message.requestor === "user") {
      out.push({
        role: "tool",
        toolCallId: message.id,
        toolName: names.get(message.id) ?? "",
        content: message.content ?? "",
        isError: message.error,
      });
    }
  }
  return out;
}
