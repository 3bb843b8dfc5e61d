import { PasskError } from "../core/errors.js";
import { markPyFloat } from "../python/py-float.js";
import { pandasMean } from "../python/py-mean.js";

// The τ-voice interaction metrics of full-duplex simulations, with the reference's definitions,
// detection windows and arithmetic (tau2-bench's metrics/voice_interaction_metrics.py at the pinned
// commit): speech segments from contiguous speech ticks, then response, yield, selectivity and
// agent-interruption events, then rates and pandas means over all simulations of one experiment.
// Pure: the caller reads the ticks (formats/tau2/voice-results.ts).

/** What the metrics read of a tick's chunk (the reference's user/assistant message in a tick). */
export interface InteractionChunk {
  contains_speech: boolean;
  turn_taking_action?: { action: string } | null;
  speech_effects?: {
    dynamic_muffling_enabled: boolean;
    speech_insert: { text: string; type: string } | null;
  } | null;
  source_effects?: {
    burst_noise_file: string | null;
    speech_insert: { text: string; type: string } | null;
  } | null;
}

export interface InteractionTick {
  agent_chunk: InteractionChunk | null;
  user_chunk: InteractionChunk | null;
}

/** Detection windows (seconds); the defaults are the reference's. */
export interface InteractionMetricsConfig {
  tick_duration_sec: number;
  no_yield_window_sec: number;
  backchannel_yield_window_sec: number;
  vocal_tic_yield_window_sec: number;
  non_directed_yield_window_sec: number;
  vocal_tic_response_window_sec: number;
  non_directed_response_window_sec: number;
}

export const DEFAULT_INTERACTION_METRICS_CONFIG: Readonly<InteractionMetricsConfig> = Object.freeze({
  tick_duration_sec: 0.2,
  no_yield_window_sec: 2.0,
  backchannel_yield_window_sec: 1.0,
  vocal_tic_yield_window_sec: 1.0,
  non_directed_yield_window_sec: 1.0,
  vocal_tic_response_window_sec: 2.0,
  non_directed_response_window_sec: 2.0,
});

/** The version of the reference's metric code these definitions follow. */
export const INTERACTION_METRICS_VERSION = "1.1";

export interface InteractionMetricCounts {
  n_simulations: number;
  response_total: number;
  yield_total: number;
  backchannel_total: number;
  vocal_tic_total: number;
  non_directed_total: number;
  agent_interrupts_count: number;
}

/** The panel: latencies in seconds, rates and selectivity (correct rates) in [0, 1]; null when no event backs one. */
export interface InteractionMetrics {
  response_latency_mean: number | null;
  yield_latency_mean: number | null;
  response_rate: number | null;
  yield_rate: number | null;
  agent_interruption_rate: number | null;
  selectivity_backchannel: number | null;
  selectivity_vocal_tic: number | null;
  selectivity_non_directed: number | null;
  counts: InteractionMetricCounts;
}

/** The panel's metrics in the reference's display order (L_R, L_Y, R_R, R_Y, I_A, S_BC, S_VT, S_ND). */
export const INTERACTION_METRIC_FIELDS = [
  "response_latency_mean",
  "yield_latency_mean",
  "response_rate",
  "yield_rate",
  "agent_interruption_rate",
  "selectivity_backchannel",
  "selectivity_vocal_tic",
  "selectivity_non_directed",
] as const;

export class NoVoiceTicksError extends PasskError {
  constructor() {
    super(
      "no_voice_ticks",
      "no simulation has ticks: interaction metrics are defined for full-duplex (voice) runs only, not text runs",
    );
    this.name = "NoVoiceTicksError";
  }
}

type EffectType = "burst_noise" | "vocal_tic" | "non_directed_speech" | "muffling";

interface ActiveEffect {
  type: EffectType;
  text: string | null;
  file: string | null;
}

interface EffectSegment extends ActiveEffect {
  startTick: number;
  /** Exclusive. */
  endTick: number;
}

interface Segment {
  startTick: number;
  /** Exclusive: the first tick without speech. */
  endTick: number;
  startTimeSec: number;
  endTimeSec: number;
  otherSpeakingAtStart: boolean;
  otherSpeakingAtEnd: boolean;
}

interface UserSegment extends Segment {
  isBackchannel: boolean;
  isInterruption: boolean;
  hasVocalTic: boolean;
  hasNonDirected: boolean;
}

const speaking = (chunk: InteractionChunk | null): boolean => chunk !== null && chunk.contains_speech;

function insertEffect(insert: { text: string; type: string }): ActiveEffect {
  return {
    type: insert.type === "vocal_tic" ? "vocal_tic" : "non_directed_speech",
    text: insert.text,
    file: null,
  };
}

/** The effects on in a chunk, in the reference's order: burst, surroundings' insert, muffling, voice insert. */
function activeEffects(chunk: InteractionChunk | null): ActiveEffect[] {
  const active: ActiveEffect[] = [];
  if (chunk === null) return active;
  const source = chunk.source_effects;
  if (source) {
    if (source.burst_noise_file)
      active.push({ type: "burst_noise", text: null, file: source.burst_noise_file });
    if (source.speech_insert) active.push(insertEffect(source.speech_insert));
  }
  const speech = chunk.speech_effects;
  if (speech) {
    if (speech.dynamic_muffling_enabled) active.push({ type: "muffling", text: null, file: null });
    if (speech.speech_insert) active.push(insertEffect(speech.speech_insert));
  }
  return active;
}

const sameEffect = (a: ActiveEffect, b: ActiveEffect) =>
  a.type === b.type && a.text === b.text && a.file === b.file;

/**
 * Carry effect segments over one tick: an effect on in the previous tick and in this one extends its
 * open segment (each previous effect pairs with the first unpaired equal one), any other starts one.
 */
function advanceEffects(
  segments: EffectSegment[],
  previous: readonly ActiveEffect[],
  current: readonly ActiveEffect[],
  tick: number,
): void {
  const paired = current.map(() => false);
  for (const prev of previous) {
    const i = current.findIndex((curr, j) => !paired[j] && sameEffect(prev, curr));
    if (i < 0) continue;
    paired[i] = true;
    for (let k = segments.length - 1; k >= 0; k--) {
      const segment = segments[k]!;
      if (segment.endTick === tick && sameEffect(segment, prev)) {
        segment.endTick = tick + 1;
        break;
      }
    }
  }
  current.forEach((curr, j) => {
    if (!paired[j]) segments.push({ ...curr, startTick: tick, endTick: tick + 1 });
  });
}

/** Effects in the caller's silent ticks (a side remark or cough between turns), as segments. */
function outOfTurnEffects(ticks: readonly InteractionTick[]): EffectSegment[] {
  const segments: EffectSegment[] = [];
  let previous: ActiveEffect[] = [];
  ticks.forEach((tick, i) => {
    if (speaking(tick.user_chunk)) {
      previous = [];
      return;
    }
    const current = activeEffects(tick.user_chunk);
    if (current.length === 0) {
      previous = [];
      return;
    }
    advanceEffects(segments, previous, current, i);
    previous = current;
  });
  return segments;
}

/**
 * The ending `###STOP###` leaves a one-tick caller speech segment on the last tick; it is dropped
 * (else it reads as an interruption the agent did not yield to).
 */
export function dropEndOfConversationTick<T extends InteractionTick>(ticks: readonly T[]): readonly T[] {
  if (ticks.length < 2) return ticks;
  const last = ticks[ticks.length - 1]!;
  const previous = ticks[ticks.length - 2]!;
  return speaking(last.user_chunk) && !speaking(previous.user_chunk) ? ticks.slice(0, -1) : ticks;
}

function segmentsOf(
  ticks: readonly InteractionTick[],
  side: "user" | "agent",
  tickSec: number,
): { segment: Segment; effects: EffectSegment[]; firstChunk: InteractionChunk | null }[] {
  const own = (t: InteractionTick) => (side === "user" ? t.user_chunk : t.agent_chunk);
  const other = (t: InteractionTick) => (side === "user" ? t.agent_chunk : t.user_chunk);
  const found: { segment: Segment; effects: EffectSegment[]; firstChunk: InteractionChunk | null }[] = [];
  let open: { segment: Segment; effects: EffectSegment[]; firstChunk: InteractionChunk | null } | undefined;
  let previous: ActiveEffect[] = [];
  const close = (endTick: number, endTickData: InteractionTick | undefined) => {
    const segment = open!.segment;
    segment.endTick = endTick;
    segment.endTimeSec = segment.startTimeSec + (segment.endTick - segment.startTick) * tickSec;
    segment.otherSpeakingAtEnd = endTickData !== undefined && speaking(other(endTickData));
    found.push(open!);
    open = undefined;
  };
  ticks.forEach((tick, i) => {
    const chunk = own(tick);
    if (speaking(chunk)) {
      const current = activeEffects(chunk);
      if (open === undefined) {
        open = {
          segment: {
            startTick: i,
            endTick: i + 1,
            startTimeSec: i * tickSec,
            endTimeSec: 0,
            otherSpeakingAtStart: speaking(other(tick)),
            otherSpeakingAtEnd: false,
          },
          effects: current.map((effect) => ({ ...effect, startTick: i, endTick: i + 1 })),
          firstChunk: chunk,
        };
      } else {
        open.segment.endTick = i + 1;
        advanceEffects(open.effects, previous, current, i);
      }
      previous = current;
    } else if (open !== undefined) {
      close(i, tick);
      previous = [];
    }
  });
  if (open !== undefined) close(ticks.length, undefined);
  return found;
}

function userSegments(ticks: readonly InteractionTick[], tickSec: number): UserSegment[] {
  return segmentsOf(ticks, "user", tickSec).map(({ segment, effects, firstChunk }) => {
    const isBackchannel = firstChunk?.turn_taking_action?.action === "backchannel";
    return {
      ...segment,
      isBackchannel,
      isInterruption: segment.otherSpeakingAtStart && !isBackchannel,
      hasVocalTic: effects.some((e) => e.type === "vocal_tic"),
      hasNonDirected: effects.some((e) => e.type === "non_directed_speech"),
    };
  });
}

/** Both sides' segments, after dropping the end-of-conversation tick. */
function allSegments(ticks: readonly InteractionTick[], tickSec: number) {
  const kept = dropEndOfConversationTick(ticks);
  return {
    user: userSegments(kept, tickSec),
    agent: segmentsOf(kept, "agent", tickSec).map((s) => s.segment),
  };
}

type Category = "response" | "yield" | "backchannel" | "vocal_tic" | "non_directed";

/** One scored event: its category, whether the agent erred, and the latency of a response or yield. */
export interface InteractionEvent {
  category: Category;
  isError: boolean;
  latencySec: number | null;
  timeSec: number;
}

/** Response events: after each caller turn that ended with the agent silent, did the agent speak first? */
function responseEvents(user: readonly UserSegment[], agent: readonly Segment[]): InteractionEvent[] {
  const valid = user.filter((u) => !u.isBackchannel && !u.otherSpeakingAtEnd);
  const events: InteractionEvent[] = [];
  valid.forEach((turn, i) => {
    const nextAgent = agent.find((a) => a.startTick >= turn.endTick);
    const nextUser = valid.slice(i + 1).find((u) => u.startTick >= turn.endTick);
    if (nextAgent !== undefined && (nextUser === undefined || nextAgent.startTick <= nextUser.startTick)) {
      events.push({
        category: "response",
        isError: false,
        latencySec: nextAgent.startTimeSec - turn.endTimeSec,
        timeSec: turn.endTimeSec,
      });
    } else if (nextUser !== undefined) {
      events.push({ category: "response", isError: true, latencySec: null, timeSec: turn.endTimeSec });
    }
  });
  return events;
}

interface OverlapEvent {
  startTick: number;
  timeSec: number;
  category: Exclude<Category, "response"> | "agent_interrupts_user";
  isError: boolean;
  latencySec: number | null;
}

/** Events where someone starts over the other, and caller tics / side remarks the agent should ignore. */
function overlapEvents(
  user: readonly UserSegment[],
  agent: readonly Segment[],
  ticks: readonly InteractionTick[],
  config: InteractionMetricsConfig,
  outOfTurn: readonly EffectSegment[],
): OverlapEvent[] {
  const tickSec = config.tick_duration_sec;
  const windowTicks = (sec: number) => Math.trunc(sec / tickSec);
  const noYield = windowTicks(config.no_yield_window_sec);
  const yieldWindow = {
    backchannel: windowTicks(config.backchannel_yield_window_sec),
    vocal_tic: windowTicks(config.vocal_tic_yield_window_sec),
    non_directed: windowTicks(config.non_directed_yield_window_sec),
    yield: noYield,
  };
  const responseWindow = {
    vocal_tic: windowTicks(config.vocal_tic_response_window_sec),
    non_directed: windowTicks(config.non_directed_response_window_sec),
  };
  /** The first tick in [start, start + window) where `side` is silent, if any. */
  const stopWithin = (start: number, window: number, side: "agent_chunk" | "user_chunk") => {
    for (let i = start; i < Math.min(start + window, ticks.length); i++) {
      if (!speaking(ticks[i]![side])) return i;
    }
    return undefined;
  };
  const events: OverlapEvent[] = [];

  for (const u of user) {
    if (!u.otherSpeakingAtStart) continue;
    // Priority: backchannel > vocal tic > non-directed speech > a real interruption.
    const category = u.isBackchannel
      ? "backchannel"
      : u.hasVocalTic
        ? "vocal_tic"
        : u.hasNonDirected
          ? "non_directed"
          : "yield";
    const stop = stopWithin(u.startTick, yieldWindow[category], "agent_chunk");
    const yielded = stop !== undefined;
    events.push({
      startTick: u.startTick,
      timeSec: u.startTimeSec,
      category,
      // Yielding is right for a real interruption, wrong for the others.
      isError: category === "yield" ? !yielded : yielded,
      latencySec: category === "yield" && yielded ? (stop ? (stop - u.startTick) * tickSec : 0.0) : null,
    });
  }

  for (const a of agent) {
    if (!a.otherSpeakingAtStart) continue;
    events.push({
      startTick: a.startTick,
      timeSec: a.startTimeSec,
      category: "agent_interrupts_user",
      isError: true,
      latencySec: null,
    });
  }

  // A tic or side remark while the agent was silent: did the agent start talking within the window?
  const silentPeriodEvent = (
    category: "vocal_tic" | "non_directed",
    startTick: number,
    endTick: number,
    startTimeSec: number,
  ) => {
    const reply = agent.find(
      (a) => a.startTick >= startTick && a.startTick <= endTick + responseWindow[category],
    );
    events.push(
      reply !== undefined
        ? {
            startTick: reply.startTick,
            timeSec: reply.startTimeSec,
            category,
            isError: true,
            latencySec: null,
          }
        : { startTick, timeSec: startTimeSec, category, isError: false, latencySec: null },
    );
  };
  for (const u of user) {
    if (u.otherSpeakingAtStart || !(u.hasVocalTic || u.hasNonDirected)) continue;
    silentPeriodEvent(u.hasVocalTic ? "vocal_tic" : "non_directed", u.startTick, u.endTick, u.startTimeSec);
  }

  for (const effect of outOfTurn) {
    if (effect.type !== "vocal_tic" && effect.type !== "non_directed_speech") continue;
    const category = effect.type === "vocal_tic" ? "vocal_tic" : "non_directed";
    const yieldSec =
      category === "vocal_tic" ? config.vocal_tic_yield_window_sec : config.non_directed_yield_window_sec;
    const over = agent.find((a) => a.startTick <= effect.startTick && effect.startTick < a.endTick);
    if (over !== undefined) {
      // The agent was talking: stopping within the yield window is an error; talking on is not scored.
      if ((over.endTick - effect.startTick) * tickSec <= yieldSec) {
        events.push({
          startTick: effect.startTick,
          timeSec: effect.startTick * tickSec,
          category,
          isError: true,
          latencySec: null,
        });
      }
    } else {
      silentPeriodEvent(category, effect.startTick, effect.endTick, effect.startTick * tickSec);
    }
  }

  // Stable, as Python's sort.
  return events.sort((x, y) => x.startTick - y.startTick);
}

/** Every scored event of one simulation, in the reference's order (by time, stable). */
export function simulationInteractionEvents(
  ticks: readonly InteractionTick[],
  config: InteractionMetricsConfig = DEFAULT_INTERACTION_METRICS_CONFIG,
): InteractionEvent[] {
  // The reference drops the end tick here and again while extracting segments: segments come from the
  // twice-filtered ticks, yield windows and out-of-turn effects from the once-filtered ones.
  const filtered = dropEndOfConversationTick(ticks);
  const { user, agent } = allSegments(filtered, config.tick_duration_sec);
  const overlaps = overlapEvents(user, agent, filtered, config, outOfTurnEffects(filtered));
  const events: InteractionEvent[] = [
    ...responseEvents(user, agent),
    ...overlaps
      .filter(
        (e): e is OverlapEvent & { category: Exclude<OverlapEvent["category"], "agent_interrupts_user"> } =>
          e.category !== "agent_interrupts_user",
      )
      .map(({ category, isError, latencySec, timeSec }) => ({ category, isError, latencySec, timeSec })),
  ];
  return events.sort((x, y) => x.timeSec - y.timeSec);
}

/** Agent speech onsets while the caller speaks (segments from once-filtered ticks, as the reference counts them). */
export function agentInterruptionCount(
  ticks: readonly InteractionTick[],
  config: InteractionMetricsConfig = DEFAULT_INTERACTION_METRICS_CONFIG,
): number {
  return allSegments(ticks, config.tick_duration_sec).agent.filter((a) => a.otherSpeakingAtStart).length;
}

/**
 * The interaction-metric panel of one experiment (one domain): events of every simulation that has
 * ticks, pooled; rates from event counts, latencies as pandas means in the reference's event order.
 */
export function computeInteractionMetrics(
  simulations: ReadonlyArray<{ ticks: readonly InteractionTick[] | null }>,
  config: InteractionMetricsConfig = DEFAULT_INTERACTION_METRICS_CONFIG,
): InteractionMetrics {
  const withTicks = simulations.filter(
    (s): s is { ticks: readonly InteractionTick[] } => s.ticks !== null && s.ticks.length > 0,
  );
  if (withTicks.length === 0) throw new NoVoiceTicksError();
  const events = withTicks.flatMap((s) => simulationInteractionEvents(s.ticks, config));
  const agentInterrupts = withTicks.reduce((sum, s) => sum + agentInterruptionCount(s.ticks, config), 0);
  const of = (category: Category) => events.filter((e) => e.category === category);
  const errorRate = (list: InteractionEvent[]) =>
    list.length > 0 ? list.filter((e) => e.isError).length / list.length : null;
  const correctRate = (list: InteractionEvent[]) => {
    const rate = errorRate(list);
    return rate === null ? null : 1.0 - rate;
  };
  const okRate = (list: InteractionEvent[]) =>
    list.length > 0 ? list.filter((e) => !e.isError).length / list.length : null;
  const latencies = (list: InteractionEvent[]) => list.filter((e) => !e.isError).map((e) => e.latencySec);
  const responses = of("response");
  const yields = of("yield");
  const backchannels = of("backchannel");
  const vocalTics = of("vocal_tic");
  const nonDirected = of("non_directed");
  const metrics: InteractionMetrics = {
    response_latency_mean: pandasMean(latencies(responses)),
    yield_latency_mean: pandasMean(latencies(yields)),
    response_rate: okRate(responses),
    yield_rate: okRate(yields),
    agent_interruption_rate: responses.length > 0 ? agentInterrupts / responses.length : null,
    selectivity_backchannel: correctRate(backchannels),
    selectivity_vocal_tic: correctRate(vocalTics),
    selectivity_non_directed: correctRate(nonDirected),
    counts: {
      n_simulations: withTicks.length,
      response_total: responses.length,
      yield_total: yields.length,
      backchannel_total: backchannels.length,
      vocal_tic_total: vocalTics.length,
      non_directed_total: nonDirected.length,
      agent_interrupts_count: agentInterrupts,
    },
  };
  // Floats all, as the reference writes them (`1.0`, not `1`, in JSON written with the float marks kept).
  for (const field of INTERACTION_METRIC_FIELDS) if (metrics[field] !== null) markPyFloat(metrics, field);
  return metrics;
}
