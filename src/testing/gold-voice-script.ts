import type { Task } from "../core/task.js";
import { goldVoicePolicy } from "./gold-voice-policy.js";
import type { MockLlmRequest } from "./mock-llm-server.js";
import { mockReply, type MockLlmReply } from "./mock-llm-reply.js";
import type { MockRealtimeBrain } from "./mock-realtime-server.js";

/**
 * The gold voice policy as a text model's script, for a cascaded voice agent (transcription → passk's
 * LLM agent → speech) on the mock LLM server: the agent's model plays the task's gold actions, taking
 * what the caller must say from the transcripts it is given — so what the transcription misheard
 * reaches the tool calls. A conversation's first request (the caller's first transcript, nothing after
 * it) starts a fresh brain, so calls must not overlap (`--max-concurrency 1`): requests carry no call id.
 */
export function goldVoiceAgentScript(tasks: readonly Task[]): (request: MockLlmRequest) => MockLlmReply {
  let brain: MockRealtimeBrain | undefined;
  return (request) => {
    const users = request.messages.filter((m) => m.role === "user");
    const last = request.messages.at(-1);
    if (!last || users.length === 0) return mockReply.text("");
    if (users.length === 1 && last.role === "user") brain = goldVoicePolicy(tasks);
    if (!brain) return mockReply.text("");
    const turn =
      last.role === "tool"
        ? brain.respond({
            kind: "tool_results",
            outputs: request.messages
              .slice(request.messages.findLastIndex((m) => m.role !== "tool") + 1)
              .flatMap((m) =>
                m.role === "tool" ? [{ callId: m.toolCallId, name: m.toolName, output: m.content }] : [],
              ),
          })
        : last.role === "user"
          ? brain.respond({ kind: "heard", text: last.content })
          : undefined;
    if (turn?.toolCalls && turn.toolCalls.length > 0)
      return mockReply.toolCalls(
        turn.toolCalls.map((call) => ({ name: call.name, arguments: call.arguments })),
      );
    return mockReply.text(turn?.say ?? "");
  };
}
