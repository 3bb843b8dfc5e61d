import { readFileSync } from "node:fs";
import { USER_STOP_TOKENS } from "../core/agent.js";
import path from "node:path";
import { ConfigError } from "../core/errors.js";
import { InfrastructureError, type LanguageModel, type LlmMessage, type LlmToolSpec } from "../core/llm.js";
import type { Message, ToolCall, ToolMessage } from "../core/message.js";
import { participantTurn, participantView } from "../core/participant-view.js";
import { seededRandom } from "../core/seeded-random.js";
import type { Task, UserScenario } from "../core/task.js";
import { userSystemPrompt } from "../users/user-prompt.js";
import { mulawEncode, resample } from "./audio.js";
import type { SpeechAudio, SpeechModel } from "./speech-models.js";
import {
  WIRE_SAMPLE_RATE,
  wireBytesPerTick,
  type CallerLine,
  type CallerLineTick,
  type CallerSpeechState,
  type SpeechInsert,
} from "./call.js";
import { muffleAwayFromPhone } from "./effects/muffling.js";
import { SpeechInsertScheduler } from "./effects/speech-inserts.js";
import type { SpeechEffectsSettings } from "./voice-settings.js";
import { priceVoiceUsage, type VoicePricing } from "./voice-cost.js";
import { linearizeTicks, type ParticipantTick, type SelfChunk, type SpeechChunk } from "./linearize.js";
import {
  emptyChunk,
  turnTakingAction,
  WIRE_AUDIO_FORMAT,
  type TickChunk,
  type TurnTakingActionRecord,
} from "./ticks.js";

// The simulated caller of a full-duplex call: an LLM writes what it says next (from the conversation
// it has heard, linearised), a speech model speaks it, and the line carries it to the agent tick by
// tick. When to speak, when to yield and when to react while the agent talks follows the reference's
// streaming user simulator: silence thresholds before answering, yield thresholds under overlap, and
// (when the persona and settings call for them) model decisions to interrupt or to backchannel.

/** What the customer is given when the call opens. */
export interface VoiceCustomerSetup {
  task: Task;
  scenario: UserScenario;
  /** The customer's own tools (their phone). */
  tools: readonly LlmToolSpec[];
  seed: number;
  tickSeconds: number;
  signal?: AbortSignal;
}

/** What the customer hears in a tick: the agent's previous chunk (its transcript) and its own tool results. */
export interface VoiceCustomerTickInput {
  agent: { text: string; containsSpeech: boolean };
  toolResults: readonly ToolMessage[];
}

/** The customer's tick: its chunk record, its audio as it left the line, its tool calls, whether it ended the call. */
export interface VoiceCustomerTick {
  chunk: TickChunk;
  /** μ-law at 8 kHz, one tick. */
  wire: Uint8Array;
  toolCalls: readonly ToolCall[];
  stop: boolean;
}

/** The caller side of a voice call. `start` opens a call (and resets any earlier one); calls run one at a time. */
export interface VoiceCustomer {
  readonly name: string;
  readonly model?: string;
  start(setup: VoiceCustomerSetup): Promise<void>;
  tick(input: VoiceCustomerTickInput): Promise<VoiceCustomerTick>;
  stop?(): Promise<void>;
}

/** The reference's turn-taking thresholds (seconds; turned into ticks with the tick length). */
export interface TurnTakingSettings {
  waitToRespondOtherSeconds: number;
  waitToRespondSelfSeconds: number;
  yieldWhenInterruptedSeconds: number;
  yieldWhenInterruptingSeconds: number;
  interruptionCheckIntervalSeconds: number;
  integrationSeconds: number;
  backchannelMinSeconds: number | null;
  backchannelMaxSeconds: number | null;
  backchannelPoissonRate: number;
}

/**
 * The reference's defaults (its results' `audio_native_config`); the least time between backchannels
 * comes from the task's voice settings (`backchannel_min_threshold`, none: no Poisson backchannels).
 */
export const DEFAULT_TURN_TAKING: Readonly<TurnTakingSettings> = Object.freeze({
  waitToRespondOtherSeconds: 1.0,
  waitToRespondSelfSeconds: 5.0,
  yieldWhenInterruptedSeconds: 1.0,
  yieldWhenInterruptingSeconds: 5.0,
  interruptionCheckIntervalSeconds: 2.0,
  integrationSeconds: 0.5,
  backchannelMinSeconds: null,
  backchannelMaxSeconds: 12.0,
  backchannelPoissonRate: 0.1,
});

/** The voice guidelines from a τ² data directory (`user_simulator/simulation_guidelines_voice*.md`). */
export interface VoiceGuidelines {
  guidelines: string;
  guidelinesWithTools: string;
}

export function readVoiceGuidelines(dataDir: string): VoiceGuidelines {
  const read = (file: string) => {
    const full = path.join(dataDir, "user_simulator", file);
    try {
      return readFileSync(full, "utf8");
    } catch {
      throw new ConfigError(`the voice customer's guidelines ${full} are missing; run \`passk data pull\``);
    }
  };
  return {
    guidelines: read("simulation_guidelines_voice.md"),
    guidelinesWithTools: read("simulation_guidelines_voice_tools.md"),
  };
}

/** The placeholder of the voice guidelines where a persona's own guidelines go. */
const PERSONA_PLACEHOLDER = "<PERSONA_GUIDELINES>";

export interface LlmVoiceCustomerOptions {
  /** Writes what the customer says. */
  model: LanguageModel;
  /** Decides whether to interrupt or backchannel (default: `model`). */
  decisionModel?: LanguageModel;
  /** Speaks it: `createSpeechModel("openai:gpt-4o-mini-tts")`, ElevenLabs, or offline espeak-ng. */
  speech: SpeechModel;
  /** How the speech model's characters (or seconds) are priced: the price table and `--prices`. */
  pricing?: VoicePricing;
  /** The speech model's voice for this customer. */
  voice?: string;
  guidelines: VoiceGuidelines;
  /** The persona's own guidelines, put at the guidelines' persona placeholder. */
  personaGuidelines?: string;
  /** The system prompt template (the reference's, under the τ² protocol); default passk's layout. */
  template?: string;
  /** The caller's line; default the plain telephone line (μ-law, no effects). */
  line?: CallerLine;
  /**
   * The task's speech effects (`speech_effects_config`): as they enable them, a vocal tic now and then
   * inside an utterance, and tics and remarks not meant for the agent (said away from the phone) while
   * the caller is silent, spoken with `speech` and played over `line` (only a given `line` plays those:
   * the plain telephone line has no effects). Absent: none.
   */
  speechEffects?: SpeechEffectsSettings;
  /** The persona interrupts the agent (the reference's `interrupt_tendency: interrupts`). */
  interrupts?: boolean;
  /**
   * Backchannels are decided by the model (the task's `use_llm_backchannel`); else by a Poisson process
   * between `backchannelMinSeconds` and `backchannelMaxSeconds`, when the former is set.
   */
  llmBackchannel?: boolean;
  turnTaking?: Partial<TurnTakingSettings>;
}

/** The plain telephone line: the caller's voice, μ-law encoded, nothing else. */
export function telephoneLine(): CallerLine {
  return {
    tick(speech: Int16Array): CallerLineTick {
      return { wire: mulawEncode(speech), speechEffects: null, sourceEffects: null, channelEffects: null };
    },
  };
}

/** Short acknowledgements a listener makes while the agent talks. */
const BACKCHANNELS = ["mm-hmm", "uh-huh", "okay", "right", "yeah", "I see"];

/** One tick of the customer's pending speech. */
interface QueuedChunk {
  text: string;
  pcm: Int16Array;
  /** The vocal tic spoken inside this chunk's utterance, recorded on each of its chunks. */
  insert: SpeechInsert | null;
  utteranceId: string;
  chunkId: number;
  final: boolean;
  cost: number | null;
  usage: Record<string, unknown> | null;
}

type Action = "wait" | "keep_talking" | "generate_message" | "stop_talking" | "backchannel";

interface Generated {
  text: string | null;
  toolCalls: ToolCall[];
  cost: number | null;
  usage: Record<string, unknown> | null;
  seconds: number;
}

/**
 * The LLM voice customer: the task's scenario with the voice guidelines, spoken by `speech`, over
 * `line`, turn by turn as the reference's streaming simulator. A failure of its speech or language
 * model's provider is an infrastructure error (never the agent's).
 */
export function llmVoiceCustomer(options: LlmVoiceCustomerOptions): VoiceCustomer {
  const settings = { ...DEFAULT_TURN_TAKING, ...options.turnTaking };
  const decisionModel = options.decisionModel ?? options.model;
  let setup: VoiceCustomerSetup;
  let system = "";
  let samplesPerTick = 0;
  const line = options.line ?? telephoneLine();
  let random: () => number = Math.random;
  // As the reference converts: the quotient truncated (0.6 s / 0.2 s is 2 ticks there too).
  const ticks = (seconds: number) => Math.trunc(seconds / setup.tickSeconds);
  let thresholds: {
    other: number;
    self: number;
    interrupted: number;
    interrupting: number;
    checkInterval: number;
    integration: number;
    backchannelMin: number | null;
    backchannelMax: number | null;
  };

  // State of the turn-taking (the reference's streaming state).
  let history: ParticipantTick[] = [];
  let heard: { text: string; containsSpeech: boolean }[] = [];
  let queue: QueuedChunk[] = [];
  let timeSinceLastTalk = 0;
  let timeSinceLastOtherTalk = 0;
  let tickCount = 0;
  let ticksSinceLastBackchannel = 0;
  let backchanneling = false;
  let selfSpeaking = 0;
  let otherSpeaking = 0;
  let waitingForToolResults = false;
  let deliveringToolResultSpeech = false;
  let utterances = 0;
  let speaking = false;
  let inserts: SpeechInsertScheduler | null = null;
  /** Off-turn inserts already spoken in this call, by text (each is synthesised once, as the reference pre-renders them). */
  let insertAudio = new Map<string, Int16Array>();

  const ongoingSpeech = () => {
    let n = 0;
    for (let i = heard.length - 1; i >= 0 && heard[i]!.containsSpeech; i--) n++;
    return n;
  };

  const conversation = (pending?: ToolMessage[], marked = false): Message[] => {
    const ticksSoFar = [...history];
    const last = heard.at(-1);
    if (pending && pending.length > 0) ticksSoFar.push({ self: null, other: null, env: pending });
    else if (last && last.text.trim() !== "")
      // What the agent is saying right now, not yet in the history (silent text, a greeting, counts for nothing).
      ticksSoFar.push({
        self: null,
        other: {
          role: "assistant",
          content: marked ? `${last.text} [still speaking]` : last.text,
          utterance_ids: null,
          contains_speech: last.containsSpeech,
        },
        env: null,
      });
    return linearizeTicks(ticksSoFar, thresholds.integration);
  };

  const generate = async (pending?: ToolMessage[]): Promise<Generated> => {
    const messages = conversation(pending, true).filter(
      (m) => !((m.role === "user" || m.role === "assistant") && !m.content?.trim() && !m.tool_calls?.length),
    );
    const llmMessages: LlmMessage[] = participantView(messages, "user");
    const began = performance.now();
    const response = await options.model.generate({
      system,
      messages: llmMessages,
      tools: setup.tools,
      params: { seed: setup.seed },
      cacheSalt: `trial-seed:${setup.seed}`,
      ...(setup.signal ? { signal: setup.signal } : {}),
    });
    const turn = participantTurn(response, "user");
    return {
      text: turn.content,
      toolCalls: turn.tool_calls ?? [],
      cost: turn.cost,
      usage: turn.usage as Record<string, unknown>,
      seconds: (performance.now() - began) / 1000,
    };
  };

  /** The price of speaking `text` as `pcm` with the customer's speech model (characters, else seconds). */
  const speechCost = (text: string, pcm: Int16Array) =>
    priceVoiceUsage(
      {
        source: "speech",
        model: options.speech.spec,
        characters: text.length,
        audioSeconds: pcm.length / WIRE_SAMPLE_RATE,
      },
      options.pricing,
    );

  /**
   * An off-turn insert drawn for a silent tick, with its audio (a remark not meant for the agent is said
   * away from the phone: muffled) and what speaking it cost when it was synthesised now.
   */
  const offTurn = async (): Promise<{
    state: NonNullable<CallerSpeechState["outOfTurn"]>;
    cost: number | null;
    usage: Record<string, unknown> | null;
  } | null> => {
    if (options.line === undefined) return null;
    const insert = inserts?.duringSilence(setup.tickSeconds) ?? null;
    if (insert === null) return null;
    const known = insertAudio.get(insert.text);
    if (known) return { state: { insert, audio: known }, cost: 0, usage: null };
    const pcm = await synthesize(options, insert.text, setup.signal);
    const audio = insert.type === "non_directed_phrase" ? muffleAwayFromPhone(pcm, WIRE_SAMPLE_RATE) : pcm;
    insertAudio.set(insert.text, audio);
    const speech = speechCost(insert.text, pcm);
    return {
      state: { insert, audio },
      cost: speech.cost,
      usage: {
        tts_model: options.speech.spec,
        tts_characters: insert.text.length,
        tts_cost: speech.cost,
        ...(speech.cost === null ? { cost_unknown: speech.reason } : {}),
      },
    };
  };

  /**
   * Speak `words`: a vocal tic maybe put between two of them, synthesised, resampled to the wire rate,
   * cut into ticks with the text spread over them (the tic's text too, as it was said).
   */
  const speak = async (words: string, llmCost: number | null, llmUsage: Record<string, unknown> | null) => {
    const began = performance.now();
    const { text, insert } = inserts ? inserts.forUtterance(words) : { text: words, insert: null };
    const pcm = await synthesize(options, text, setup.signal);
    // The utterance's cost: the words (the LLM's call) and their speech (characters, else seconds).
    const speech = speechCost(text, pcm);
    const cost = llmCost === null || speech.cost === null ? null : llmCost + speech.cost;
    const usage: Record<string, unknown> = {
      ...llmUsage,
      tts_model: options.speech.spec,
      tts_characters: text.length,
      tts_cost: speech.cost,
      ...(speech.cost === null || llmCost === null
        ? {
            cost_unknown: [
              ...(llmCost === null
                ? ["the customer's language model is not in the price table (pass --prices FILE)"]
                : []),
              ...(speech.cost === null ? [speech.reason] : []),
            ].join("; "),
          }
        : {}),
    };
    const count = Math.max(1, Math.ceil(pcm.length / samplesPerTick));
    const texts = spreadText(text, count);
    const utteranceId = `${setup.task.id}-customer-${++utterances}`;
    const chunks: QueuedChunk[] = [];
    for (let i = 0; i < count; i++) {
      const slice = new Int16Array(samplesPerTick);
      slice.set(pcm.subarray(i * samplesPerTick, Math.min(pcm.length, (i + 1) * samplesPerTick)));
      chunks.push({
        text: texts[i]!,
        pcm: slice,
        insert,
        utteranceId,
        chunkId: i,
        final: i === count - 1,
        cost: i === 0 ? cost : 0,
        usage: i === 0 ? usage : null,
      });
    }
    return { chunks, seconds: (performance.now() - began) / 1000 };
  };

  /**
   * The tick's audio through the line, and the chunk record. A silent tick may start an off-turn insert
   * (its speech's cost is the tick's).
   */
  const emit = async (
    queued: QueuedChunk | undefined,
    action: TurnTakingActionRecord | null,
    timestamp: string,
    offTurnAllowed = true,
  ): Promise<{ chunk: TickChunk; wire: Uint8Array }> => {
    const speech = queued !== undefined;
    const utteranceStart = speech && (queued.chunkId === 0 || !speaking);
    speaking = speech;
    const aside = speech || !offTurnAllowed ? null : await offTurn();
    const out = line.tick(queued?.pcm ?? new Int16Array(samplesPerTick), {
      speaking: speech,
      utteranceStart,
      ...(aside ? { outOfTurn: aside.state } : {}),
    });
    const speechEffects =
      queued?.insert != null
        ? {
            dynamic_muffling_enabled: out.speechEffects?.dynamic_muffling_enabled ?? false,
            speech_insert: queued.insert,
          }
        : out.speechEffects;
    return {
      wire: out.wire,
      chunk: {
        ...emptyChunk("user", timestamp),
        content: queued ? queued.text : "",
        is_audio: true,
        cost: queued ? queued.cost : (aside?.cost ?? 0),
        usage: queued ? queued.usage : (aside?.usage ?? null),
        audio_format: { ...WIRE_AUDIO_FORMAT },
        speech_effects: speechEffects,
        source_effects: out.sourceEffects,
        channel_effects: out.channelEffects,
        turn_taking_action: action,
        utterance_ids: queued ? [queued.utteranceId] : null,
        chunk_id: queued ? queued.chunkId : 0,
        is_final_chunk: queued ? queued.final : true,
        contains_speech: speech,
      },
    };
  };

  const decide = async (
    question: string,
  ): Promise<{ yes: boolean; seconds: number; cost: number | null }> => {
    const began = performance.now();
    const lines = conversation(undefined, true)
      .slice(-100)
      .flatMap((m) => (m.content ? [`${m.role === "user" ? "CUSTOMER" : "AGENT"}: ${m.content}`] : []));
    try {
      const response = await decisionModel.generate({
        system:
          "You decide how a caller on a phone call reacts while the agent is talking. Answer YES or NO only.",
        messages: [{ role: "user", content: `${lines.join("\n")}\n\n${question}` }],
        ...(setup.signal ? { signal: setup.signal } : {}),
      });
      return {
        yes: response.text?.trim().toUpperCase() === "YES",
        seconds: (performance.now() - began) / 1000,
        cost: response.cost,
      };
    } catch {
      // As the reference: a failed decision keeps listening.
      return { yes: false, seconds: (performance.now() - began) / 1000, cost: null };
    }
  };

  /** The reference's basic turn-taking policy, in ticks. */
  const policy = async (): Promise<TurnTakingActionRecord & { action: Action }> => {
    const record = (action: Action, info: string) => ({ ...turnTakingAction(action, info), action });
    if (queue.length > 0) {
      if (backchanneling) return record("keep_talking", "Backchannel in progress");
      const overlap = ongoingSpeech();
      if (overlap > 0) {
        // Who started the overlap: the side that has been speaking longer was there first.
        const selfStarted = selfSpeaking > 0 && otherSpeaking > 0 && selfSpeaking < otherSpeaking;
        const threshold =
          deliveringToolResultSpeech || selfStarted ? thresholds.interrupting : thresholds.interrupted;
        const kind = deliveringToolResultSpeech
          ? "when_interrupting (delivering_tool_result)"
          : selfStarted
            ? "when_interrupting"
            : "when_interrupted";
        if (overlap >= threshold)
          return record("stop_talking", `Interruption above threshold (${kind}), stop.`);
        return record("keep_talking", `Interruption below threshold (${kind}), ignore`);
      }
      return record("keep_talking", "No interruption");
    }
    const ongoing = ongoingSpeech();
    const checkNow = thresholds.checkInterval <= 0 || tickCount % thresholds.checkInterval === 0;
    if (ongoing > 0 && checkNow && (options.interrupts || options.llmBackchannel)) {
      const [interrupt, backchannel] = await Promise.all([
        options.interrupts
          ? decide(
              "The agent is still talking. Has the caller heard enough to answer, ask or correct, so that a real caller would cut in now? Not if the agent has said only a few words.",
            )
          : undefined,
        options.llmBackchannel
          ? decide(
              "The agent is still talking. Would a real caller say a short 'mm-hmm' now to show they are listening? Only after several full sentences, not after a question, and not if the caller spoke or acknowledged very recently.",
            )
          : undefined,
      ]);
      const timed = (action: Action, info: string) => ({
        ...record(action, info),
        interrupt_check_seconds: interrupt?.seconds ?? null,
        interrupt_check_cost: interrupt?.cost ?? null,
        backchannel_check_seconds: backchannel?.seconds ?? null,
        backchannel_check_cost: backchannel?.cost ?? null,
      });
      if (interrupt?.yes) return timed("generate_message", "Callback decided to interrupt.");
      if (backchannel?.yes) return timed("backchannel", "Callback decided to backchannel.");
    }
    if (!options.llmBackchannel && thresholds.backchannelMin !== null && ongoing > 0) {
      const since = ticksSinceLastBackchannel;
      if (since >= thresholds.backchannelMin) {
        if (thresholds.backchannelMax !== null && since >= thresholds.backchannelMax)
          return record("backchannel", `Poisson backchannel: forced at max threshold`);
        const p = 1 - Math.exp(-settings.backchannelPoissonRate * setup.tickSeconds);
        if (random() < p) return record("backchannel", "Poisson backchannel");
      }
    }
    if (timeSinceLastOtherTalk > thresholds.other && timeSinceLastTalk > thresholds.self)
      return record("generate_message", "Both silence thresholds met.");
    return record("wait", ongoing > 0 ? "Listening to ongoing speech." : "Silence, waiting for thresholds.");
  };

  const customer: VoiceCustomer = {
    name: "voice_user_simulator",
    model: options.model.spec,
    async start(init) {
      setup = init;
      // A new call starts from a clean state.
      history = [];
      heard = [];
      queue = [];
      timeSinceLastTalk = timeSinceLastOtherTalk = tickCount = ticksSinceLastBackchannel = 0;
      selfSpeaking = otherSpeaking = utterances = 0;
      backchanneling = waitingForToolResults = deliveringToolResultSpeech = speaking = false;
      samplesPerTick = wireBytesPerTick(init.tickSeconds);
      inserts = options.speechEffects ? new SpeechInsertScheduler(options.speechEffects, init.seed) : null;
      insertAudio = new Map();
      random = seededRandom(init.seed + 100);
      const base =
        init.tools.length > 0 ? options.guidelines.guidelinesWithTools : options.guidelines.guidelines;
      const persona = options.personaGuidelines ? `\n\n${options.personaGuidelines}\n` : "";
      system = userSystemPrompt({
        guidelines: base.replace(PERSONA_PLACEHOLDER, persona),
        scenario: init.scenario,
        ...(options.template !== undefined ? { template: options.template } : {}),
      });
      thresholds = {
        other: ticks(settings.waitToRespondOtherSeconds),
        self: ticks(settings.waitToRespondSelfSeconds),
        interrupted: ticks(settings.yieldWhenInterruptedSeconds),
        interrupting: ticks(settings.yieldWhenInterruptingSeconds),
        checkInterval: ticks(settings.interruptionCheckIntervalSeconds),
        integration: Math.max(1, ticks(settings.integrationSeconds)),
        backchannelMin:
          settings.backchannelMinSeconds === null ? null : ticks(settings.backchannelMinSeconds),
        backchannelMax:
          settings.backchannelMaxSeconds === null ? null : ticks(settings.backchannelMaxSeconds),
      };
    },
    async tick(input) {
      const timestamp = new Date().toISOString();
      tickCount++;
      heard.push(input.agent);
      const agentSpeech = input.agent.containsSpeech;
      const agentJustStarted = agentSpeech && timeSinceLastOtherTalk > 0;
      if (agentSpeech) {
        timeSinceLastOtherTalk = 0;
        otherSpeaking++;
        ticksSinceLastBackchannel++;
      } else {
        timeSinceLastOtherTalk++;
        otherSpeaking = 0;
      }
      if (agentJustStarted) ticksSinceLastBackchannel = 1;

      let out: { chunk: TickChunk; wire: Uint8Array };
      let toolCalls: ToolCall[] = [];
      let stop = false;
      let spoke = false;
      const pending = input.toolResults.length > 0 ? [...input.toolResults] : undefined;
      /** A message the model wrote: tool calls, a stop, or speech queued. */
      const take = async (generated: Generated, action: TurnTakingActionRecord | null) => {
        if (action) action.llm_generation_seconds = generated.seconds;
        if (generated.toolCalls.length > 0) {
          toolCalls = generated.toolCalls;
          waitingForToolResults = true;
          const silent = await emit(undefined, action, timestamp);
          // The tick's cost: the model's message, and an off-turn insert's speech if one started.
          const aside = silent.chunk.usage;
          return {
            ...silent,
            chunk: {
              ...silent.chunk,
              content: generated.text,
              cost:
                aside === null
                  ? generated.cost
                  : generated.cost === null || silent.chunk.cost === null
                    ? null
                    : generated.cost + silent.chunk.cost,
              usage: aside === null ? generated.usage : { ...generated.usage, ...aside },
            },
          };
        }
        if (isCustomerStop(generated.text)) {
          stop = true;
          // The call ends here: nothing starts off-turn.
          const silent = await emit(undefined, action, timestamp, false);
          // As the reference records it: the stop message's text, counted as speech.
          return {
            ...silent,
            chunk: {
              ...silent.chunk,
              content: generated.text,
              contains_speech: true,
              cost: generated.cost,
              usage: generated.usage,
            },
          };
        }
        const spoken = await speak(generated.text ?? "", generated.cost, generated.usage);
        if (action) action.tts_synthesis_seconds = spoken.seconds;
        queue.push(...spoken.chunks);
        return undefined;
      };

      if (pending) {
        waitingForToolResults = false;
        const generated = await generate(pending);
        const done = await take(generated, null);
        if (done) out = done;
        else {
          // Speech about a tool result waits for the next tick's turn-taking, and holds its ground.
          deliveringToolResultSpeech = true;
          out = await emit(undefined, null, timestamp);
          timeSinceLastTalk++;
        }
      } else if (waitingForToolResults) {
        out = await emit(undefined, null, timestamp);
        timeSinceLastTalk++;
      } else {
        const action = await policy();
        let next: QueuedChunk | undefined;
        let done: { chunk: TickChunk; wire: Uint8Array } | undefined;
        if (action.action === "keep_talking") {
          next = queue.shift();
          if (queue.length === 0) {
            backchanneling = false;
            deliveringToolResultSpeech = false;
          }
        } else if (action.action === "stop_talking") {
          queue = [];
          backchanneling = false;
        } else if (action.action === "generate_message") {
          const generated = await generate();
          heard = [];
          done = await take(generated, action);
          if (!done) next = queue.shift();
        } else if (action.action === "backchannel") {
          const phrase = BACKCHANNELS[Math.floor(random() * BACKCHANNELS.length)]!;
          const spoken = await speak(phrase, 0, null);
          queue.push(...spoken.chunks);
          next = queue.shift();
          backchanneling = true;
          ticksSinceLastBackchannel = 0;
        }
        if (done) out = done;
        else {
          out = await emit(next, action, timestamp);
          spoke = next !== undefined;
          if (spoke) timeSinceLastTalk = 0;
          else timeSinceLastTalk++;
        }
      }

      const self: SelfChunk | null =
        toolCalls.length > 0
          ? { role: "user", content: out.chunk.content, tool_calls: toolCalls }
          : out.chunk.contains_speech
            ? speechOf(out.chunk)
            : null;
      if (self !== null) selfSpeaking++;
      else selfSpeaking = 0;
      history.push({
        self,
        other: agentSpeech
          ? { role: "assistant", content: input.agent.text, utterance_ids: null, contains_speech: true }
          : null,
        env: pending ?? null,
      });
      return { chunk: out.chunk, wire: out.wire, toolCalls, stop };
    },
  };
  return customer;
}

function speechOf(chunk: TickChunk): SpeechChunk {
  return { role: "user", content: chunk.content, utterance_ids: chunk.utterance_ids, contains_speech: true };
}

/** Text spread over `count` chunks, each character going to the chunk its position falls in. */
export function spreadText(text: string, count: number): string[] {
  const chunks: string[][] = Array.from({ length: count }, () => []);
  const interval = count / Math.max(1, text.length);
  for (let i = 0; i < text.length; i++) chunks[Math.floor(i * interval)]!.push(text[i]!);
  return chunks.map((chars) => chars.join(""));
}

/** `text` spoken by the speech model, as 16-bit PCM at the wire's rate. */
async function synthesize(
  options: LlmVoiceCustomerOptions,
  text: string,
  signal: AbortSignal | undefined,
): Promise<Int16Array> {
  let audio: SpeechAudio;
  try {
    audio = await options.speech.speak(text, {
      ...(options.voice !== undefined ? { voice: options.voice } : {}),
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    if (signal?.aborted || error instanceof InfrastructureError) throw error;
    throw new InfrastructureError(
      `the customer's speech model failed: ${error instanceof Error ? error.message : String(error)}`,
      1,
      { cause: error },
    );
  }
  return resample(audio.samples, audio.sampleRate, WIRE_SAMPLE_RATE);
}

/** Whether a customer's text ends the call (a stop, transfer or out-of-scope token). */
export function isCustomerStop(text: string | null): boolean {
  return text !== null && USER_STOP_TOKENS.some((token) => text.includes(token));
}
