import { goldFinalMessage } from "../agents/gold-agent.js";
import type { Task } from "../core/task.js";
import type { MockLlmRequest } from "./mock-llm-server.js";
import { mockReply, type MockLlmReply } from "./mock-llm-reply.js";

/**
 * Mock-model scripts that play a task's gold actions over HTTP, for end-to-end tests of the LLM agent
 * and user simulator: the agent model calls its gold tools in order and asks the customer for theirs;
 * the user model opens with the reason for the call, runs its own gold tools when asked, and stops
 * after the agent's final message. Replies come one per model call, in a fixed order.
 */
export function goldReplies(task: Task): { agent: MockLlmReply[]; user: MockLlmReply[] } {
  const actions = task.evaluation_criteria?.actions ?? [];
  const instructions = task.user_scenario.instructions;
  const agent: MockLlmReply[] = [];
  const user: MockLlmReply[] = [
    mockReply.text(typeof instructions === "string" ? instructions : instructions.reason_for_call),
  ];
  for (let i = 0; i < actions.length;) {
    if (actions[i]!.requestor === "assistant") {
      agent.push(mockReply.toolCall(actions[i]!.name, actions[i]!.arguments));
      i++;
      continue;
    }
    const steps: string[] = [];
    for (; actions[i]?.requestor === "user"; i++) {
      steps.push(actions[i]!.name);
      user.push(mockReply.toolCall(actions[i]!.name, actions[i]!.arguments));
    }
    agent.push(mockReply.text(`Please do this on your phone: ${steps.join(", ")}.`));
    user.push(mockReply.text("I did it."));
  }
  agent.push(mockReply.text(goldFinalMessage(task)));
  user.push(mockReply.text("Thanks, that is all. ###STOP###"));
  return { agent, user };
}

/** Is this request from the user simulator (its system prompt carries the hidden scenario)? */
export function isUserSimulatorRequest(request: MockLlmRequest): boolean {
  return request.system.includes("<scenario>");
}

/**
 * One script serving both roles of one conversation from the same mock server, routed by system prompt.
 */
export function goldScript(task: Task): (request: MockLlmRequest) => MockLlmReply {
  const { agent, user } = goldReplies(task);
  let agentIndex = 0;
  let userIndex = 0;
  return (request) => {
    if (isUserSimulatorRequest(request)) return user[userIndex++] ?? mockReply.text("###STOP###");
    return agent[agentIndex++] ?? mockReply.text("Is there anything else?");
  };
}
