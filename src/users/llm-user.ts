import type { UserSession, UserSimulator, UserStart } from "../core/agent.js";
import type { LanguageModel, LlmMessage } from "../core/llm.js";
import type { Message, UserMessage } from "../core/message.js";
import { participantTurn, participantView } from "../core/participant-view.js";
import { userSystemPrompt } from "./user-prompt.js";

export interface LlmUserOptions {
  /** Guidelines for a customer without tools (`data/user_simulator/simulation_guidelines.md`). */
  guidelines: string;
  /** Guidelines for a customer with tools (`simulation_guidelines_tools.md`). */
  guidelinesWithTools: string;
  /**
   * The system prompt template with `{global_user_sim_guidelines_with_persona}` and `{instructions}`
   * (τ²'s, read from its source under the τ² protocol); default: the same layout in passk's code.
   */
  template?: string;
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
    // Its state is the conversation as its side sees it: rebuilt from any history.
    resumesFromHistory: true,
    start(init: UserStart): UserSession {
      const guidelines = init.tools.length > 0 ? options.guidelinesWithTools : options.guidelines;
      const system = userSystemPrompt({
        guidelines,
        scenario: init.scenario,
        ...(options.template !== undefined ? { template: options.template } : {}),
      });
      const names = new Map<string, string>();
      const history: LlmMessage[] = participantView(init.history, "user", names);
      return {
        async respond(incoming: readonly Message[]): Promise<UserMessage> {
          history.push(...participantView(incoming, "user", names));
          const response = await model.generate({
            system,
            messages: history,
            tools: init.tools,
            params: { seed: init.seed },
            // The per-trial seed salts the response cache: k trials stay k conversations, not one replayed.
            cacheSalt: `trial-seed:${init.seed}`,
            ...(init.signal ? { signal: init.signal } : {}),
          });
          const message: UserMessage = { role: "user", ...participantTurn(response, "user") };
          history.push(...participantView([message], "user", names));
          return message;
        },
      };
    },
  };
}
