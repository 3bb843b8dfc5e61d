import type { Agent, AgentSession, AgentView } from "./agent.js";
import type { Task } from "./task.js";

/** How a task-reading agent starts: the agent's view plus the whole task, hidden parts included. */
export type TaskReadingStart = (view: AgentView, task: Task) => AgentSession | Promise<AgentSession>;

/** The internal start, out of reach of `Agent.start`'s view (not exported from the package). */
const startWithTask = Symbol("passk.startWithTask");

interface TaskReading {
  [startWithTask]?: TaskReadingStart;
}

/**
 * An agent that needs the task itself — the scripted gold agent, replays, test fixtures. It is an
 * `Agent` to everything that holds agents, but only the orchestrator (through `startAgent`) hands it the
 * task; its public `start` refuses, since an agent under test must never be given the answers.
 */
export function taskReadingAgent(
  identity: { name: string; model?: string; resumesFromHistory?: boolean },
  start: TaskReadingStart,
): Agent {
  const agent: Agent & TaskReading = {
    ...identity,
    start() {
      throw new Error(`${identity.name} plays from the task, which only passk's orchestrator gives it`);
    },
    [startWithTask]: start,
  };
  return agent;
}

/** Start a conversation of `agent`: task-reading agents get the task, every other agent only its view. */
export function startAgent(agent: Agent, view: AgentView, task: Task): AgentSession | Promise<AgentSession> {
  const internal = (agent as TaskReading)[startWithTask];
  return internal ? internal(view, task) : agent.start(view);
}
