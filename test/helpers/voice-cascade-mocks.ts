import { createAgent } from "../../src/agents/create-agent.js";
import type { Task } from "../../src/core/task.js";
import { voiceCascadeOffer, type VoiceCascadeOffer } from "../../src/server/voice-cascade-offer.js";
import {
  mockReply,
  type MockLlmRequest,
  type MockLlmServer,
  type MockSpeechServer,
} from "../../src/testing/index.js";

// The voice playground's cascaded agent on mocks: passk's LLM agent on the mock model between the mock
// transcription and speech servers (all over HTTP), and a script for the mock model that acts on what the
// cascade heard (airline task 40: the caller says their reservation id; the model changes its passengers).

/** The cascade as `passk serve` offers it, its parts on the mocks; unavailable when `env` lacks a key. */
export function cascadeOnMocks(
  llm: MockLlmServer,
  speech: MockSpeechServer,
  env: Record<string, string>,
): VoiceCascadeOffer {
  return voiceCascadeOffer({
    agentSpecs: ["scripted:gold", "openai-compatible:mock-agent"],
    agentFor: (spec) => createAgent(spec, { baseUrl: llm.baseUrl, env, retry: { maxAttempts: 1 } }),
    transcription: "openai:gpt-4o-transcribe",
    speech: "openai:gpt-4o-mini-tts",
    env: { ...env, OPENAI_BASE_URL: speech.baseUrl },
  });
}

/** What the mock model says once the passengers changed. */
export const CASCADE_DONE = "I have changed the passenger.";

const lastUserText = (request: MockLlmRequest) =>
  request.messages.filter((m) => m.role === "user").at(-1)?.content ?? "";

/**
 * The mock model for task 40: it changes the passengers of the reservation id it heard (the id in its
 * call comes from the audio alone), says so, and transfers the call at the caller's next words.
 */
export function scriptPassengerChange(llm: MockLlmServer, task: Task): void {
  const gold = task.evaluation_criteria!.actions!.find((a) => a.name === "update_reservation_passengers")!;
  llm.setScript((request: MockLlmRequest) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool")
      return mockReply.text(String(last.content).includes("Anya") ? CASCADE_DONE : "Sorry.");
    if (request.messages.some((m) => m.role === "assistant" && m.content === CASCADE_DONE))
      return mockReply.toolCall("transfer_to_human_agents", { summary: "passenger changed" });
    const heard = /reservation id is ([A-Z0-9]{6})/i.exec(lastUserText(request));
    return heard
      ? mockReply.toolCall("update_reservation_passengers", {
          ...gold.arguments,
          reservation_id: heard[1]!.toUpperCase(),
        })
      : mockReply.text("How can I help?");
  });
}
