import { isScriptedSpec } from "../agents/create-agent.js";
import type { Agent } from "../core/agent.js";
import { ConfigError } from "../core/errors.js";
import {
  createSpeechModel,
  createTranscriptionModel,
  type SpeechModel,
  type TranscriptionModel,
} from "../voice/speech-models.js";

// The voice playground's cascaded agent: one of the text agents the playground offers (its model from
// passk's providers) between a transcription model (its ears) and a speech model (its voice), as
// `passk run --voice --voice-agent cascaded` builds it. Offered when every part can be made (its keys
// are set); otherwise offered as unavailable, with the reason in words (the key variables' names, never
// their values).

/** The spec the browser picks the cascaded agent by. */
export const CASCADED_VOICE_AGENT = "cascaded";

/** The cascade's parts, made once and shared by every call (each call opens its own agent session). */
export interface VoiceCascadeParts {
  agent: Agent;
  transcription: TranscriptionModel;
  speech: SpeechModel;
}

export type VoiceCascadeOffer =
  | { available: true; label: string; parts: VoiceCascadeParts }
  | { available: false; label: string; reason: string };

export interface VoiceCascadeOfferOptions {
  /** The text agents' specs the playground offers (`--agent-llm`); the first that is a model is used. */
  agentSpecs: readonly string[];
  /** Makes the text agent of a spec, as the text playground makes it. */
  agentFor: (spec: string) => Agent;
  /** The transcription model (`--agent-stt`), e.g. `openai:gpt-4o-transcribe`. */
  transcription: string;
  /** The agent's speech model (`--agent-tts`), e.g. `openai:gpt-4o-mini-tts`. */
  speech: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Base URL of both speech parts (a mock, a proxy); default: the provider's (`OPENAI_BASE_URL`, …). */
  speechBaseUrl?: string;
}

/** The cascaded agent as the playground offers it: its parts, or why it cannot be called here. */
export function voiceCascadeOffer(options: VoiceCascadeOfferOptions): VoiceCascadeOffer {
  const textSpec = options.agentSpecs.find((spec) => !isScriptedSpec(spec));
  const label = `Cascaded: ${options.transcription} → ${textSpec ?? "a text model"} → ${options.speech}`;
  if (textSpec === undefined)
    return {
      available: false,
      label,
      reason:
        "it needs a text model: start passk serve with --agent-llm PROVIDER:MODEL (e.g. openai:gpt-4.1) and its key",
    };
  const modelOptions = {
    env: options.env,
    ...(options.speechBaseUrl ? { baseUrl: options.speechBaseUrl } : {}),
  };
  try {
    const transcription = createTranscriptionModel(options.transcription, modelOptions);
    const speech = createSpeechModel(options.speech, modelOptions);
    return {
      available: true,
      label,
      parts: { agent: options.agentFor(textSpec), transcription, speech },
    };
  } catch (error) {
    if (!ConfigError.isInstance(error)) throw error;
    return { available: false, label, reason: error.message };
  }
}
