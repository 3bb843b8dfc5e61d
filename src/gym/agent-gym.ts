import { z } from "zod";
import type { Agent, AgentSession, UserSimulator } from "../core/agent.js";
import { UnknownNameError } from "../core/errors.js";
import type { LlmToolSpec } from "../core/llm.js";
import type { AssistantMessage, Message } from "../core/message.js";
import type { Task } from "../core/task.js";
import { getDomain } from "../domains/registry.js";
import { resolveDataDir } from "../formats/tau2/data-dir.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import { DomainCatalog } from "../formats/tau2/domain-catalog.js";
import { runConversation } from "../runner/conversation-job.js";
import type { ConversationProtocol } from "../runner/simulation-setup.js";
import { goldUser } from "../users/gold-user.js";
import { Episode, GymStateError, type GymAction, type GymObservation } from "./episode.js";

/** Where an episode is set: which task of which domain, the seed, solo or with a customer. */
export const GymResetSchema = z.strictObject({
  domain: z.string().min(1).max(64),
  taskId: z.string().min(1).max(512),
  seed: z.number().int().nonnegative().optional(),
  solo: z.boolean().optional(),
});
export type GymReset = z.infer<typeof GymResetSchema>;

export { GymActionSchema, GymStateError, type GymAction, type GymObservation } from "./episode.js";

/** The first observation also carries what the agent is given: the policy and its tools. */
export interface GymStart extends GymObservation {
  policy: string;
  tools: readonly LlmToolSpec[];
}

export interface AgentGymOptions {
  /**
   * The data of a domain by name; default: passk's built-in domains read from the data directory
   * (`PASSK_DATA_DIR`, else where `passk data pull` put it), each parsed once.
   */
  domain?: (name: string) => DomainData;
  /** The simulated customer; default the scripted gold customer (no model). */
  customer?: UserSimulator;
  /** Default: τ²'s protocol with the built-in domain texts passk ships (`{ name: "passk" }` otherwise). */
  protocol?: ConversationProtocol;
  maxSteps?: number;
}

/** The domain data gyms load by default, shared by every gym of the process (each domain parsed once). */
const gymCatalog = new DomainCatalog();

/** Built-in domains from the per-user data directory (or `dataDir`), each parsed once per process. */
export function builtinDomainData(
  dataDir = resolveDataDir(undefined),
  catalog = gymCatalog,
): (name: string) => DomainData {
  return (name) => catalog.load(getDomain(name), { dataDir });
}

/** What the agent would have been given next, had the conversation not ended: the customer's last words. */
function unseenByAgent(messages: readonly Message[]): Message[] {
  let last = messages.length - 1;
  while (last >= 0 && messages[last]!.role !== "assistant") last--;
  return messages
    .slice(last + 1)
    .filter((m) => m.role === "user" && typeof m.content === "string" && m.content.length > 0)
    .map((m) => ({ role: "user" as const, content: m.content }));
}

/**
 * Play the agent's side of a τ² conversation from your own loop (reinforcement learning, another eval
 * harness): `reset` starts an episode and returns the first observation; `step(action)` plays the
 * agent's move and returns what came back; the last observation is `done` with the reward passk's
 * grader gives — the same as `passk run` gives the same conversation. One gym holds one episode; make
 * as many gyms as episodes you run in parallel.
 */
export class AgentGym {
  private episode: Episode<AssistantMessage> | undefined;
  private readonly domain: (name: string) => DomainData;

  constructor(private readonly options: AgentGymOptions = {}) {
    this.domain = options.domain ?? builtinDomainData();
  }

  /** `customer`: this episode's simulated customer, instead of the gym's (any passk `UserSimulator`). */
  async reset(input: GymReset, episodeOptions: { customer?: UserSimulator } = {}): Promise<GymStart> {
    const { domain: domainName, taskId, seed = 0, solo = false } = GymResetSchema.parse(input);
    this.close();
    const data = this.domain(domainName);
    const task = findTask(data, taskId);
    const episode = new Episode<AssistantMessage>("assistant");
    this.episode = episode;
    let started: { policy: string; tools: readonly LlmToolSpec[]; history: readonly Message[] } | undefined;
    const playedAgent: Agent = {
      name: "gym",
      start(init): AgentSession {
        started = { policy: init.policy, tools: init.tools, history: init.history };
        return { respond: episode.respond };
      },
    };
    episode.follow(
      runConversation({
        data,
        task,
        agent: playedAgent,
        user: episodeOptions.customer ?? this.options.customer ?? goldUser,
        solo,
        seed,
        signal: episode.abort.signal,
        protocol: this.options.protocol ?? { name: "passk" },
        ...(this.options.maxSteps !== undefined ? { maxSteps: this.options.maxSteps } : {}),
      }),
      unseenByAgent,
    );
    const first = await episode.next();
    // Ended before the agent's first turn (the customer failed at once): nothing was offered to see.
    if (!started) return { ...first, policy: "", tools: [] };
    return {
      ...first,
      messages: [...started.history, ...first.messages],
      policy: started.policy,
      tools: started.tools,
    };
  }

  /** Play the agent's move; resolves with what the customer or the tools answered, or the grade. */
  async step(action: GymAction): Promise<GymObservation> {
    if (!this.episode) throw new GymStateError("episode_not_started", "no episode: call reset() first");
    return this.episode.play(action);
  }

  /** End the episode in progress, if any (it is not graded). */
  close(): void {
    this.episode?.close();
    this.episode = undefined;
  }
}

/** The task of `data` named `taskId`, or an error naming the known ones. */
export function findTask(data: DomainData, taskId: string): Task {
  const task = data.tasks.find((t) => t.id === taskId);
  if (!task)
    throw new UnknownNameError(
      "task",
      taskId,
      data.tasks.map((t) => t.id),
      `Pick a task of ${data.domain.name}.`,
    );
  return task;
}
