import type { IncomingMessage, Server } from "node:http";
import { isIP, type Socket } from "node:net";
import { WebSocketServer, type RawData, type WebSocket } from "ws";
import type { Judge } from "../core/judge.js";
import type { LanguageModel, LlmToolSpec } from "../core/llm.js";
import type { ToolCall, ToolMessage } from "../core/message.js";
import type { Task } from "../core/task.js";
import type { AnyDomain } from "../env/domain.js";
import { toolSpecs } from "../env/tool-schema.js";
import { diffDb } from "../env/db-diff.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import type { RecordChange, WorldRecord } from "./api-schemas.js";
import { redactSecrets } from "../llm/redact.js";
import { DEFAULT_INTERACTION_METRICS_CONFIG } from "../metrics/interaction-metrics.js";
import { cascadedVoiceAgent } from "../voice/agents/cascaded.js";
import { parseVoiceAgentSpec, voiceAgentFactory } from "../voice/agents/voice-agent-spec.js";
import { mulawDecode, rms } from "../voice/audio.js";
import {
  DEFAULT_TICK_SECONDS,
  wireBytesPerTick,
  type CallClock,
  type CallerLine,
  type CallerLineTick,
  type VoiceAgent,
} from "../voice/call.js";
import { createCallerLine } from "../voice/effects/caller-line.js";
import { loadCallerNoise } from "../voice/effects/noise.js";
import { explainVoiceCall } from "../voice/explain-call.js";
import { simulateVoiceCall } from "../voice/full-duplex-call.js";
import { gradeVoiceCall } from "../voice/linearize.js";
import { LiveInteractionEvents } from "../voice/live-interaction-events.js";
import type { SpeechModel } from "../voice/speech-models.js";
import { emptyChunk, WIRE_AUDIO_FORMAT, type Tick, type TickChunk } from "../voice/ticks.js";
import {
  llmVoiceCustomer,
  readVoiceGuidelines,
  telephoneLine,
  type VoiceCustomer,
  type VoiceCustomerTick,
} from "../voice/voice-customer.js";
import { loadTasksVoice, voiceSettingsFor, type VoiceSettings } from "../voice/voice-settings.js";
import type { InteractionEventMark } from "../voice/voice-run-views.js";
import { currentRecords, recordChanges, recordsNamedBy } from "./record-changes.js";
import { CASCADED_VOICE_AGENT, type VoiceCascadeOffer } from "./voice-cascade-offer.js";
import {
  SCRIPTED_VOICE_AGENT,
  VOICE_CALL_PATH,
  voiceClientMessageSchema,
  type VoiceServerMessage,
  type VoiceInteractionEvent,
  type VoiceStart,
  type VoiceToolCallView,
} from "./voice-call-protocol.js";
import {
  espeakNgAvailable,
  scriptedCustomerSpeech,
  scriptedCustomerVoice,
  ScriptedTurns,
  scriptedVoiceAgent,
  scriptedVoiceCustomerModel,
  type ScriptedCustomerVoice,
} from "./voice-demo.js";

// The playground's voice mode: a full-duplex call run on the server (`simulateVoiceCall`, the library's
// call loop) and streamed to the browser tick by tick over a WebSocket, with the simulated voice
// customer or the person at the browser as the caller (their microphone's 8 kHz μ-law, one tick per
// message, fed into the same loop). Every call is graded as a voice run grades it.

/** Domains the voice playground offers (those whose scripted customer needs no phone of its own). */
const VOICE_DOMAINS = ["airline", "retail"] as const;

/** A real simulated customer: the model that writes its words and the voice that speaks them. */
export interface VoiceCustomerModels {
  llm: LanguageModel;
  speech: SpeechModel;
}

export interface VoicePlaygroundDeps {
  domains: ReadonlyMap<string, AnyDomain>;
  dataDir: string;
  loadDomainData: (domain: AnyDomain, dataDir: string) => DomainData;
  env: Readonly<Record<string, string | undefined>>;
  /** Voice agent specs offered besides the scripted demo (e.g. `openai:gpt-realtime`, when its key is set). */
  agents?: readonly string[];
  /** The cascaded agent (`voiceCascadeOffer`): offered with its parts, or as unavailable with the reason. */
  cascade?: VoiceCascadeOffer;
  /** How calls with a model agent are paced: `realtime` (default; real providers) or `virtual` (mocks). */
  clock?: CallClock;
  /** The simulated customer's models; absent: the scripted customer (espeak-ng, else the test speech codec). */
  customer?: VoiceCustomerModels;
  /** Whether the scripted customer speaks espeak-ng; default: whether the `espeak-ng` program runs here. */
  espeak?: boolean;
  judge?: Judge;
  /** Host names answered besides localhost and IP literals (as the HTTP server's `allowedHosts`). */
  allowedHosts?: readonly string[];
  /** Calls at once; more are refused. Default 4. */
  maxActive?: number;
  /** Longest call in call time (s); default 600. */
  maxCallSeconds?: number;
  /** Values never sent to the browser (API keys). */
  secrets?: readonly string[];
  log?: (line: string) => void;
}

/** Serves `/api/voice/call` on `server` (WebSocket upgrades); `close` ends every call. */
export function attachVoicePlayground(server: Server, deps: VoicePlaygroundDeps): { close(): void } {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const hosts = new Set(["localhost", ...(deps.allowedHosts ?? [])].map((h) => h.toLowerCase()));
  let active = 0;
  const demoVoice = (deps.espeak !== undefined ? Promise.resolve(deps.espeak) : espeakNgAvailable()).then(
    scriptedCustomerVoice,
  );
  const onUpgrade = (request: IncomingMessage, socket: Socket, head: Buffer) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    if (url.pathname !== VOICE_CALL_PATH) return;
    if (!sameOrigin(request, hosts)) {
      socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n");
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => {
      new VoiceSession(
        ws,
        deps,
        demoVoice,
        () => active,
        (delta) => (active += delta),
      );
    });
  };
  server.on("upgrade", onUpgrade);
  return {
    close: () => {
      server.off("upgrade", onUpgrade);
      for (const client of sockets.clients) client.terminate();
      sockets.close();
    },
  };
}

/** A page of this server (its Host one this server answers for, its Origin the same host) — no other site. */
function sameOrigin(request: IncomingMessage, hosts: ReadonlySet<string>): boolean {
  const host = request.headers.host;
  if (!host || !URL.canParse(`http://${host}`)) return false;
  const name = new URL(`http://${host}`).hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (!hosts.has(name) && isIP(name) === 0) return false;
  const origin = request.headers.origin;
  return origin !== undefined && URL.canParse(origin) && new URL(origin).host === host;
}

/** One socket: `ready`, then one call. */
class VoiceSession {
  private caller: BrowserCaller | undefined;
  private readonly abort = new AbortController();
  private started = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly deps: VoicePlaygroundDeps,
    private readonly demoVoice: Promise<ScriptedCustomerVoice>,
    active: () => number,
    private readonly count: (delta: number) => void,
  ) {
    ws.on("message", (data, binary) => this.receive(data, binary, active));
    ws.on("close", () => {
      this.abort.abort();
      this.caller?.hangup();
    });
    ws.on("error", () => undefined);
    void demoVoice.then((voice) => this.ready(voice));
  }

  private ready(voice: ScriptedCustomerVoice): void {
    const { deps } = this;
    this.send({
      type: "ready",
      agents: [
        {
          spec: SCRIPTED_VOICE_AGENT,
          label: "Scripted demo agent (mock realtime, gold actions)",
          scripted: true,
        },
        ...(deps.agents ?? []).map((spec) => ({ spec, label: spec, scripted: false })),
        ...(deps.cascade
          ? [
              {
                spec: CASCADED_VOICE_AGENT,
                label: deps.cascade.label,
                scripted: false,
                ...(deps.cascade.available ? {} : { unavailable: deps.cascade.reason }),
              },
            ]
          : []),
      ],
      scriptedCustomer: deps.customer === undefined,
      scriptedCustomerNote: voice.note,
      tasks: this.tasks(),
    });
  }

  private tasks(): { domain: string; id: string; title: string }[] {
    return VOICE_DOMAINS.flatMap((name) => {
      const data = this.data(name);
      if (!data) return [];
      return data.tasks.slice(0, 50).map((task) => ({ domain: name, id: task.id, title: taskTitle(task) }));
    });
  }

  private data(name: string): DomainData | undefined {
    const domain = this.deps.domains.get(name);
    if (!domain) return undefined;
    try {
      return this.deps.loadDomainData(domain, this.deps.dataDir);
    } catch {
      return undefined;
    }
  }

  private send(message: VoiceServerMessage): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    const text = JSON.stringify(message);
    this.ws.send(this.deps.secrets?.length ? redactSecrets(text, this.deps.secrets) : text);
  }

  private fail(message: string): void {
    this.send({ type: "error", message });
    this.ws.close(1000);
  }

  private receive(data: RawData, binary: boolean, active: () => number): void {
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    if (binary) {
      if (!this.caller) return this.fail("audio came before a call with you as the caller");
      if (bytes.length !== this.caller.bytesPerTick)
        return this.fail(
          `a tick of audio is ${this.caller.bytesPerTick} bytes of μ-law, not ${bytes.length}`,
        );
      this.caller.push(new Uint8Array(bytes));
      return;
    }
    let parsed;
    try {
      parsed = voiceClientMessageSchema.safeParse(JSON.parse(bytes.toString("utf8")));
    } catch {
      return this.fail("a message that is not JSON");
    }
    if (!parsed.success) return this.fail(`not a voice call message: ${parsed.error.issues[0]?.message}`);
    const message = parsed.data;
    if (message.type === "hangup") {
      this.caller?.hangup();
      return;
    }
    if (this.started) return this.fail("one call per connection");
    if (active() >= (this.deps.maxActive ?? 4))
      return this.fail("too many voice calls are running on this server; try again in a minute");
    this.started = true;
    this.count(1);
    this.call(message)
      .catch((error: unknown) => {
        if (this.abort.signal.aborted) return;
        this.deps.log?.(
          `voice call failed: ${error instanceof Error ? (error.stack ?? error.message) : error}`,
        );
        this.fail(error instanceof Error ? error.message : String(error));
      })
      .finally(() => this.count(-1));
  }

  private async call(start: VoiceStart): Promise<void> {
    const { deps } = this;
    if (!(VOICE_DOMAINS as readonly string[]).includes(start.domain))
      return this.fail(`the voice playground has no domain "${start.domain}"`);
    const data = this.data(start.domain);
    const task = data?.tasks.find((t) => t.id === start.taskId);
    if (!data || !task) return this.fail(`no task "${start.taskId}" in ${start.domain}`);
    const scriptedAgent = start.agent === SCRIPTED_VOICE_AGENT;
    const cascade = start.agent === CASCADED_VOICE_AGENT ? deps.cascade : undefined;
    if (cascade && !cascade.available)
      return this.fail(`the cascaded agent is not available here: ${cascade.reason}`);
    if (!scriptedAgent && !cascade && !(deps.agents ?? []).includes(start.agent))
      return this.fail(`the voice agent "${start.agent}" is not offered here`);
    const person = start.customer === "me";
    const tickSeconds = DEFAULT_TICK_SECONDS;
    const settings = voiceSettingsFor(loadTasksVoice(deps.dataDir, start.domain), task.id, start.complexity);
    const seed = 300;
    const noise = loadCallerNoise(deps.dataDir, settings, { onMissing: "substitute" });
    const line = createCallerLine(settings, noise, seed);
    const demoVoice = await this.demoVoice;
    // The scripted customer's turns, for a mock agent that cannot recognise espeak-ng's speech.
    const turns = new ScriptedTurns();
    const espeakDemo = !person && deps.customer === undefined && demoVoice.espeak;
    const agent: VoiceAgent = scriptedAgent
      ? await scriptedVoiceAgent(
          task,
          person ? { kind: "person" } : espeakDemo ? { kind: "script", turns } : { kind: "codec" },
          demoVoice.espeak,
        )
      : cascade?.available
        ? cascadedVoiceAgent(cascade.parts)
        : voiceAgentFactory(parseVoiceAgentSpec(start.agent), { env: deps.env }).make();
    let customer: VoiceCustomer;
    let customerName: string;
    if (person) {
      this.caller = new BrowserCaller(
        wireBytesPerTick(tickSeconds),
        start.complexity === "regular" ? line : null,
      );
      customer = this.caller;
      customerName = "you (microphone)";
    } else {
      const models = deps.customer ?? {
        llm: scriptedVoiceCustomerModel(task),
        speech: scriptedCustomerSpeech(demoVoice, turns),
      };
      customer = llmVoiceCustomer({
        model: models.llm,
        speech: models.speech,
        guidelines: readVoiceGuidelines(deps.dataDir),
        line,
        speechEffects: settings.speech_effects_config,
        interrupts: settings.persona_config?.interrupt_tendency === "interrupts",
        llmBackchannel: settings.use_llm_backchannel,
      });
      customerName = deps.customer
        ? `${models.llm.spec} speaking with ${models.speech.spec}`
        : demoVoice.name;
    }
    const interaction = new LiveInteractionEvents({
      ...DEFAULT_INTERACTION_METRICS_CONFIG,
      tick_duration_sec: tickSeconds,
    });
    // Each side's wire audio of the tick being recorded, for streaming it as the tick ends.
    let agentWire: Uint8Array | undefined;
    let callerWire: Uint8Array | undefined;
    const heardAgent: VoiceAgent = {
      name: agent.name,
      ...(agent.model !== undefined ? { model: agent.model } : {}),
      start: (setup) => agent.start(setup),
      stop: () => agent.stop(),
      tick: async (input) => {
        const output = await agent.tick(input);
        agentWire = output.audio;
        return output;
      },
    };
    const world = data.newWorld({ task });
    // The agent's world as the browser last saw it (after the task's initial state, then each tick).
    let seenAgentDb: unknown;
    const heardCustomer: VoiceCustomer = {
      name: customer.name,
      start: (setup) => {
        seenAgentDb = world.agentDb;
        return customer.start(setup);
      },
      stop: async () => customer.stop?.(),
      tick: async (input) => {
        const out = await customer.tick(input);
        callerWire = out.wire;
        return out;
      },
    };
    this.send({
      type: "started",
      tickSeconds,
      bytesPerTick: wireBytesPerTick(tickSeconds),
      agent: scriptedAgent
        ? "scripted demo agent (mock realtime, gold actions)"
        : cascade
          ? cascade.label
          : start.agent,
      customer: customerName,
      scriptedDemo: scriptedAgent || (!person && deps.customer === undefined),
      line:
        person && start.complexity === "control"
          ? ["your microphone as it is (μ-law, 8 kHz)"]
          : lineConditions(settings, noise.substitutions.length > 0),
    });
    const result = await simulateVoiceCall({
      task,
      world,
      agent: heardAgent,
      customer: heardCustomer,
      policy: data.policyFor(task),
      agentTools: toolSpecs(world.offeredTools("agent")) as LlmToolSpec[],
      userTools: toolSpecs(world.offeredTools("user")) as LlmToolSpec[],
      tickSeconds,
      // Mocks answer on a virtual clock (the browser paces playback); real providers need real time,
      // and a person's microphone paces the call itself.
      clock: scriptedAgent || person ? "virtual" : (deps.clock ?? "realtime"),
      maxCallSeconds: deps.maxCallSeconds ?? 600,
      seed,
      signal: this.abort.signal,
      onTick: (tick) => {
        const silent = new Uint8Array(wireBytesPerTick(tickSeconds)).fill(0xff);
        // What this tick's tool calls did to the agent's world (its records, field by field).
        const db = world.agentDb;
        const changes =
          seenAgentDb !== undefined && db !== seenAgentDb
            ? (world.domain.agent.diff?.(seenAgentDb, db) ?? diffDb(seenAgentDb, db))
            : {};
        this.sendTick(tick, callerWire ?? silent, tick.tick_id === 0 ? silent : (agentWire ?? silent), {
          records: (call) => recordsNamedBy(db, call.arguments),
          changes: recordChanges(seenAgentDb, changes),
          current: currentRecords(changes),
          events: interaction.add(tick).map(eventView),
        });
        seenAgentDb = db;
      },
    }).catch((error: unknown) => {
      if (this.abort.signal.aborted) return undefined;
      throw error;
    });
    if (!result) return;
    const { ticks } = result.simulation;
    const graded = result.simulation.termination_reason !== "infrastructure_error";
    const rewardInfo = graded
      ? await gradeVoiceCall(task, result.simulation, { newWorld: (o) => data.newWorld(o) }, deps.judge)
      : null;
    const explanation = rewardInfo
      ? explainVoiceCall(
          task,
          {
            agentCalls: ticks.flatMap((tick) => tick.agent_tool_calls),
            callerWords: ticks.map((tick) => tick.user_chunk?.content ?? "").join(""),
          },
          rewardInfo,
          result.simulation.termination_reason,
        )
      : undefined;
    const error = result.simulation.info.error;
    this.send({
      type: "ended",
      termination: result.simulation.termination_reason,
      reward: rewardInfo?.reward ?? null,
      explanation: explanation ?? null,
      error: typeof error === "string" ? error : null,
      ticks: ticks.length,
      events: interaction.marks().map(eventView),
    });
    this.ws.close(1000);
  }

  private sendTick(
    tick: Tick,
    user: Uint8Array,
    agent: Uint8Array,
    world: {
      records: (call: ToolCall) => WorldRecord[];
      changes: RecordChange[];
      current: WorldRecord[];
      events: VoiceInteractionEvent[];
    },
  ): void {
    this.send({
      type: "tick",
      tick: tick.tick_id,
      user: Buffer.from(user).toString("base64"),
      agent: Buffer.from(agent).toString("base64"),
      userText: tick.user_chunk?.content ?? "",
      agentText: tick.tick_id === 0 ? "" : (tick.agent_chunk?.content ?? ""),
      userSpeech: tick.user_chunk?.contains_speech ?? false,
      agentSpeech: tick.agent_chunk?.contains_speech ?? false,
      agentToolCalls: toolViews(tick.agent_tool_calls, tick.agent_tool_results, world.records),
      userToolCalls: toolViews(tick.user_tool_calls, tick.user_tool_results, () => []),
      effects: tickEffects(tick.user_chunk),
      worldChanges: world.changes,
      worldCurrent: world.current,
      events: world.events,
    });
  }
}

/** An interaction-metric event as the browser's timeline marks it. */
function eventView(mark: InteractionEventMark): VoiceInteractionEvent {
  return {
    time: mark.time,
    category: mark.category,
    label: mark.label,
    error: mark.error,
    warning: mark.warning,
  };
}

function toolViews(
  calls: readonly ToolCall[],
  results: readonly ToolMessage[],
  records: (call: ToolCall) => WorldRecord[],
): VoiceToolCallView[] {
  return calls.map((call) => {
    const result = results.find((r) => r.id === call.id);
    return {
      id: call.id,
      name: call.name,
      arguments: call.arguments,
      result: result?.content ?? "",
      error: result?.error ?? false,
      records: records(call),
    };
  });
}

/** The effects one tick of the caller's audio went through, named. */
function tickEffects(chunk: TickChunk | null): string[] {
  if (!chunk) return [];
  const named: string[] = [];
  if (chunk.speech_effects?.dynamic_muffling_enabled) named.push("muffled");
  if (chunk.source_effects?.burst_noise_file) named.push(`burst: ${chunk.source_effects.burst_noise_file}`);
  if (chunk.channel_effects?.frame_drops_enabled)
    named.push(`frames lost: ${chunk.channel_effects.frame_drop_ms} ms`);
  return named;
}

/** The line's standing conditions, in words. */
function lineConditions(settings: VoiceSettings, substituted: boolean): string[] {
  const source = settings.source_effects_config;
  const out: string[] = [];
  if (source.enable_background_noise && settings.background_noise_file)
    out.push(
      `background: ${settings.background_noise_file}${substituted ? " (substituted: not on disk)" : ""}, SNR ${source.noise_snr_db} dB`,
    );
  if (source.enable_burst_noise) out.push(`bursts: ${source.burst_noise_events_per_minute}/min`);
  if (settings.telephony_enabled) out.push("telephone band 300–3400 Hz, μ-law");
  if (settings.channel_effects_config.enable_frame_drops) out.push("frame drops");
  if (out.length === 0) out.push("clean line (μ-law, 8 kHz)");
  return out;
}

function taskTitle(task: Task): string {
  const instructions = task.user_scenario.instructions;
  const text = typeof instructions === "string" ? instructions : instructions.reason_for_call;
  const first = text.split(/(?<=[.!?])\s/)[0]!.trim();
  return first.length > 90 ? `${first.slice(0, 87)}…` : first;
}

/** Level (PCM16 RMS of a tick) above which the person's microphone counts as speech. */
const SPEECH_RMS = 300;

/**
 * The person at the browser as the caller: each tick waits for one tick of their microphone's μ-law
 * (the browser sends one per tick as it captures). On a clean line (`line` null) the agent hears those
 * very bytes; otherwise they go through the caller's line (noise, bursts, band, drops) like a simulated
 * caller's voice. `hangup` ends the call at the next tick (graded like any other).
 */
class BrowserCaller implements VoiceCustomer {
  readonly name = "browser_caller";
  private readonly frames: Uint8Array[] = [];
  private waiting: (() => void) | undefined;
  private hungUp = false;
  private speaking = false;
  private utterances = 0;

  constructor(
    readonly bytesPerTick: number,
    private readonly line: CallerLine | null,
  ) {}

  push(frame: Uint8Array): void {
    // More than a few seconds queued means the call cannot keep up: the oldest audio goes.
    if (this.frames.length > 50) this.frames.shift();
    this.frames.push(frame);
    this.waiting?.();
  }

  hangup(): void {
    this.hungUp = true;
    this.waiting?.();
  }

  async start(): Promise<void> {}

  async tick(): Promise<VoiceCustomerTick> {
    while (this.frames.length === 0 && !this.hungUp)
      await new Promise<void>((resolve) => (this.waiting = resolve));
    this.waiting = undefined;
    const frame = this.frames.shift() ?? new Uint8Array(this.bytesPerTick).fill(0xff);
    const pcm = mulawDecode(frame);
    const speaking = rms(pcm) >= SPEECH_RMS;
    const utteranceStart = speaking && !this.speaking;
    if (utteranceStart) this.utterances++;
    this.speaking = speaking;
    const out: CallerLineTick = this.line
      ? this.line.tick(pcm, { speaking, utteranceStart })
      : { ...telephoneLine().tick(pcm, { speaking, utteranceStart }), wire: frame };
    const chunk: TickChunk = {
      ...emptyChunk("user", new Date().toISOString()),
      content: null,
      is_audio: true,
      audio_format: { ...WIRE_AUDIO_FORMAT },
      contains_speech: speaking,
      utterance_ids: speaking ? [`browser-caller-${this.utterances}`] : null,
      speech_effects: out.speechEffects,
      source_effects: out.sourceEffects,
      channel_effects: out.channelEffects,
    };
    return { chunk, wire: out.wire, toolCalls: [], stop: this.hungUp && this.frames.length === 0 };
  }
}
