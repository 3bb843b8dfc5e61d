import { AGENT_STOP_TOKEN, type Agent, type AgentSession, type AgentView } from "../core/agent.js";
import type { LanguageModel, LlmMessage, LlmToolSpec } from "../core/llm.js";
import type { AssistantMessage, Message } from "../core/message.js";
import { participantTurn, participantView } from "../core/participant-view.js";
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
  /** The prompt templates: τ²'s under the τ² protocol, or `--agent-prompt-template`'s. */
  templates?: AgentPromptTemplates;
  /** The solo agent's stop tool as the model sees it (τ²'s text under the τ² protocol). */
  doneTool?: LlmToolSpec;
}

/** The built-in agent: one model, the domain policy as system prompt, the domain tools. */
export function llmAgent(model: LanguageModel, options: LlmAgentOptions = {}): Agent {
  return {
    name: "llm_agent",
    model: model.spec,
    // Its state is the conversation as its side sees it: rebuilt from any history.
    resumesFromHistory: true,
    start(init: AgentView): AgentSession {
      const stopName = options.doneTool?.name ?? options.templates?.solo_stop_function_name ?? "done";
      const system = agentSystemPrompt({
        policy: init.policy,
        solo: init.solo,
        ticket: init.ticket,
        ...(options.templates ? { templates: options.templates } : {}),
      });
      const tools = init.solo ? [...init.tools, options.doneTool ?? doneTool(stopName)] : [...init.tools];
      const toolNames = new Map<string, string>();
      const history: LlmMessage[] = participantView(init.history, "assistant", toolNames);
      return {
        async respond(incoming: readonly Message[]): Promise<AssistantMessage> {
          history.push(...participantView(incoming, "assistant", toolNames));
          const response = await model.generate({
            system,
            messages: history,
            tools,
            params: { seed: init.seed },
            // The per-trial seed salts the response cache: k trials stay k conversations, not one replayed.
            cacheSalt: `trial-seed:${init.seed}`,
            ...(init.signal ? { signal: init.signal } : {}),
          });
          const message: AssistantMessage = { role: "assistant", ...participantTurn(response, "assistant") };
          if (init.solo && response.toolCalls.some((call) => call.name === stopName)) {
            // τ²'s solo agent turns `done` into its stop token; the call itself never reaches the world.
            history.push({ role: "assistant", content: AGENT_STOP_TOKEN });
            return { ...message, content: AGENT_STOP_TOKEN, tool_calls: null };
          }
          history.push(...participantView([message], "assistant", toolNames));
          return message;
        },
      };
    },
  };
}
