import { AGENT_STOP_TOKEN, type Agent, type AgentSession, type AgentStart } from "../core/agent.js";
import type { LanguageModel, LlmMessage, LlmResponse, LlmToolSpec } from "../core/llm.js";
import type { AssistantMessage, Message, ToolCall } from "../core/message.js";
import { agentSystemPrompt, type AgentPromptTemplates } from "./agent-prompt.js";

/** The tool a solo agent calls when the ticket is solved. */
export function doneTool(name = "done"): LlmToolSpec {
  return {
    name,
    description: "Call this when the ticket is fully resolved, as the only tool call of your last message.",
    parameters: { type: "object", properties: {} },
  };
}

export interface LlmAgentOptions {
  /** `--agent-prompt-template`: reproduce another prompt (e.g. τ²'s) exactly. */
  templates?: AgentPromptTemplates;
}

/** The built-in agent: one model, the domain policy as system prompt, the domain tools. */
export function llmAgent(model: LanguageModel, options: LlmAgentOptions = {}): Agent {
  return {
    name: "llm_agent",
    model: model.spec,
    start(init: AgentStart): AgentSession {
      const stopName = options.templates?.solo_stop_function_name ?? "done";
      const system = agentSystemPrompt({
        policy: init.policy,
        solo: init.solo,
        ticket: init.task.ticket,
        ...(options.templates ? { templates: options.templates } : {}),
      });
      const tools = init.solo ? [...init.tools, doneTool(stopName)] : [...init.tools];
      const toolNames = new Map<string, string>();
      const history: LlmMessage[] = agentView(init.history, toolNames);
      return {
        async respond(incoming: readonly Message[]): Promise<AssistantMessage> {
          history.push(...agentView(incoming, toolNames));
          const seed = typeof init.seed === "number" ? { seed: init.seed } : {};
          const response = await model.generate({
            system,
            messages: history,
            tools,
            params: seed,
            // The per-trial seed salts the response cache: k trials stay k conversations, not one replayed.
            cacheSalt: `trial-seed:${init.seed}`,
            ...(init.signal ? { signal: init.signal } : {}),
          });
          const message = toAssistantMessage(response);
          if (init.solo && response.toolCalls.some((call) => call.name === stopName)) {
            // τ²'s solo agent turns `done` into its stop token; the call itself never reaches the world.
            history.push({ role: "assistant", content: AGENT_STOP_TOKEN });
            return { ...message, content: AGENT_STOP_TOKEN, tool_calls: null };
          }
          history.push(...agentView([message], toolNames));
          return message;
        },
      };
    },
  };
}

/** A model response as a τ² assistant message (usage, cost and raw data included). */
export function toAssistantMessage(response: LlmResponse): AssistantMessage {
  const toolCalls: ToolCall[] = response.toolCalls.map((call) => ({
    id: call.id,
    name: call.name,
    arguments: call.arguments ?? {},
    requestor: "assistant",
    ...(call.arguments === undefined ? { raw_arguments: call.argumentsText } : {}),
  }));
  return {
    role: "assistant",
    content: response.text && response.text.trim() !== "" ? response.text : null,
    tool_calls: toolCalls.length > 0 ? toolCalls : null,
    cost: response.cost,
    usage: { prompt_tokens: response.usage.promptTokens, completion_tokens: response.usage.completionTokens },
    raw_data: response.raw ?? null,
  };
}

/**
 * The conversation as the agent sees it: its own messages and tool results, the customer's text.
 * `names` remembers tool names by call id across turns (tool results arrive after their calls).
 */
export function agentView(messages: readonly Message[], names = new Map<string, string>()): LlmMessage[] {
  const out: LlmMessage[] = [];
  for (const message of messages) {
    if (message.role === "assistant") {
      const calls = (message.tool_calls ?? []).map((c) => {
        names.set(c.id, c.name);
        return { id: c.id, name: c.name, arguments: c.arguments, argumentsText: rawArguments(c) };
      });
      out.push({
        role: "assistant",
        content: message.content ?? null,
        ...(calls.length > 0 ? { toolCalls: calls } : {}),
      });
    } else if (message.role === "user" && !message.tool_calls?.length && message.content) {
      out.push({ role: "user", content: message.content });
    } else if (message.role === "tool" && message.requestor === "assistant") {
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

function rawArguments(call: ToolCall): string {
  const raw = (call as { raw_arguments?: unknown }).raw_arguments;
  return typeof raw === "string" ? raw : JSON.stringify(call.arguments);
}
