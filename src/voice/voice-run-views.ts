import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { TaskSchema, type Task } from "../core/task.js";
import { parseJsonFile, validateInputFile } from "../core/json-file.js";
import {
  TickChunkSchema,
  TickSchema,
  VoiceResultsMetaSchema,
  VoiceSimulationSchema,
  recordedTickDuration,
} from "../formats/tau2/voice-results.js";
import { bootstrapMeanIntervals } from "../metrics/bootstrap.js";
import { failedChecks } from "../metrics/failed-checks.js";
import {
  computeInteractionMetrics,
  DEFAULT_INTERACTION_METRICS_CONFIG,
  dropEndOfConversationTick,
  simulationInteractionEvents,
  type InteractionEvent,
  type InteractionMetricCounts,
  type InteractionMetrics,
  type InteractionMetricsConfig,
} from "../metrics/interaction-metrics.js";
import { isSuccessful, passHatK } from "../metrics/pass-hat-k.js";
import { wilsonInterval, type Interval } from "../metrics/statistics.js";
import { explainVoiceCall } from "./explain-call.js";

// What a person reading a recorded voice run needs, read from its directory (results.json,
// simulations/<id>.json): per run, pass^k with intervals and the interaction-metric panel with
// intervals; per call, the speech of each side condensed from ticks to segments, the tool calls at the
// tick they were made and answered, and the interaction-metric events where they happened. Pure but for
// reading the run's files.

const ViewChunkSchema = TickChunkSchema.extend({ content: z.string().nullable().default(null) });
const ViewToolCallSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).nullable().default(null),
});
const ViewToolResultSchema = z.looseObject({
  id: z.string(),
  content: z.string().nullable().default(null),
  error: z.boolean().nullable().default(false),
});
export const ViewTickSchema = TickSchema.extend({
  agent_chunk: ViewChunkSchema.nullable().default(null),
  user_chunk: ViewChunkSchema.nullable().default(null),
  agent_tool_calls: z.array(ViewToolCallSchema).nullable().default(null),
  agent_tool_results: z.array(ViewToolResultSchema).nullable().default(null),
  user_tool_calls: z.array(ViewToolCallSchema).nullable().default(null),
  user_tool_results: z.array(ViewToolResultSchema).nullable().default(null),
});
const ViewSimulationSchema = VoiceSimulationSchema.extend({
  ticks: z.array(ViewTickSchema).nullable().default(null),
});
const ViewMetaSchema = VoiceResultsMetaSchema.extend({
  info: VoiceResultsMetaSchema.shape.info.extend({
    num_trials: z.number().int().positive().nullable().optional(),
    agent_info: z.looseObject({ llm: z.string().nullable().optional() }).nullable().optional(),
    audio_native_config: z
      .looseObject({
        provider: z.string().nullable().optional(),
        model: z.string().nullable().optional(),
        tick_duration_seconds: z.number().positive().nullable().optional(),
      })
      .nullable()
      .optional(),
  }),
  tasks: z.array(z.unknown()).nullable().optional(),
});

export type ViewTick = z.infer<typeof ViewTickSchema>;
export type ViewSimulation = z.infer<typeof ViewSimulationSchema>;

/** A voice run as the explorer reads it. */
export interface ExploredVoiceRun {
  folder: string;
  domain: string;
  speechComplexity: string | null;
  /** `provider:model` of the agent under test, as results.json records it. */
  agent: string | null;
  timestamp: string | null;
  numTrials: number | null;
  tickSeconds: number;
  /** The run's tasks that parse as tasks (for explaining failures), by id. */
  tasks: ReadonlyMap<string, Task>;
  simulations: ViewSimulation[];
}

const HINT =
  "a voice run directory holds results.json and simulations/<id>.json (full-duplex simulations with ticks), as `passk run --voice --save-to DIR` writes it";

/** Read a voice run directory for viewing (every simulation with its ticks, in file-name order). */
export function readExploredVoiceRun(folder: string): ExploredVoiceRun {
  const metaFile = path.join(folder, "results.json");
  const meta = validateInputFile(
    ViewMetaSchema,
    parseJsonFile(readFileSync(metaFile, "utf8"), metaFile, HINT),
    metaFile,
    HINT,
  );
  const simulationsDir = path.join(folder, "simulations");
  const names = existsSync(simulationsDir)
    ? readdirSync(simulationsDir)
        .filter((name) => name.endsWith(".json") && !name.startsWith("."))
        .sort()
    : [];
  const simulations = names.map((name) => {
    const file = path.join(simulationsDir, name);
    return validateInputFile(
      ViewSimulationSchema,
      parseJsonFile(readFileSync(file, "utf8"), file, HINT),
      file,
      HINT,
    );
  });
  const tasks = new Map<string, Task>();
  for (const raw of meta.tasks ?? []) {
    const task = TaskSchema.safeParse(raw);
    if (task.success) tasks.set(task.data.id, task.data);
  }
  const audio = meta.info.audio_native_config;
  return {
    folder,
    domain: meta.info.environment_info.domain_name,
    speechComplexity: meta.info.speech_complexity ?? null,
    agent:
      audio?.provider && audio.model
        ? `${audio.provider}:${audio.model}`
        : (meta.info.agent_info?.llm ?? null),
    timestamp: meta.timestamp ?? null,
    numTrials: meta.info.num_trials ?? null,
    tickSeconds: recordedTickDuration(meta) ?? DEFAULT_INTERACTION_METRICS_CONFIG.tick_duration_sec,
    tasks,
    simulations,
  };
}

export interface PassHatKWithIntervals {
  /** Over tasks whose every trial was graded. */
  passHatK: Record<string, number>;
  /** 95% percentile-bootstrap interval over those tasks (seeded: the same every time). */
  intervals: Record<string, Interval>;
  averageReward: number | null;
  /** Tasks with every trial graded / graded simulations. */
  tasks: number;
  graded: number;
}

/** pass^k for k = 1…trials of a run's graded calls, with bootstrap intervals over tasks. */
export function voicePassHatK(
  simulations: readonly ViewSimulation[],
  numTrials: number | null,
): PassHatKWithIntervals {
  const byTask = new Map<string, number[]>();
  for (const s of simulations) {
    const reward = s.reward_info?.reward;
    if (reward === undefined || reward === null) continue;
    byTask.set(s.task_id, [...(byTask.get(s.task_id) ?? []), reward]);
  }
  const rewards = [...byTask.values()].flat();
  const trials = numTrials ?? Math.max(0, ...[...byTask.values()].map((r) => r.length));
  const complete = [...byTask.values()].filter((r) => r.length === trials);
  const rows = complete.map((r) =>
    Array.from({ length: trials }, (_, i) => passHatK(trials, r.filter(isSuccessful).length, i + 1)),
  );
  const passes: Record<string, number> = {};
  const intervals: Record<string, Interval> = {};
  const bands = bootstrapMeanIntervals(rows, { seed: 0 });
  for (let k = 1; k <= trials && rows.length > 0; k++) {
    passes[k] = rows.reduce((sum, row) => sum + row[k - 1]!, 0) / rows.length;
    const band = bands[k - 1];
    if (band) intervals[k] = { low: band.low, high: band.high };
  }
  return {
    passHatK: passes,
    intervals,
    averageReward: rewards.length === 0 ? null : rewards.reduce((a, b) => a + b, 0) / rewards.length,
    tasks: complete.length,
    graded: rewards.length,
  };
}

export type InteractionMetricKey =
  | "response_latency_mean"
  | "yield_latency_mean"
  | "response_rate"
  | "yield_rate"
  | "agent_interruption_rate"
  | "selectivity_backchannel"
  | "selectivity_vocal_tic"
  | "selectivity_non_directed";

/** One metric of the panel with the interval passk can give it and the events behind it. */
export interface InteractionMetricRow {
  key: InteractionMetricKey;
  /** The reference's symbol (L_R, R_R, …) and a short name. */
  symbol: string;
  name: string;
  value: number | null;
  /** 95%: Wilson for rates (events as trials), percentile bootstrap over events for latencies; none for I_A. */
  interval: Interval | null;
  unit: "seconds" | "rate" | "per_turn";
  better: "higher" | "lower";
  /** Events behind the value. */
  events: number;
}

export interface InteractionPanel {
  rows: InteractionMetricRow[];
  counts: InteractionMetricCounts;
}

function rateRow(
  key: InteractionMetricKey,
  symbol: string,
  name: string,
  value: number | null,
  list: readonly InteractionEvent[],
  correct: (e: InteractionEvent) => boolean,
): InteractionMetricRow {
  return {
    key,
    symbol,
    name,
    value,
    interval: list.length > 0 ? wilsonInterval(list.filter(correct).length, list.length) : null,
    unit: "rate",
    better: "higher",
    events: list.length,
  };
}

function latencyRow(
  key: InteractionMetricKey,
  symbol: string,
  name: string,
  value: number | null,
  list: readonly InteractionEvent[],
): InteractionMetricRow {
  const latencies = list.flatMap((e) => (!e.isError && e.latencySec !== null ? [e.latencySec] : []));
  const band = bootstrapMeanIntervals(
    latencies.map((l) => [l]),
    { seed: 0 },
  )[0];
  return {
    key,
    symbol,
    name,
    value,
    interval: band ? { low: band.low, high: band.high } : null,
    unit: "seconds",
    better: "lower",
    events: latencies.length,
  };
}

/**
 * The interaction-metric panel of a run (the reference's values, exactly) with intervals; null when no
 * simulation has ticks.
 */
export function interactionPanel(
  simulations: readonly ViewSimulation[],
  config: InteractionMetricsConfig,
): InteractionPanel | null {
  const withTicks = simulations.filter((s) => s.ticks !== null && s.ticks.length > 0);
  if (withTicks.length === 0) return null;
  const metrics: InteractionMetrics = computeInteractionMetrics(withTicks, config);
  const events = withTicks.flatMap((s) => simulationInteractionEvents(s.ticks!, config));
  const of = (category: InteractionEvent["category"]) => events.filter((e) => e.category === category);
  const ok = (e: InteractionEvent) => !e.isError;
  return {
    rows: [
      latencyRow(
        "response_latency_mean",
        "L_R",
        "response latency",
        metrics.response_latency_mean,
        of("response"),
      ),
      latencyRow("yield_latency_mean", "L_Y", "yield latency", metrics.yield_latency_mean, of("yield")),
      rateRow("response_rate", "R_R", "response rate", metrics.response_rate, of("response"), ok),
      rateRow("yield_rate", "R_Y", "yield rate", metrics.yield_rate, of("yield"), ok),
      {
        key: "agent_interruption_rate",
        symbol: "I_A",
        name: "agent interruptions per caller turn",
        value: metrics.agent_interruption_rate,
        interval: null,
        unit: "per_turn",
        better: "lower",
        events: metrics.counts.agent_interrupts_count,
      },
      rateRow(
        "selectivity_backchannel",
        "S_BC",
        "talks through backchannels",
        metrics.selectivity_backchannel,
        of("backchannel"),
        ok,
      ),
      rateRow(
        "selectivity_vocal_tic",
        "S_VT",
        "ignores vocal tics",
        metrics.selectivity_vocal_tic,
        of("vocal_tic"),
        ok,
      ),
      rateRow(
        "selectivity_non_directed",
        "S_ND",
        "ignores speech not meant for it",
        metrics.selectivity_non_directed,
        of("non_directed"),
        ok,
      ),
    ],
    counts: metrics.counts,
  };
}

/** The detection windows of a run: the reference's, with the tick the run recorded. */
export function runInteractionConfig(run: ExploredVoiceRun): InteractionMetricsConfig {
  return { ...DEFAULT_INTERACTION_METRICS_CONFIG, tick_duration_sec: run.tickSeconds };
}

/** One sentence on why a call scored below 1 (a misheard value, else the failed checks); null when it did not. */
export function explainRecordedCall(run: ExploredVoiceRun, simulation: ViewSimulation): string | null {
  const reward = simulation.reward_info;
  if (!reward || reward.reward >= 1) return null;
  const ticks = simulation.ticks ?? [];
  const termination = simulation.termination_reason ?? "unknown";
  const task = run.tasks.get(simulation.task_id);
  if (task) {
    const agentCalls = ticks.flatMap((t) =>
      (t.agent_tool_calls ?? []).map((c) => ({
        id: c.id,
        name: c.name,
        arguments: c.arguments ?? {},
        requestor: "assistant" as const,
      })),
    );
    const callerWords = ticks.map((t) => t.user_chunk?.content ?? "").join("");
    return explainVoiceCall(task, { agentCalls, callerWords }, reward, termination) ?? null;
  }
  const checks = failedChecks(reward, termination);
  return checks.length > 0 ? checks.map((c) => `${c.kind}: ${c.check}`).join("; ") : null;
}

/** A stretch of one side's speech, from contiguous ticks with speech. */
export interface SpeechSegment {
  side: "customer" | "agent";
  startTick: number;
  /** Exclusive. */
  endTick: number;
  start: number;
  end: number;
  text: string;
  /** Started over the other side (for the caller: not as a backchannel). */
  interruption: boolean;
  backchannel: boolean;
}

export interface ToolCallMark {
  side: "customer" | "agent";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  tick: number;
  time: number;
  resultTick: number | null;
  resultTime: number | null;
  result: string | null;
  error: boolean;
}

export interface InteractionEventMark {
  tick: number;
  time: number;
  category: InteractionEvent["category"] | "agent_interruption";
  label: string;
  error: boolean;
  /** Not an error, but worth a look (a response later than {@link LATE_RESPONSE_SEC}). */
  warning: boolean;
  latencySec: number | null;
}

/**
 * A response this late is marked as late on the timeline. passk's display choice, not a metric of the
 * reference (whose response latency is a mean with no threshold): twice the caller's own 1 s wait.
 */
export const LATE_RESPONSE_SEC = 2.0;

const speaks = (chunk: { contains_speech: boolean } | null) => chunk !== null && chunk.contains_speech;

/** Each side's speech condensed from ticks to segments (the end-of-call `###STOP###` tick dropped, as the metrics do). */
export function speechSegments(ticks: readonly ViewTick[], tickSeconds: number): SpeechSegment[] {
  const kept = dropEndOfConversationTick(ticks);
  const segments: SpeechSegment[] = [];
  for (const side of ["customer", "agent"] as const) {
    const own = (t: ViewTick) => (side === "customer" ? t.user_chunk : t.agent_chunk);
    const other = (t: ViewTick) => (side === "customer" ? t.agent_chunk : t.user_chunk);
    let open: SpeechSegment | undefined;
    kept.forEach((tick, i) => {
      const chunk = own(tick);
      if (speaks(chunk)) {
        if (open === undefined) {
          const backchannel = side === "customer" && chunk?.turn_taking_action?.action === "backchannel";
          open = {
            side,
            startTick: i,
            endTick: i + 1,
            start: i * tickSeconds,
            end: (i + 1) * tickSeconds,
            text: "",
            interruption: speaks(other(tick)) && !backchannel,
            backchannel,
          };
          segments.push(open);
        }
        open.endTick = i + 1;
        open.end = (i + 1) * tickSeconds;
        open.text += chunk?.content ?? "";
      } else open = undefined;
    });
  }
  for (const s of segments) s.text = s.text.replace(/\s+/g, " ").trim();
  return segments.sort((a, b) => a.startTick - b.startTick || (a.side === "customer" ? -1 : 1));
}

/** Every tool call of the call at the tick it was made, with the tick its result came (the same tick, for a quick tool). */
export function toolCallMarks(ticks: readonly ViewTick[], tickSeconds: number): ToolCallMark[] {
  const marks: ToolCallMark[] = [];
  const open = new Map<string, ToolCallMark>();
  ticks.forEach((tick, i) => {
    for (const side of ["agent", "customer"] as const) {
      const calls = (side === "agent" ? tick.agent_tool_calls : tick.user_tool_calls) ?? [];
      for (const call of calls) {
        const mark: ToolCallMark = {
          side,
          id: call.id,
          name: call.name,
          arguments: call.arguments ?? {},
          tick: i,
          time: i * tickSeconds,
          resultTick: null,
          resultTime: null,
          result: null,
          error: false,
        };
        marks.push(mark);
        open.set(`${side}:${call.id}`, mark);
      }
      const results = (side === "agent" ? tick.agent_tool_results : tick.user_tool_results) ?? [];
      for (const result of results) {
        const mark = open.get(`${side}:${result.id}`);
        if (!mark) continue;
        mark.resultTick = i;
        mark.resultTime = i * tickSeconds;
        mark.result = result.content;
        mark.error = result.error === true;
        open.delete(`${side}:${result.id}`);
      }
    }
  });
  return marks;
}

function eventLabel(e: InteractionEvent): { label: string; warning: boolean } {
  const seconds = (s: number | null) => `${(s ?? 0).toFixed(1)} s`;
  switch (e.category) {
    case "response":
      if (e.isError) return { label: "no response: the caller spoke again first", warning: false };
      return (e.latencySec ?? 0) > LATE_RESPONSE_SEC
        ? { label: `late response (${seconds(e.latencySec)})`, warning: true }
        : { label: `response after ${seconds(e.latencySec)}`, warning: false };
    case "yield":
      return e.isError
        ? { label: "failed to yield to the caller's interruption", warning: false }
        : { label: `yielded after ${seconds(e.latencySec)}`, warning: false };
    case "backchannel":
      return {
        label: e.isError ? "stopped for a backchannel" : "talked through a backchannel",
        warning: false,
      };
    case "vocal_tic":
      return { label: e.isError ? "reacted to a vocal tic" : "ignored a vocal tic", warning: false };
    case "non_directed":
      return {
        label: e.isError ? "reacted to speech not meant for it" : "ignored speech not meant for it",
        warning: false,
      };
  }
}

/** The interaction-metric events of one call, and each time the agent started over the caller. */
export function interactionEventMarks(
  ticks: readonly ViewTick[],
  config: InteractionMetricsConfig,
  segments: readonly SpeechSegment[],
): InteractionEventMark[] {
  const tickSec = config.tick_duration_sec;
  const marks: InteractionEventMark[] = simulationInteractionEvents(ticks, config).map((e) => ({
    tick: Math.round(e.timeSec / tickSec),
    time: e.timeSec,
    category: e.category,
    error: e.isError,
    latencySec: e.latencySec,
    ...eventLabel(e),
  }));
  for (const s of segments)
    if (s.side === "agent" && s.interruption)
      marks.push({
        tick: s.startTick,
        time: s.start,
        category: "agent_interruption",
        label: "the agent started talking over the caller",
        error: true,
        warning: false,
        latencySec: null,
      });
  return marks.sort((a, b) => a.time - b.time);
}

/** One call for the explorer: segments, tool calls, events and its length. */
export function voiceCallView(run: ExploredVoiceRun, simulation: ViewSimulation) {
  const ticks = simulation.ticks ?? [];
  const config = runInteractionConfig(run);
  const segments = speechSegments(ticks, run.tickSeconds);
  return {
    durationSec: ticks.length * run.tickSeconds,
    segments,
    toolCalls: toolCallMarks(ticks, run.tickSeconds),
    events: ticks.length > 0 ? interactionEventMarks(ticks, config, segments) : [],
  };
}
