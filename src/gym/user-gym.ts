import { z } from "zod";
import type { Agent, UserSession, UserSimulator } from "../core/agent.js";
import type { LlmToolSpec } from "../core/llm.js";
import type { Message, UserMessage } from "../core/message.js";
import type { UserScenario } from "../core/task.js";
import { goldAgent } from "../agents/gold-agent.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import { runConversation } from "../runner/conversation-job.js";
import type { ConversationProtocol } from "../runner/simulation-setup.js";
import { builtinDomainData, findTask } from "./agent-gym.js";
import { Episode, GymActionSchema, GymStateError, type GymObservation } from "./episode.js";

/** Where a customer's episode is set: which task of which domain, and the seed. */
export const UserGymResetSchema = z.strictObject({
  domain: z.string().min(1).max(64),
  taskId: z.string().min(1).max(512),
  seed: z.number().int().nonnegative().optional(),
});
export type UserGymReset = z.infer<typeof UserGymResetSchema>;

/**
 * The customer's move: say something to the agent (end the call with `###STOP###` in it), or act on
 * their own device with the customer's tools (telecom).
 */
export const UserGymActionSchema = GymActionSchema;
export type UserGymAction = z.infer<typeof UserGymActionSchema>;

/** The first observation also carries the customer's brief (the task's scenario) and their own tools. */
export interface UserGymStart extends GymObservation {
  scenario: UserScenario;
  tools: readonly LlmToolSpec[];
}

export interface UserGymOptions {
  /** The data of a domain by name; default: the built-in domains from the data directory. */
  domain?: (name: string) => DomainData;
  /** The agent the customer talks to; default: the scripted gold agent (no model). */
  agent?: Agent;
  protocol?: ConversationProtocol;
  maxSteps?: number;
}

/** What the customer would have heard next, had the conversation not ended: the agent's last words. */
function unheardByCustomer(messages: readonly Message[]): Message[] {
  let last = messages.length - 1;
  while (last >= 0 && messages[last]!.role !== "user") last--;
  return messages
    .slice(last + 1)
    .filter((m) => m.role === "assistant" && typeof m.content === "string" && m.content.length > 0)
    .map((m) => ({ role: "assistant" as const, content: m.content }));
}

/**
 * Play the customer's side of a τ² conversation against an agent (the reference's `UserGymEnv`): train or
 * test a customer simulator, or script a hard customer. The reward is the agent's, as `passk run`
 * grades the conversation.
 */
export class UserGym {
  private episode: Episode<UserMessage> | undefined;
  private readonly domain: (name: string) => DomainData;

  constructor(private readonly options: UserGymOptions = {}) {
    this.domain = options.domain ?? builtinDomainData();
  }

  async reset(input: UserGymReset): Promise<UserGymStart> {
    const { domain: domainName, taskId, seed = 0 } = UserGymResetSchema.parse(input);
    this.close();
    const data = this.domain(domainName);
    const task = findTask(data, taskId);
    const episode = new Episode<UserMessage>("user");
    this.episode = episode;
    let started: { tools: readonly LlmToolSpec[]; history: readonly Message[] } | undefined;
    const playedCustomer: UserSimulator = {
      name: "gym",
      start(init): UserSession {
        started = { tools: init.tools, history: init.history };
        return { respond: episode.respond };
      },
    };
    episode.follow(
      runConversation({
        data,
        task,
        agent: this.options.agent ?? goldAgent,
        user: playedCustomer,
        seed,
        signal: episode.abort.signal,
        protocol: this.options.protocol ?? { name: "passk" },
        ...(this.options.maxSteps !== undefined ? { maxSteps: this.options.maxSteps } : {}),
      }),
      unheardByCustomer,
    );
    const first = await episode.next();
    return {
      ...first,
      messages: [...(started?.history ?? []), ...first.messages],
      scenario: task.user_scenario,
      tools: started?.tools ?? [],
    };
  }

  /** Play the customer's move; resolves with the agent's answer (or the device's), or the grade. */
  async step(action: UserGymAction): Promise<GymObservation> {
    if (!this.episode) throw new GymStateError("episode_not_started", "no episode: call reset() first");
    return this.episode.play(action);
  }

  close(): void {
    this.episode?.close();
    this.episode = undefined;
  }
}
