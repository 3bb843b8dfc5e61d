import { ConfigError } from "../../core/errors.js";
import type { Agent } from "../../core/agent.js";
import type { VoiceAgent } from "../call.js";
import { cascadedVoiceAgent } from "./cascaded.js";
import { DEFAULT_GEMINI_LIVE_MODEL, geminiLiveAgent } from "./gemini-live.js";
import { parseWsVoiceAgentSpec, wsVoiceAgent } from "./ws-voice-agent.js";
import {
  OpenAiRealtimeAgent,
  DEFAULT_OPENAI_REALTIME_MODEL,
  OPENAI_REALTIME_URL,
} from "./openai-realtime.js";
import type { SpeechModel, TranscriptionModel } from "../speech-models.js";

// `--voice-agent`: which voice agent a call talks to. Speech-to-speech providers over the OpenAI
// Realtime protocol (OpenAI, Azure, xAI, any compatible endpoint with --voice-agent-url), Gemini Live, a
// cascade of passk's text agent between a transcription and a speech model, or a team's own agent over
// WebSocket (`ws:URL`, docs/voice-agent-protocol.md).

/** Realtime providers speaking the OpenAI Realtime protocol: key variable, default URL, how the key travels. */
const REALTIME_PROVIDERS = {
  openai: { keyVariable: "OPENAI_API_KEY", url: OPENAI_REALTIME_URL, auth: "bearer" },
  xai: { keyVariable: "XAI_API_KEY", url: "wss://api.x.ai/v1/realtime", auth: "bearer" },
  azure: { keyVariable: "AZURE_API_KEY", url: undefined, auth: "api-key" },
} as const;

export const VOICE_AGENT_KINDS = [...Object.keys(REALTIME_PROVIDERS), "gemini", "cascaded", "ws"] as const;

/** A voice agent spec, parsed: a realtime provider and model, Gemini Live, the cascade, or a team's own agent. */
export type VoiceAgentSpec =
  | { kind: "realtime"; provider: keyof typeof REALTIME_PROVIDERS; model: string }
  | { kind: "gemini"; model: string }
  | { kind: "ws"; spec: string }
  | { kind: "cascaded" };

export function parseVoiceAgentSpec(spec: string): VoiceAgentSpec {
  if (spec === "cascaded") return { kind: "cascaded" };
  if (spec.startsWith("ws:")) return { kind: "ws", spec: `ws:${parseWsVoiceAgentSpec(spec)}` };
  if (spec === "gemini" || spec.startsWith("gemini:"))
    return { kind: "gemini", model: spec.slice("gemini:".length) || DEFAULT_GEMINI_LIVE_MODEL };
  const colon = spec.indexOf(":");
  const provider = colon < 0 ? spec : spec.slice(0, colon);
  const model = colon < 0 ? "" : spec.slice(colon + 1);
  if (!(provider in REALTIME_PROVIDERS)) {
    throw new ConfigError(
      `--voice-agent ${spec}: unknown voice agent "${provider}"; use one of ${VOICE_AGENT_KINDS.join(", ")} ` +
        `(e.g. openai:${DEFAULT_OPENAI_REALTIME_MODEL}, or cascaded with --agent-llm, --agent-stt and --agent-tts)`,
    );
  }
  const realtime = provider as keyof typeof REALTIME_PROVIDERS;
  if (model === "" && realtime !== "openai")
    throw new ConfigError(
      `--voice-agent ${spec}: name the model (or Azure deployment), e.g. ${provider}:MODEL`,
    );
  return { kind: "realtime", provider: realtime, model: model || DEFAULT_OPENAI_REALTIME_MODEL };
}

export interface VoiceAgentFactoryOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** `--voice-agent-url`: the realtime endpoint (a mock, an Azure deployment's URL, a proxy). */
  url?: string;
  /** The cascade's parts (`--agent-llm`, `--agent-stt`, `--agent-tts`). */
  cascade?: () => { agent: Agent; transcription: TranscriptionModel; speech: SpeechModel };
}

/** A factory of fresh voice agents (one per call), checked now: keys and URLs before any call. */
export function voiceAgentFactory(
  spec: VoiceAgentSpec,
  options: VoiceAgentFactoryOptions,
): { make: () => VoiceAgent; provider: string; model: string } {
  if (spec.kind === "gemini") {
    // The key is checked now, not at the first call.
    if (!options.env.GEMINI_API_KEY && !options.env.GOOGLE_GENERATIVE_AI_API_KEY)
      throw new ConfigError(`--voice-agent gemini:${spec.model} needs GEMINI_API_KEY in the environment`);
    return {
      make: () => geminiLiveAgent({ model: spec.model, env: options.env }),
      provider: "gemini",
      model: spec.model,
    };
  }
  if (spec.kind === "ws") {
    const url = parseWsVoiceAgentSpec(spec.spec);
    return {
      make: () => wsVoiceAgent(spec.spec, { env: options.env }),
      provider: "ws",
      model: new URL(url).host,
    };
  }
  if (spec.kind === "cascaded") {
    if (!options.cascade) throw new ConfigError("--voice-agent cascaded needs --agent-llm");
    const parts = options.cascade();
    return {
      make: () => cascadedVoiceAgent(parts),
      provider: "cascaded",
      model: `${parts.transcription.spec} → ${parts.agent.model ?? parts.agent.name} → ${parts.speech.spec}`,
    };
  }
  const provider = REALTIME_PROVIDERS[spec.provider];
  const apiKey = options.env[provider.keyVariable];
  if (!apiKey)
    throw new ConfigError(
      `--voice-agent ${spec.provider}:${spec.model} needs ${provider.keyVariable} in the environment`,
    );
  const url = options.url ?? provider.url;
  if (url === undefined)
    throw new ConfigError(
      `--voice-agent azure:${spec.model} needs --voice-agent-url, your deployment's realtime URL (wss://…/openai/realtime?api-version=…&deployment=${spec.model})`,
    );
  return {
    make: () =>
      new OpenAiRealtimeAgent({
        apiKey,
        model: spec.model,
        url,
        auth: provider.auth,
        provider: spec.provider,
      }),
    provider: spec.provider,
    model: spec.model,
  };
}
