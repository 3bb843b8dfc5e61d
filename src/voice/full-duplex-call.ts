import { voiceSessionCost, type VoicePricing, type VoiceSessionCost } from "./voice-cost.js";
import { randomUUID } from "node:crypto";
import { DEFAULT_FIRST_AGENT_MESSAGE } from "../core/agent.js";
import { ConfigError, SimulationAbortedError } from "../core/errors.js";
import { InfrastructureError, type LlmToolSpec } from "../core/llm.js";
import type { ToolCall, ToolMessage } from "../core/message.js";
import type { TerminationReason } from "../core/simulation.js";
import type { Task } from "../core/task.js";
import { applyInitialState } from "../env/set-state.js";
import type { World } from "../env/world.js";
import { executeToolCall } from "../orchestrator/tool-call.js";
import { SimulationTimeoutError, UserSimulatorError } from "../orchestrator/errors.js";
import {
  DEFAULT_TICK_SECONDS,
  silentTick,
  wireBytesPerTick,
  type CallClock,
  type HeardSpeech,
  type VoiceAgent,
  type VoiceAgentTickOutput,
  type VoiceUsageRecord,
} from "./call.js";
import { conversationMessages } from "./linearize.js";
import {
  emptyChunk,
  WIRE_AUDIO_FORMAT,
  type FullDuplexSimulationRun,
  type Tick,
  type TickChunk,
} from "./ticks.js";
import { fillUserTranscripts } from "./user-transcript.js";
import type { VoiceCustomer } from "./voice-customer.js";

/** The reference's default longest call: 1200 s of call time. */
export const DEFAULT_MAX_CALL_SECONDS = 1200;

/** The agent's tool whose call ends the call (the reference's audio-native agents stop on it). */
export const AGENT_STOP_TOOL = "transfer_to_human_agents";

const AGENT_STOP_TOKEN = "###STOP###";

export interface VoiceCallSetup {
  task: Task;
  /** A fresh world of the task's domain (e.g. from `conversationSetup`); the call applies the task's initial state. */
  world: World;
  agent: VoiceAgent;
  customer: VoiceCustomer;
  policy: string;
  agentTools: readonly LlmToolSpec[];
  userTools: readonly LlmToolSpec[];
  /** Seconds per tick; default 0.2. */
  tickSeconds?: number;
  /** `virtual` (default): no waiting; `realtime`: each tick lasts `tickSeconds` of wall-clock time. */
  clock?: CallClock;
  /** Longest call, in call time (seconds): past it the call ends as `max_steps`. Default 1200. */
  maxCallSeconds?: number;
  /** Tool errors before the call is stopped (`too_many_errors`); default 10. */
  maxErrors?: number;
  /** Wall-clock limit (ms): past it the call ends as an infrastructure error (a stuck provider). */
  maxDurationMs?: number;
  seed?: number;
  trial?: number;
  simulationId?: string;
  /** Clock of the timestamps (injectable for deterministic tests). */
  now?: () => Date;
  signal?: AbortSignal;
  /** Called after each tick with its record. */
  onTick?: (tick: Tick) => void;
  /** How the agent's metered usage is priced (the price table and `--prices`); default the table. */
  pricing?: VoicePricing;
}

/** A finished call: its record in the reference's format, and each side's wire audio, tick by tick. */
export interface VoiceCallResult {
  simulation: FullDuplexSimulationRun;
  audio: {
    /** What the agent heard in each tick: the caller's audio after the line (μ-law, 8 kHz). */
    user: Uint8Array[];
    /** What the agent said in each tick (μ-law, 8 kHz). */
    agent: Uint8Array[];
  };
  /** Provider usage the agent metered during the call. */
  agentUsage: VoiceUsageRecord[];
}

/**
 * Run one full-duplex voice call. Tick 0 holds the agent's greeting (text, no audio) and the customer's
 * first chunk; from then on, in each tick the customer hears the agent's chunk of the previous tick and
 * gets its pending tool results, then the agent hears the customer's previous chunk (the audio after the
 * line) with its own pending tool results; tool calls run inside the tick and their results reach the
 * caller at the next one. The call ends when the customer says a stop token, the agent transfers the
 * call, the call reaches `maxCallSeconds`, tool errors reach `maxErrors`, or a participant fails.
 */
export async function simulateVoiceCall(setup: VoiceCallSetup): Promise<VoiceCallResult> {
  const { task, world, agent, customer } = setup;
  const tickSeconds = setup.tickSeconds ?? DEFAULT_TICK_SECONDS;
  if (!(tickSeconds > 0)) throw new ConfigError(`the tick length must be positive (got ${tickSeconds})`);
  if ((task.initial_state?.message_history?.length ?? 0) > 0)
    throw new ConfigError(
      `task "${task.id}" starts from a message history, which a full-duplex voice call cannot replay (as in the reference)`,
    );
  const clock = setup.clock ?? "virtual";
  const now = setup.now ?? (() => new Date());
  const maxTicks = Math.trunc((setup.maxCallSeconds ?? DEFAULT_MAX_CALL_SECONDS) / tickSeconds);
  const maxErrors = setup.maxErrors ?? 10;
  const seed = setup.seed ?? 0;
  const trial = setup.trial ?? 0;
  const simulationId = setup.simulationId ?? randomUUID();
  const bytesPerTick = wireBytesPerTick(tickSeconds);

  const deadline = new AbortController();
  const timer =
    setup.maxDurationMs !== undefined
      ? setTimeout(
          () => deadline.abort(new SimulationTimeoutError(setup.maxDurationMs!)),
          setup.maxDurationMs,
        )
      : undefined;
  const signal = setup.signal ? AbortSignal.any([setup.signal, deadline.signal]) : deadline.signal;
  const checkAbort = () => {
    if (setup.signal?.aborted) throw new SimulationAbortedError();
    if (deadline.signal.aborted) throw deadline.signal.reason;
  };

  const started = now();
  const startedPerf = performance.now();
  const ticks: Tick[] = [];
  const userAudio: Uint8Array[] = [];
  const agentAudio: Uint8Array[] = [];
  const agentUsage: VoiceUsageRecord[] = [];
  const heard: HeardSpeech[] = [];
  let termination: TerminationReason | undefined;
  let failure: unknown;
  let fault: "user_simulator" | undefined;
  let errors = 0;
  let agentStarted = false;
  let customerStarted = false;

  const runTools = async (calls: readonly ToolCall[], requestor: "user" | "assistant") => {
    const results: ToolMessage[] = [];
    for (const call of calls) {
      const routed = { ...call, requestor };
      const answer = executeToolCall(world, routed);
      const result = answer instanceof Promise ? await answer : answer;
      if (result.error) errors++;
      results.push({
        id: call.id,
        role: "tool",
        content: result.content,
        requestor,
        error: result.error,
        timestamp: now().toISOString(),
      });
    }
    return results;
  };

  /** A participant failed: the set-up's fault is rethrown; a provider's is nobody's score. */
  const classify = (error: unknown, who: "agent" | "customer") => {
    if (error instanceof SimulationAbortedError || setup.signal?.aborted) throw new SimulationAbortedError();
    if (deadline.signal.aborted) throw deadline.signal.reason;
    if (ConfigError.isInstance(error)) throw error;
    failure = error;
    if (InfrastructureError.isInstance(error)) termination = "infrastructure_error";
    else if (who === "customer") {
      // The simulated customer's own failure is never the agent's.
      termination = "infrastructure_error";
      fault = "user_simulator";
      failure = new UserSimulatorError(error);
    } else termination = "agent_error";
  };

  let utterances = 0;
  let agentSpeaking = false;
  const agentChunk = (output: VoiceAgentTickOutput, timestamp: string): TickChunk => {
    const speaking = output.containsSpeech || output.text !== "";
    if (speaking && !agentSpeaking) utterances++;
    agentSpeaking = speaking;
    const stops = output.toolCalls.some((call) => call.name === AGENT_STOP_TOOL);
    const text = output.text === "" ? null : output.text;
    return {
      ...emptyChunk("assistant", timestamp),
      content: stops ? (text === null ? AGENT_STOP_TOKEN : `${text} ${AGENT_STOP_TOKEN}`) : text,
      audio_format: { ...WIRE_AUDIO_FORMAT },
      contains_speech: output.containsSpeech,
      // One utterance: the agent's ticks of speech in a row.
      utterance_ids: speaking ? [`${simulationId}-agent-${utterances}`] : null,
    };
  };

  try {
    checkAbort();
    await agent.start({
      view: {
        policy: setup.policy,
        tools: setup.agentTools,
        solo: false,
        seed,
        history: [],
        signal,
      },
      tickSeconds,
      clock,
    });
    agentStarted = true;
    applyInitialState(world, task.initial_state);
    await customer.start({
      task,
      scenario: task.user_scenario,
      tools: setup.userTools,
      seed,
      tickSeconds,
      signal,
    });
    customerStarted = true;
    world.sync();

    // Tick 0: the agent's greeting is text on a silent line; the customer hears silence.
    const opening = now().toISOString();
    const greeting: TickChunk = {
      ...emptyChunk("assistant", opening),
      content: DEFAULT_FIRST_AGENT_MESSAGE,
      audio_format: { ...WIRE_AUDIO_FORMAT },
      chunk_id: 0,
      cost: 0,
    };
    let lastAgent: { text: string; containsSpeech: boolean } = { text: "", containsSpeech: false };
    let first;
    try {
      first = await customer.tick({ agent: lastAgent, toolResults: [] });
    } catch (error) {
      classify(error, "customer");
    }
    let pendingUser: ToolMessage[] = [];
    let pendingAgent: ToolMessage[] = [];
    let lastUserWire = silentTick(tickSeconds);
    if (first) {
      const userResults = await runTools(first.toolCalls, "user");
      ticks.push({
        tick_id: 0,
        timestamp: opening,
        agent_chunk: greeting,
        user_chunk: first.chunk,
        agent_tool_calls: [],
        user_tool_calls: first.toolCalls.map((call) => ({ ...call, requestor: "user" })),
        agent_tool_results: [],
        user_tool_results: userResults,
        user_transcript: null,
        tick_duration_seconds: tickSeconds,
        wall_clock_duration_seconds: (performance.now() - startedPerf) / 1000,
      });
      setup.onTick?.(ticks[0]!);
      userAudio.push(first.wire);
      agentAudio.push(silentTick(tickSeconds));
      lastUserWire = first.wire;
      pendingUser = userResults;
      lastAgent = { text: DEFAULT_FIRST_AGENT_MESSAGE, containsSpeech: false };
      if (first.stop) termination = "user_stop";
      world.sync();
    }

    let steps = 0;
    while (termination === undefined) {
      checkAbort();
      const tickStart = performance.now();
      const tickId = ticks.length;
      const timestamp = now().toISOString();
      // 1. The customer hears the agent's previous chunk.
      let userTick;
      try {
        userTick = await customer.tick({ agent: lastAgent, toolResults: pendingUser });
      } catch (error) {
        classify(error, "customer");
        break;
      }
      if (userTick.wire.length !== bytesPerTick)
        throw new Error(
          `the customer's line gave ${userTick.wire.length} bytes for a tick of ${bytesPerTick}`,
        );
      const userResults = await runTools(userTick.toolCalls, "user");
      if (userTick.stop) termination = "user_stop";
      // 2. The agent hears the customer's previous chunk, with its pending tool results.
      let output: VoiceAgentTickOutput;
      try {
        output = await agent.tick({ audio: lastUserWire, toolResults: pendingAgent });
      } catch (error) {
        classify(error, "agent");
        break;
      }
      if (output.audio.length !== bytesPerTick) {
        classify(
          new Error(`the agent gave ${output.audio.length} bytes of audio for a tick of ${bytesPerTick}`),
          "agent",
        );
        break;
      }
      agentUsage.push(...(output.usage ?? []));
      heard.push(...(output.heard ?? []));
      const chunk = agentChunk(output, timestamp);
      const agentResults = await runTools(output.toolCalls, "assistant");
      // The agent's stop stands over the customer's in the same tick, as in the reference.
      if (chunk.content?.includes(AGENT_STOP_TOKEN)) termination = "agent_stop";
      const tick: Tick = {
        tick_id: tickId,
        timestamp,
        agent_chunk: chunk,
        user_chunk: userTick.chunk,
        agent_tool_calls: output.toolCalls.map((call) => ({ ...call, requestor: "assistant" })),
        user_tool_calls: userTick.toolCalls.map((call) => ({ ...call, requestor: "user" })),
        agent_tool_results: agentResults,
        user_tool_results: userResults,
        user_transcript: null,
        tick_duration_seconds: tickSeconds,
        wall_clock_duration_seconds: (performance.now() - tickStart) / 1000,
      };
      ticks.push(tick);
      setup.onTick?.(tick);
      userAudio.push(userTick.wire);
      agentAudio.push(output.audio);
      lastUserWire = userTick.wire;
      lastAgent = { text: output.text, containsSpeech: output.containsSpeech };
      pendingUser = userResults;
      pendingAgent = agentResults;
      steps++;
      world.sync();
      if (steps >= maxTicks) termination = "max_steps";
      if (errors >= maxErrors) termination = "too_many_errors";
      if (clock === "realtime" && termination === undefined) {
        const left = tickSeconds * 1000 - (performance.now() - tickStart);
        if (left > 0) await sleep(left, signal);
      }
    }
  } catch (error) {
    if (error instanceof SimulationAbortedError || ConfigError.isInstance(error)) {
      clearTimeout(timer);
      await stopQuietly(agentStarted ? agent : undefined, customerStarted ? customer : undefined);
      throw error;
    }
    if (error instanceof SimulationTimeoutError || InfrastructureError.isInstance(error))
      termination = "infrastructure_error";
    // A failure of the call itself (not a participant's) is still reported.
    else termination = "agent_error";
    failure = error;
  }
  clearTimeout(timer);
  await stopQuietly(agentStarted ? agent : undefined, customerStarted ? customer : undefined);
  // What the agent made of the caller, over the caller's ticks (the reference fills it after the call too).
  fillUserTranscripts(ticks, heard, tickSeconds);

  const message =
    failure instanceof Error ? failure.message : failure !== undefined ? String(failure) : undefined;
  const errorType = failure instanceof Error && failure.name !== "Error" ? failure.name : undefined;
  const agentCost: Omit<VoiceSessionCost, "usage"> & { usage: VoiceSessionCost["usage"] | null } =
    agentUsage.length > 0
      ? voiceSessionCost(agentUsage, setup.pricing)
      : { usage: null, cost: null, unknown: `${agent.name} reported no usage to price` };
  const userCost = customerCost(ticks);
  const simulation: FullDuplexSimulationRun = {
    id: simulationId,
    task_id: task.id,
    timestamp: started.toISOString(),
    start_time: started.toISOString(),
    end_time: now().toISOString(),
    duration: (performance.now() - startedPerf) / 1000,
    termination_reason: termination ?? "agent_error",
    agent_cost: agentCost.cost,
    agent_usage: agentCost.usage,
    user_cost: userCost.cost,
    reward_info: null,
    messages: conversationMessages(ticks),
    ticks,
    trial,
    seed,
    mode: "full_duplex",
    info: {
      ...responsiveness(ticks),
      ...(message !== undefined ? { error: message } : {}),
      ...(errorType ? { error_type: errorType } : {}),
      ...(fault ? { fault } : {}),
      ...(agentCost.unknown !== undefined ? { agent_cost_unknown: agentCost.unknown } : {}),
      ...(userCost.unknown !== undefined ? { user_cost_unknown: userCost.unknown } : {}),
    },
  };
  return { simulation, audio: { user: userAudio, agent: agentAudio }, agentUsage };
}

/**
 * Whether the agent answered the caller (the reference's responsiveness info): the caller's and the
 * agent's turns (runs of speech ticks), and the most caller turns in a row with no agent speech from the
 * turn's start to the next turn's start; three or more is an unresponsive period.
 */
export function responsiveness(ticks: readonly Tick[]): {
  total_user_turns: number;
  total_agent_turns: number;
  max_unresponded_user_turns: number;
  had_unresponsive_period: boolean;
} {
  const runs = (speaks: (tick: Tick) => boolean) => {
    const out: [number, number][] = [];
    ticks.forEach((tick, i) => {
      if (!speaks(tick)) return;
      const last = out.at(-1);
      if (last && i - last[1] <= 1) last[1] = i;
      else out.push([i, i]);
    });
    return out;
  };
  const user = runs((t) => t.user_chunk?.contains_speech ?? false);
  const agent = runs((t) => t.agent_chunk?.contains_speech ?? false);
  let most = 0;
  let current = 0;
  user.forEach(([start], i) => {
    const next = user[i + 1]?.[0] ?? Infinity;
    if (agent.some(([s, e]) => s < next && e >= start)) current = 0;
    else most = Math.max(most, ++current);
  });
  return {
    total_user_turns: user.length,
    total_agent_turns: agent.length,
    max_unresponded_user_turns: most,
    had_unresponsive_period: most >= 3,
  };
}

/**
 * The customer's cost over the call: its model's calls and its speech; null, with the reason, when
 * any of them could not be priced.
 */
function customerCost(ticks: readonly Tick[]): { cost: number | null; unknown?: string } {
  let total = 0;
  const unknown = new Set<string>();
  for (const tick of ticks) {
    const chunk = tick.user_chunk;
    if (!chunk) continue;
    if (chunk.cost === null) {
      if (!chunk.usage) continue;
      const reason = chunk.usage.cost_unknown;
      // Each utterance says all its reasons in one; the call says each reason once.
      const reasons =
        typeof reason === "string"
          ? reason.split("; ")
          : ["the customer's language model is not in the price table (pass --prices FILE)"];
      for (const one of reasons) unknown.add(one);
      continue;
    }
    total += chunk.cost;
  }
  return unknown.size > 0 ? { cost: null, unknown: [...unknown].join("; ") } : { cost: total };
}

async function stopQuietly(
  agent: VoiceAgent | undefined,
  customer: VoiceCustomer | undefined,
): Promise<void> {
  // However the call ended, each side's session is closed; a failure here changes nothing.
  await Promise.allSettled([agent?.stop(), customer?.stop?.()]);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
