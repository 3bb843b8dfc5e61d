import type { Agent, AgentSession } from "../../core/agent.js";
import type { AssistantMessage, Message, ToolCall } from "../../core/message.js";
import {
  WIRE_SAMPLE_RATE,
  WIRE_SILENCE,
  wireBytesPerTick,
  type CallClock,
  type VoiceAgent,
  type VoiceAgentSetup,
  type VoiceAgentTickInput,
  type VoiceAgentTickOutput,
  type VoiceUsageRecord,
} from "../call.js";
import { mulawDecode, mulawEncode, resample } from "../audio.js";
import type { SpeechModel, TranscriptionModel } from "../speech-models.js";

/**
 * How the cascade finds the end of a caller's utterance on the wire: by energy, in frames.
 *
 * Each `frameMs` frame of the caller's audio is voiced when its level (RMS, dB full scale) is at least
 * `minLevelDbfs` and at least `marginDb` above the line's noise floor. The floor starts at the first
 * frame's level (a call opens with the line's own sound — silence or the caller's surroundings — not
 * with the caller's voice) and follows the quietest frames: it drops to any quieter frame at once, rises towards unvoiced frames within about a second,
 * and towards voiced ones only over `floorRiseSeconds` (so a noise that starts mid-call stops counting
 * as speech, while an utterance does not raise the floor above itself). An utterance starts after
 * `startMs` of voiced frames in a row (with `preRollMs` of audio before them kept, so its first sound is
 * not cut) and ends after `silenceMs` of unvoiced frames in a row; then it is transcribed.
 */
export interface EndOfSpeechOptions {
  frameMs: number;
  minLevelDbfs: number;
  marginDb: number;
  floorRiseSeconds: number;
  startMs: number;
  silenceMs: number;
  preRollMs: number;
}

/** 20 ms frames; speech at ≥ -50 dBFS and 8 dB over the noise floor; 100 ms opens an utterance, 600 ms of silence ends it. */
export const DEFAULT_END_OF_SPEECH: Readonly<EndOfSpeechOptions> = {
  frameMs: 20,
  minLevelDbfs: -50,
  marginDb: 8,
  floorRiseSeconds: 20,
  startMs: 100,
  silenceMs: 600,
  preRollMs: 200,
};

/**
 * Seconds of caller speech over the agent's own speech after which the agent stops talking (barge-in).
 * Shorter speech over it ("mm-hmm", "okay") is a backchannel: the agent talks on, and it is not answered.
 */
export const DEFAULT_BARGE_IN_SECONDS = 0.6;

export interface CascadedVoiceAgentOptions {
  /** The text agent that decides what to say and which tools to call (e.g. `createAgent("openai:gpt-4.1")`). */
  agent: Agent;
  /** Its ears: the caller's utterances are transcribed by it (`createTranscriptionModel`). */
  transcription: TranscriptionModel;
  /** Its voice (`createSpeechModel`). */
  speech: SpeechModel;
  /** A voice of the speech model; default: the model's. */
  voice?: string;
  /** How to speak, for speech models that take instructions. */
  instructions?: string;
  endOfSpeech?: Partial<EndOfSpeechOptions>;
  bargeInSeconds?: number;
  /**
   * Speak the greeting that ends the view's history (the agent's opening message) when the call opens;
   * default true.
   */
  speakGreeting?: boolean;
}

/**
 * A voice agent made of any text agent: it listens to the caller on the wire, finds the end of each
 * utterance (see {@link EndOfSpeechOptions}), transcribes it, hands the text to the text agent's session,
 * returns the agent's tool calls in the tick and their results (the next tick's input) back to it, and
 * speaks the agent's text: synthesised, resampled to 8 kHz, μ-law, played one tick at a time with the
 * text spread over the ticks its audio covers in proportion. Caller speech over its playback for
 * `bargeInSeconds` stops the playback (the rest is never said); shorter speech over it is not answered.
 *
 * Clocks: `virtual` waits in the tick for the whole turn (transcription, the agent, speech), so the
 * reply starts in the tick where the utterance ended; `realtime` runs the turn beside the ticks and
 * stays silent until it is ready.
 *
 * Usage per tick: `transcription` (audio seconds), `llm` (the text agent's tokens), `speech`
 * (characters). A transcription or speech provider failure throws InfrastructureError (the call's
 * infrastructure failed); anything the text agent throws is passed on as it is.
 *
 * @example
 * const voice = cascadedVoiceAgent({
 *   agent: createAgent("openai:gpt-4.1"),
 *   transcription: createTranscriptionModel("openai:gpt-4o-transcribe"),
 *   speech: createSpeechModel("openai:gpt-4o-mini-tts"),
 * });
 */
export function cascadedVoiceAgent(options: CascadedVoiceAgentOptions): VoiceAgent {
  return new CascadedVoiceAgent(options);
}

class CascadedVoiceAgent implements VoiceAgent {
  readonly name: string;
  readonly model: string;
  private readonly options: CascadedVoiceAgentOptions;
  private readonly endOfSpeech: EndOfSpeechOptions;
  private session: AgentSession | undefined;
  private tickBytes = 0;
  private clock: CallClock = "virtual";
  private detector: SpeechDetector | undefined;
  private readonly abort = new AbortController();

  /** Caller utterances (8 kHz PCM) waiting to be transcribed and answered. */
  private pendingUtterances: Int16Array[] = [];
  /** The agent made tool calls and waits for their results. */
  private awaitingToolResults = false;
  /** A turn in progress (transcription, the agent, speech), and its failure if it failed. */
  private turn: Promise<void> | undefined;
  private turnFailure: { error: unknown } | undefined;
  private toolCallsToEmit: ToolCall[] = [];
  private usage: VoiceUsageRecord[] = [];
  private playback: Playback[] = [];
  /** The caller's voiced milliseconds over the agent's playback, in the current utterance (barge-in). */
  private overlapMs = 0;
  /** The caller's current utterance started while the agent was speaking (a backchannel unless it barges in). */
  private utteranceOverPlayback = false;
  /** Voiced milliseconds of the caller's current utterance. */
  private utteranceVoicedMs = 0;

  constructor(options: CascadedVoiceAgentOptions) {
    this.options = options;
    this.endOfSpeech = { ...DEFAULT_END_OF_SPEECH, ...options.endOfSpeech };
    this.name = "cascaded";
    this.model = `${options.transcription.spec} → ${options.agent.model ?? options.agent.name} → ${options.speech.spec}`;
  }

  async start(setup: VoiceAgentSetup): Promise<void> {
    this.tickBytes = wireBytesPerTick(setup.tickSeconds);
    this.clock = setup.clock;
    this.detector = new SpeechDetector(this.endOfSpeech, WIRE_SAMPLE_RATE);
    const signal = setup.view.signal
      ? AbortSignal.any([setup.view.signal, this.abort.signal])
      : this.abort.signal;
    this.session = await this.options.agent.start({ ...setup.view, signal });
    const last = setup.view.history.at(-1);
    if (
      (this.options.speakGreeting ?? true) &&
      last?.role === "assistant" &&
      typeof last.content === "string" &&
      last.content.trim() !== "" &&
      !(last.tool_calls?.length ?? 0)
    ) {
      this.playback.push(await this.synthesise(last.content));
    }
  }

  async tick(input: VoiceAgentTickInput): Promise<VoiceAgentTickOutput> {
    const detector = this.detector;
    if (!detector || !this.session) throw new Error("cascaded voice agent: tick() before start()");
    this.throwTurnFailure();

    // The results of last tick's tool calls go back to the agent first.
    if (input.toolResults.length > 0 && this.awaitingToolResults) {
      this.awaitingToolResults = false;
      const results = [...input.toolResults];
      await this.runTurn(() => this.respond(results));
    }

    this.listen(detector, mulawDecode(input.audio));

    if (this.turn === undefined && !this.awaitingToolResults && this.pendingUtterances.length > 0) {
      const utterances = this.pendingUtterances;
      this.pendingUtterances = [];
      await this.runTurn(() => this.answer(utterances));
    }
    this.throwTurnFailure();

    const toolCalls = this.toolCallsToEmit;
    this.toolCallsToEmit = [];
    const usage = this.usage;
    this.usage = [];
    const played = this.playTick();
    return { ...played, toolCalls, ...(usage.length > 0 ? { usage } : {}) };
  }

  async stop(): Promise<void> {
    this.abort.abort();
    this.playback = [];
    try {
      await this.session?.end?.();
    } catch {
      // The call is over; a failure to release the session changes nothing.
    }
  }

  /** Feeds the caller's audio of a tick to the end-of-speech detector; barge-in and backchannels. */
  private listen(detector: SpeechDetector, samples: Int16Array): void {
    const bargeInMs = (this.options.bargeInSeconds ?? DEFAULT_BARGE_IN_SECONDS) * 1000;
    for (const event of detector.feed(samples)) {
      const speaking = this.playback.length > 0;
      if (event.type === "start") {
        this.utteranceOverPlayback = speaking;
        this.overlapMs = 0;
        this.utteranceVoicedMs = this.endOfSpeech.startMs - this.endOfSpeech.frameMs;
      } else if (event.type === "voiced") {
        this.utteranceVoicedMs += this.endOfSpeech.frameMs;
        if (!speaking) continue;
        this.overlapMs += this.endOfSpeech.frameMs;
        if (this.overlapMs >= bargeInMs) this.playback = [];
      } else {
        // Short speech that began over the agent's speech is a backchannel ("mm-hmm"): not answered.
        if (!this.utteranceOverPlayback || this.utteranceVoicedMs >= bargeInMs)
          this.pendingUtterances.push(event.audio);
        this.utteranceOverPlayback = false;
        this.overlapMs = 0;
      }
    }
  }

  /**
   * Runs a turn: awaited in the tick on a virtual clock; beside the ticks on a real one (its outputs
   * are picked up by the first tick after it ends, its failure thrown there).
   */
  private async runTurn(work: () => Promise<void>): Promise<void> {
    // After the turn in progress, if any (a reply still being synthesised when its tool results come).
    const turn = (this.turn ?? Promise.resolve()).then(work).then(
      () => {
        if (this.turn === turn) this.turn = undefined;
      },
      (error: unknown) => {
        if (this.turn === turn) this.turn = undefined;
        this.turnFailure = { error };
      },
    );
    this.turn = turn;
    if (this.clock === "virtual") await turn;
  }

  private throwTurnFailure(): void {
    if (this.turnFailure === undefined) return;
    const { error } = this.turnFailure;
    this.turnFailure = undefined;
    throw error;
  }

  /** Transcribes the caller's utterances and gives their text to the agent. */
  private async answer(utterances: readonly Int16Array[]): Promise<void> {
    const texts: string[] = [];
    for (const samples of utterances) {
      const transcript = await this.options.transcription.transcribe(
        { samples, sampleRate: WIRE_SAMPLE_RATE },
        { signal: this.abort.signal },
      );
      this.usage.push({
        source: "transcription",
        model: this.options.transcription.spec,
        audioSeconds: transcript.audioSeconds,
      });
      if (transcript.text !== "") texts.push(transcript.text);
    }
    // Nothing intelligible: the agent is not asked (a real agent would not have heard words either).
    if (texts.length === 0) return;
    await this.respond([{ role: "user", content: texts.join(" ") }]);
  }

  /** One message of the text agent: its tool calls go out in the tick, its text is spoken. */
  private async respond(incoming: readonly Message[]): Promise<void> {
    const message: AssistantMessage = await this.session!.respond(incoming);
    const usage = message.usage;
    if (usage && (usage.prompt_tokens !== undefined || usage.completion_tokens !== undefined)) {
      this.usage.push({
        source: "llm",
        model: this.options.agent.model ?? this.options.agent.name,
        ...(usage.prompt_tokens !== undefined ? { inputTextTokens: usage.prompt_tokens } : {}),
        ...(usage.completion_tokens !== undefined ? { outputTextTokens: usage.completion_tokens } : {}),
        ...(usage.cache_read_tokens ? { cachedInputTextTokens: usage.cache_read_tokens } : {}),
        // Priced by passk's LLM layer as it answered (the price table and the run's overrides).
        cost: message.cost ?? null,
      });
    }
    const calls = message.tool_calls ?? [];
    if (calls.length > 0) {
      this.toolCallsToEmit.push(...calls.map((call) => ({ ...call, requestor: "assistant" as const })));
      this.awaitingToolResults = true;
    }
    const text = typeof message.content === "string" ? message.content.trim() : "";
    if (text !== "") this.playback.push(await this.synthesise(text));
  }

  /** The agent's text as wire audio (8 kHz μ-law), ready to play. */
  private async synthesise(text: string): Promise<Playback> {
    const audio = await this.options.speech.speak(text, {
      ...(this.options.voice !== undefined ? { voice: this.options.voice } : {}),
      ...(this.options.instructions !== undefined ? { instructions: this.options.instructions } : {}),
      signal: this.abort.signal,
    });
    this.usage.push({
      source: "speech",
      model: this.options.speech.spec,
      characters: text.length,
      audioSeconds: audio.samples.length / audio.sampleRate,
    });
    const wire = mulawEncode(resample(audio.samples, audio.sampleRate, WIRE_SAMPLE_RATE));
    return { wire, text, ticks: Math.max(1, Math.ceil(wire.length / this.tickBytes)), tick: 0 };
  }

  /** This tick's slice of the playback: its audio, and its share of the text. */
  private playTick(): Pick<VoiceAgentTickOutput, "audio" | "text" | "containsSpeech"> {
    const audio = new Uint8Array(this.tickBytes).fill(WIRE_SILENCE);
    const current = this.playback[0];
    if (current === undefined) return { audio, text: "", containsSpeech: false };
    const from = current.tick * this.tickBytes;
    audio.set(current.wire.subarray(from, Math.min(current.wire.length, from + this.tickBytes)));
    const cut = (tick: number) => Math.round((tick * current.text.length) / current.ticks);
    const text = current.text.slice(cut(current.tick), cut(current.tick + 1));
    current.tick++;
    if (current.tick >= current.ticks) this.playback.shift();
    return { audio, text, containsSpeech: true };
  }
}

interface Playback {
  wire: Uint8Array;
  text: string;
  ticks: number;
  /** The next tick to play. */
  tick: number;
}

type DetectorEvent = { type: "start" } | { type: "voiced" } | { type: "end"; audio: Int16Array };

/** Energy-based end-of-speech detection (see {@link EndOfSpeechOptions}). */
export class SpeechDetector {
  private readonly frameSamples: number;
  private readonly options: EndOfSpeechOptions;
  private remainder = new Int16Array(0);
  private floorDb: number | undefined;
  private voicedRun = 0;
  private silentRun = 0;
  private preRoll: Int16Array[] = [];
  private utterance: Int16Array[] | undefined;

  constructor(options: EndOfSpeechOptions, sampleRate: number) {
    this.options = options;
    this.frameSamples = Math.max(1, Math.round((options.frameMs / 1000) * sampleRate));
  }

  /** Whether an utterance is in progress. */
  get inUtterance(): boolean {
    return this.utterance !== undefined;
  }

  /** Feeds audio; returns what happened, frame by frame: utterance starts, voiced frames inside one, ends. */
  feed(samples: Int16Array): DetectorEvent[] {
    const all = new Int16Array(this.remainder.length + samples.length);
    all.set(this.remainder);
    all.set(samples, this.remainder.length);
    const events: DetectorEvent[] = [];
    let offset = 0;
    for (; offset + this.frameSamples <= all.length; offset += this.frameSamples)
      this.frame(all.slice(offset, offset + this.frameSamples), events);
    this.remainder = all.slice(offset);
    return events;
  }

  private frame(frame: Int16Array, events: DetectorEvent[]): void {
    const { frameMs, minLevelDbfs, marginDb, floorRiseSeconds, startMs, silenceMs, preRollMs } = this.options;
    const level = levelDbfs(frame);
    const floor = this.floorDb ?? level;
    const voiced = level >= minLevelDbfs && level >= floor + marginDb;
    // The noise floor: down at once, up fast towards unvoiced frames, slowly towards voiced ones.
    const rise = frameMs / 1000 / (voiced ? floorRiseSeconds : 1);
    this.floorDb = level < floor ? level : floor + (level - floor) * Math.min(1, rise);

    if (this.utterance === undefined) {
      this.preRoll.push(frame);
      const keep = Math.max(Math.ceil(preRollMs / frameMs), Math.ceil(startMs / frameMs));
      if (this.preRoll.length > keep) this.preRoll.shift();
      this.voicedRun = voiced ? this.voicedRun + frameMs : 0;
      if (this.voicedRun >= startMs) {
        this.utterance = this.preRoll;
        this.preRoll = [];
        this.silentRun = 0;
        events.push({ type: "start" });
        events.push({ type: "voiced" });
      }
      return;
    }
    this.utterance.push(frame);
    if (voiced) {
      this.silentRun = 0;
      events.push({ type: "voiced" });
      return;
    }
    this.silentRun += frameMs;
    if (this.silentRun >= silenceMs) {
      const frames = this.utterance;
      this.utterance = undefined;
      this.voicedRun = 0;
      const audio = new Int16Array(frames.reduce((n, f) => n + f.length, 0));
      let at = 0;
      for (const f of frames) {
        audio.set(f, at);
        at += f.length;
      }
      events.push({ type: "end", audio });
    }
  }
}

/** RMS level in dB full scale (-100 for digital silence). */
function levelDbfs(frame: Int16Array): number {
  let sum = 0;
  for (const sample of frame) sum += sample * sample;
  const rms = Math.sqrt(sum / Math.max(1, frame.length)) / 32768;
  return rms <= 1e-5 ? -100 : 20 * Math.log10(rms);
}
