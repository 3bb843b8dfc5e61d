import { execFile, spawnSync } from "node:child_process";
import { goldFinalMessage } from "../agents/gold-agent.js";
import type { LanguageModel, LlmResponse } from "../core/llm.js";
import type { Task } from "../core/task.js";
import { goldVoicePolicy } from "../testing/gold-voice-policy.js";
import {
  startMockRealtimeServer,
  type MockRealtimeBrain,
  type SpeechListener,
} from "../testing/mock-realtime-server.js";
import { speakTestSpeech, SYMBOL_SECONDS, TestSpeechListener } from "../testing/speech-codec.js";
import { OpenAiRealtimeAgent } from "../voice/agents/openai-realtime.js";
import { resample, rms } from "../voice/audio.js";
import type { VoiceAgent } from "../voice/call.js";
import { createSpeechModel, readWav, type SpeechModel } from "../voice/speech-models.js";

// The keyless voice playground, a scripted demo end to end: the agent is passk's mock OpenAI Realtime
// server (one per call, on 127.0.0.1) whose brain plays the task's gold actions by ear; the simulated
// customer's words come from a script (its reason for calling, "okay", goodbye at the gold farewell)
// spoken by espeak-ng when it is installed (the mock, which has no speech recognition, hears each turn
// end by its energy and takes its words from the script), else in the test speech codec — tones the mock
// decodes exactly where the line left them intact. When a person is the caller, the mock says it heard
// speech it could not make out, and the gold path moves on.

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

/** Length of the frames the voice detector measures (s). */
const FRAME_SECONDS = 0.02;
/** Level (PCM16 RMS of a frame) below which a frame is never voiced. */
const VOICED_RMS = 500;
/** A voiced frame also stands this many times above the line's noise floor (its quietest recent frame). */
const NOISE_MARGIN = 3;
/** The noise floor is the quietest frame of the last 2 s. */
const FLOOR_FRAMES = 100;
/** The shortest stretch of voice that counts as a turn (s of voiced frames). */
const MIN_TURN_SECONDS = 0.3;
/**
 * Test-codec speech decodes to about one byte per 50 ms symbol it lasts; real speech, read as if it were
 * the codec, gives a stray byte now and then. A stretch whose decoded bytes cover less than this share
 * of its symbols was not test-codec speech.
 */
const MIN_CODEC_COVERAGE = 0.5;

/**
 * Turn-taking by energy, as a server VAD does it: a stretch of voice starts at a frame that is loud and
 * stands above the line's noise floor, and ends after `endOfTurnSeconds` of frames that do not.
 */
export class VoiceActivity {
  private readonly frame: number;
  private readonly endFrames: number;
  private carry = new Int16Array(0);
  private readonly recent: number[] = [];
  private voicedFrames = 0;
  private quietFrames = 0;

  constructor(sampleRate: number, endOfTurnSeconds: number) {
    this.frame = Math.round(sampleRate * FRAME_SECONDS);
    this.endFrames = Math.max(1, Math.round(endOfTurnSeconds / FRAME_SECONDS));
  }

  /** Whether a stretch of voice is under way. */
  get active(): boolean {
    return this.voicedFrames > 0;
  }

  /** Feed audio; returns the voiced seconds of each stretch that ended in it. */
  push(samples: Int16Array): number[] {
    const joined = new Int16Array(this.carry.length + samples.length);
    joined.set(this.carry);
    joined.set(samples, this.carry.length);
    const ended: number[] = [];
    let at = 0;
    for (; at + this.frame <= joined.length; at += this.frame) {
      const level = rms(joined.subarray(at, at + this.frame));
      this.recent.push(level);
      if (this.recent.length > FLOOR_FRAMES) this.recent.shift();
      const floor = Math.min(...this.recent);
      if (level >= Math.max(VOICED_RMS, NOISE_MARGIN * floor)) {
        this.voicedFrames++;
        this.quietFrames = 0;
      } else if (this.voicedFrames > 0 && ++this.quietFrames >= this.endFrames) {
        ended.push(this.voicedFrames * FRAME_SECONDS);
        this.voicedFrames = 0;
        this.quietFrames = 0;
      }
    }
    this.carry = joined.slice(at);
    return ended;
  }

  /** End the stream: the voiced seconds of the stretch under way (0 when none). */
  flush(): number {
    const seconds = this.voicedFrames * FRAME_SECONDS;
    this.voicedFrames = 0;
    this.quietFrames = 0;
    this.carry = new Int16Array(0);
    return seconds;
  }
}

const UNINTELLIGIBLE = /^\[speech the mock could not make out: (\d+(?:\.\d+)?) s\]$/;

/** What the mock hears of a turn of speech it cannot make out (no speech recognition): its length. */
export function unintelligibleTurn(seconds: number): string {
  return `[speech the mock could not make out: ${seconds.toFixed(1)} s]`;
}

/** The seconds of an `unintelligibleTurn`, or undefined for words heard. */
export function unintelligibleSeconds(heard: string): number | undefined {
  const match = UNINTELLIGIBLE.exec(heard.trim());
  return match ? Number(match[1]) : undefined;
}

/**
 * How the mock hears a person: the test speech codec's listener (a recording of codec speech played into
 * the microphone is heard word for word), and turn-taking by energy beside it. A turn of voice that is
 * not codec speech (its decoded bytes cover under half of its length: real speech only gives stray
 * bytes) is heard as `unintelligibleTurn(seconds)` — the mock has no speech recognition.
 */
export class VoicedOrCodecListener implements SpeechListener {
  private readonly codec: TestSpeechListener;
  private readonly activity: VoiceActivity;
  /** The turn being heard: what the codec decoded in it, and its voiced seconds. */
  private decoded: string[] = [];
  private voicedSeconds = 0;

  constructor(sampleRate: number, endOfUtteranceSeconds: number) {
    this.codec = new TestSpeechListener(sampleRate, endOfUtteranceSeconds);
    this.activity = new VoiceActivity(sampleRate, endOfUtteranceSeconds);
  }

  get hearing(): boolean {
    return this.codec.hearing || this.activity.active || this.pending;
  }

  private get pending(): boolean {
    return this.voicedSeconds > 0 || this.decoded.length > 0;
  }

  push(samples: Int16Array): string[] {
    this.decoded.push(...this.codec.push(samples).filter((text) => text.trim() !== ""));
    for (const seconds of this.activity.push(samples)) this.voicedSeconds += seconds;
    // The turn ends when both have heard it end.
    return this.pending && !this.codec.hearing && !this.activity.active ? this.finishTurn() : [];
  }

  flush(): string[] {
    this.decoded.push(...this.codec.flush().filter((text) => text.trim() !== ""));
    this.voicedSeconds += this.activity.flush();
    return this.finishTurn();
  }

  private finishTurn(): string[] {
    const bytes = this.decoded.reduce((n, text) => n + new TextEncoder().encode(text).length, 0);
    const symbols = this.voicedSeconds / SYMBOL_SECONDS;
    const heard =
      bytes > 0 && bytes >= MIN_CODEC_COVERAGE * symbols
        ? this.decoded
        : this.voicedSeconds >= MIN_TURN_SECONDS
          ? [unintelligibleTurn(this.voicedSeconds)]
          : [];
    this.decoded = [];
    this.voicedSeconds = 0;
    return heard;
  }
}

/**
 * The words a scripted customer has started to say and the mock agent has not taken yet: the scripted
 * demo's side channel, since the mock cannot recognise espeak-ng's speech.
 */
export class ScriptedTurns {
  private said: string[] = [];

  spoke(text: string): void {
    this.said.push(text);
  }

  /** Everything said since the last take, joined. */
  take(): string {
    const text = this.said.join(" ");
    this.said = [];
    return text;
  }
}

/** A speech model that tells `turns` each text it speaks. */
export function scriptedSpeech(inner: SpeechModel, turns: ScriptedTurns): SpeechModel {
  return {
    spec: inner.spec,
    provider: inner.provider,
    model: inner.model,
    voice: inner.voice,
    speak: (text, options) => {
      turns.spoke(text);
      return inner.speak(text, options);
    },
  };
}

/**
 * How the scripted demo's mock hears a customer speaking espeak-ng: it does not decode the audio; it
 * hears each turn end by turn-taking (energy, as a server VAD) and takes that turn's words from the
 * script (`turns`). A stretch of voice when nothing was said (a burst of noise) has no words.
 */
export class ScriptedTurnListener implements SpeechListener {
  private readonly activity: VoiceActivity;

  constructor(
    sampleRate: number,
    endOfUtteranceSeconds: number,
    private readonly turns: ScriptedTurns,
  ) {
    this.activity = new VoiceActivity(sampleRate, endOfUtteranceSeconds);
  }

  get hearing(): boolean {
    return this.activity.active;
  }

  push(samples: Int16Array): string[] {
    return this.activity
      .push(samples)
      .filter((seconds) => seconds >= MIN_TURN_SECONDS)
      .map(() => this.turns.take())
      .filter((text) => text.trim() !== "");
  }

  flush(): string[] {
    const text = this.activity.flush() >= MIN_TURN_SECONDS ? this.turns.take() : "";
    return text.trim() !== "" ? [text] : [];
  }
}

/**
 * The mock agent answering honestly what it could not make out: "I heard N seconds of speech but cannot
 * make out words", then whatever the inner brain does next (the scripted demo carries on with the task's
 * gold actions, since it cannot know what was said).
 */
export function answersWhatItCannotMakeOut(inner: MockRealtimeBrain): MockRealtimeBrain {
  return {
    respond(trigger) {
      const seconds = trigger.kind === "heard" ? unintelligibleSeconds(trigger.text) : undefined;
      const next = inner.respond(trigger);
      if (seconds === undefined) return next;
      const heard = `Mock agent here: I heard ${seconds.toFixed(1)} seconds of speech but could not make out the words, as I have no speech recognition.`;
      const carryOn = next?.toolCalls?.length ? " I will carry on with the demo's script." : "";
      return {
        say: [heard + carryOn, next?.say].filter(Boolean).join(" "),
        ...(next?.toolCalls ? { toolCalls: next.toolCalls } : {}),
      };
    },
  };
}

/** How the keyless demo's scripted customer speaks. */
export interface ScriptedCustomerVoice {
  /** espeak-ng is there: human-audible speech the mock takes from the script; otherwise codec tones. */
  espeak: boolean;
  /** How the customer is named on the call. */
  name: string;
  /** A sentence for the page saying how the scripted customer speaks (and why, for the tones). */
  note: string;
}

/** Whether Debian's `espeak-ng` program runs here. */
export function espeakNgAvailable(env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  return new Promise((resolve) =>
    execFile("espeak-ng", ["--version"], { env, timeout: 15_000 }, (error) => resolve(error === null)),
  );
}

export function scriptedCustomerVoice(espeak: boolean): ScriptedCustomerVoice {
  return espeak
    ? {
        espeak,
        name: "scripted customer (espeak-ng speech)",
        note: "The simulated customer's words are scripted and spoken by espeak-ng (the mock agent speaks espeak-ng too); the mock agent does not recognise them: it hears each turn end (by its energy) and takes the words from the script.",
      }
    : {
        espeak,
        name: "scripted customer (test speech codec tones: espeak-ng is not installed)",
        note: "The simulated customer's words are scripted and spoken as test-codec tones, which the mock agent decodes: espeak-ng is not installed here, so there is no human speech (Debian/Ubuntu: apt-get install espeak-ng).",
      };
}

/** The speech model of the demo's scripted customer: espeak-ng telling `turns` what it says, or the codec. */
export function scriptedCustomerSpeech(voice: ScriptedCustomerVoice, turns: ScriptedTurns): SpeechModel {
  return voice.espeak ? scriptedSpeech(createSpeechModel("espeak-ng:en-us"), turns) : codecSpeech;
}

/**
 * The demo's mock agent speaking espeak-ng, synchronously (the mock sends a response's events before it
 * reads the next one): a spoken sentence costs the server ~0.1 s. Codec tones if espeak-ng fails.
 */
export function espeakSpeakSync(text: string, sampleRate: number): Int16Array {
  const run = spawnSync("espeak-ng", ["--stdout", "-v", "en-us"], { input: text, timeout: 30_000 });
  if (run.status !== 0 || run.stdout.length === 0) return speakTestSpeech(text, sampleRate);
  const audio = readWav(new Uint8Array(run.stdout));
  return resample(audio.samples, audio.sampleRate, sampleRate);
}

/** How the demo's mock hears the caller: a person, the scripted customer's espeak-ng turns, or the codec. */
export type ScriptedAgentEars =
  { kind: "person" } | { kind: "script"; turns: ScriptedTurns } | { kind: "codec" };

/**
 * A scripted demo agent for one call: its own mock realtime server, closed when the call stops. A person
 * calling is heard by `VoicedOrCodecListener` and told honestly what the mock could not make out; the
 * espeak-ng customer by `ScriptedTurnListener`; the codec customer by the codec's own listener. With
 * `espeak` the mock speaks espeak-ng, else codec tones.
 */
export async function scriptedVoiceAgent(
  task: Task,
  ears: ScriptedAgentEars,
  espeak: boolean,
): Promise<VoiceAgent> {
  const server = await startMockRealtimeServer({
    ...(espeak ? { speak: espeakSpeakSync } : {}),
    brain: () =>
      ears.kind === "person" ? answersWhatItCannotMakeOut(goldVoicePolicy(task)) : goldVoicePolicy(task),
    ...(ears.kind === "person"
      ? { listener: (rate: number, seconds: number) => new VoicedOrCodecListener(rate, seconds) }
      : ears.kind === "script"
        ? { listener: (rate: number, seconds: number) => new ScriptedTurnListener(rate, seconds, ears.turns) }
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
