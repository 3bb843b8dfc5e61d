import type { Agent, AgentSession, UserSession, UserSimulator } from "../core/agent.js";
import type { Message } from "../core/message.js";
import { startAgent, taskReadingAgent } from "../core/task-reading-agent.js";
import { curatedOpeningLine } from "./domain-views.js";

/**
 * The keyless playground (`passk serve` with no model): scripted:gold plays the task's gold path on both
 * sides, replayed at a person's pace, the customer opening as a customer speaks (the chip's opening line),
 * never with the scenario's instructions it was given.
 */
export interface ScriptedReplay {
  /** How long a participant takes before its message shows, in milliseconds. */
  paceMs: (message: Message) => number;
  /** The customer's first words for a task: the chip's opening line, else a plain request for help. */
  openingLine: (domain: string, taskId: string) => string;
}

/** What the keyless playground says it is (the web app's banner, `/api/info`). */
export const SCRIPTED_REPLAY_NOTICE = {
  what: "passk tests customer-service agents: a simulated customer with a hidden goal talks to your agent, and every conversation is graded on what it changed and said.",
  replay:
    "This is a scripted replay of each task's gold path (scripted:gold on both sides, no model), paced for reading — not a model's score.",
  command:
    "npx passk run --domain airline --agent-llm openai:gpt-4.1 --user-llm openai:gpt-4.1 --num-trials 4",
} as const;

/** A person's pace: a moment to think, then reading speed for text; tool calls are quick. */
export function humanPaceMs(message: Message): number {
  const text = typeof message.content === "string" ? message.content : "";
  if (text === "") return 400;
  return Math.min(3000, 800 + 20 * text.length);
}

/** The customer's words when the task has no chip. */
export const GENERIC_OPENING_LINE = "Hi, I need some help with a request, please.";

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** The agent, each message held back for `paceMs`. */
export function pacedAgent(agent: Agent, replay: ScriptedReplay): Agent {
  // Task-reading itself so that a paced scripted agent still gets its task (a plain agent only its view).
  return taskReadingAgent(
    { name: agent.name, ...(agent.model !== undefined ? { model: agent.model } : {}) },
    async (init, task) => {
      const session: AgentSession = await startAgent(agent, init, task);
      return {
        respond: async (incoming) => {
          const message = await session.respond(incoming);
          await sleep(replay.paceMs(message), init.signal);
          return message;
        },
        ...(session.end ? { end: () => session.end!() } : {}),
      };
    },
  );
}

/**
 * The scripted customer, paced, opening with the chip's line for the task instead of the scenario's
 * reason for calling (which is written to the customer, not said by it).
 */
export function replayCustomer(user: UserSimulator, replay: ScriptedReplay, domain: string): UserSimulator {
  return {
    name: user.name,
    ...(user.model !== undefined ? { model: user.model } : {}),
    async start(init) {
      const session: UserSession = await user.start(init);
      let opened = init.history.some((m) => m.role === "user");
      return {
        respond: async (incoming) => {
          let message = await session.respond(incoming);
          if (!opened && typeof message.content === "string" && !(message.tool_calls?.length ?? 0)) {
            opened = true;
            message = { ...message, content: replay.openingLine(domain, init.task.id) };
          }
          await sleep(replay.paceMs(message), init.signal);
          return message;
        },
      };
    },
  };
}

/** The keyless playground's replay as `passk serve` runs it: a person's pace, the chips' opening lines. */
export const HUMAN_PACED_REPLAY: ScriptedReplay = {
  paceMs: humanPaceMs,
  openingLine: (domain, taskId) => curatedOpeningLine(domain, taskId) ?? GENERIC_OPENING_LINE,
};
