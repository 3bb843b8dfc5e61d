import { goldFinalMessage } from "../agents/gold-agent.js";
import type { LanguageModel, LlmResponse } from "../core/llm.js";
import type { Task } from "../core/task.js";
import { goldVoicePolicy } from "../testing/gold-voice-policy.js";
import { startMockRealtimeServer, type SpeechListener } from "../testing/mock-realtime-server.js";
import { speakTestSpeech, TestSpeechListener } from "../testing/speech-codec.js";
import { OpenAiRealtimeAgent } from "../voice/agents/openai-realtime.js";
import { rms } from "../voice/audio.js";
import type { VoiceAgent } from "../voice/call.js";
import type { SpeechModel } from "../voice/speech-models.js";

// The keyless voice playground, a scripted demo end to end: the agent is passk's mock OpenAI Realtime
// server (one per call, on 127.0.0.1) whose brain plays the task's gold actions by ear; the simulated
// customer's words come from a script (its reason for calling, "okay", goodbye at the gold farewell)
// spoken in the test speech codec — tones the mock hears exactly where the line left them intact.
// When a person is the caller, the mock cannot understand words: an utterance it hears as speech but
// cannot decode counts as "the caller spoke", and the gold path moves on.

const NO_USAGE = { promptTokens: 0, completionTokens: 0 };
const reply = (text: string): LlmResponse => ({ text, toolCalls: [], usage: NO_USAGE, cost: 0 });

function scenarioText(task: Task): string {
  const instructions = task.user_scenario.instructions;
  return typeof instructions === "string"
    ? instructions
    : [instructions.reason_for_call, instructions.known_info ?? ""].join(" ").trim();
}

/** The scripted customer's words: what it calls about, "Okay." while the agent works, goodbye at the end. */
export function scriptedVoiceCustomerModel(task: Task): LanguageModel {
  const farewell = goldFinalMessage(task);
  return {
    spec: "scripted:voice-customer",
    priced: true,
    generate: async (request) => {
      if (request.system.startsWith("You decide how a caller")) return reply("NO");
      const heard = request.messages.map((m) => (typeof m.content === "string" ? m.content : "")).join("\n");
      if (request.messages.length <= 1 && !heard.trim()) return reply(scenarioText(task));
      if (heard.includes(farewell)) return reply("Thank you, goodbye. ###STOP###");
      return reply("Okay.");
    },
  };
}

/** The test speech codec as a speech model (8 kHz tones: 20 characters a second). */
export const codecSpeech: SpeechModel = {
  spec: "scripted:test-speech-codec",
  provider: "scripted",
  model: "test-speech-codec",
  voice: "tones",
  speak: async (text) => ({ samples: speakTestSpeech(text, 8000), sampleRate: 8000 }),
};

/** Level (PCM16 RMS over 20 ms) above which a person's microphone counts as speaking. */
const VOICED_RMS = 500;

/**
 * The codec's listener, and beside it a voice detector: an utterance of real speech (at least 0.3 s
 * voiced, ended by the session's silence) that decodes to nothing is heard as "[the caller spoke]".
 */
export class VoicedOrCodecListener implements SpeechListener {
  private readonly codec: TestSpeechListener;
  private readonly frame: number;
  private readonly endFrames: number;
  private carry = new Int16Array(0);
  private voicedFrames = 0;
  private silentFrames = 0;
  private decodedSince = false;

  constructor(sampleRate: number, endOfUtteranceSeconds: number) {
    this.codec = new TestSpeechListener(sampleRate, endOfUtteranceSeconds);
    this.frame = Math.round(sampleRate * 0.02);
    this.endFrames = Math.max(1, Math.round(endOfUtteranceSeconds / 0.02));
  }

  get hearing(): boolean {
    return this.codec.hearing || this.voicedFrames > 0;
  }

  push(samples: Int16Array): string[] {
    const decoded = this.codec.push(samples).filter((text) => text.trim() !== "");
    if (decoded.length > 0) this.decodedSince = true;
    const joined = new Int16Array(this.carry.length + samples.length);
    joined.set(this.carry);
    joined.set(samples, this.carry.length);
    let at = 0;
    const spoke: string[] = [];
    for (; at + this.frame <= joined.length; at += this.frame) {
      if (rms(joined.subarray(at, at + this.frame)) >= VOICED_RMS) {
        this.voicedFrames++;
        this.silentFrames = 0;
      } else if (this.voicedFrames > 0 && ++this.silentFrames >= this.endFrames) {
        if (this.voicedFrames >= 15 && !this.decodedSince && !this.codec.hearing)
          spoke.push("[the caller spoke]");
        this.voicedFrames = 0;
        this.silentFrames = 0;
        this.decodedSince = false;
      }
    }
    this.carry = joined.slice(at);
    return [...decoded, ...spoke];
  }

  flush(): string[] {
    return this.codec.flush();
  }
}

/**
 * A scripted demo agent for one call: its own mock realtime server, closed when the call stops. With a
 * person calling (`person`), speech it cannot decode still counts as a turn.
 */
export async function scriptedVoiceAgent(task: Task, person: boolean): Promise<VoiceAgent> {
  const server = await startMockRealtimeServer({
    brain: () => goldVoicePolicy(task),
    ...(person
      ? { listener: (rate: number, seconds: number) => new VoicedOrCodecListener(rate, seconds) }
      : {}),
  });
  const agent = new OpenAiRealtimeAgent({
    apiKey: "keyless-demo",
    model: "mock-realtime",
    url: server.url,
    provider: "scripted",
  });
  return {
    name: "scripted_gold_voice_agent",
    model: "scripted:mock-realtime",
    start: (setup) => agent.start(setup),
    tick: (input) => agent.tick(input),
    stop: async () => {
      await agent.stop().catch(() => undefined);
      await server.close();
    },
  };
}
