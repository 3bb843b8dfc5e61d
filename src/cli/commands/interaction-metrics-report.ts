import { INTERACTION_METRIC_FIELDS, type InteractionMetrics } from "../../metrics/interaction-metrics.js";
import { stringifyKeepingPyFloats } from "../../python/py-float.js";
import { voiceRunInteractionMetrics } from "../../runner/voice-interaction-metrics.js";
import { readVoiceResultsDir } from "../../formats/tau2/voice-results.js";
import { println, type CliContext } from "../context.js";
import { formatTable } from "../table.js";

/** The reference's column names for the panel: L_R ↓ … S_ND ↑. */
const COLUMNS: Record<(typeof INTERACTION_METRIC_FIELDS)[number], string> = {
  response_latency_mean: "L_R ↓",
  yield_latency_mean: "L_Y ↓",
  response_rate: "R_R ↑",
  yield_rate: "R_Y ↑",
  agent_interruption_rate: "I_A ↓",
  selectivity_backchannel: "S_BC ↑",
  selectivity_vocal_tic: "S_VT ↑",
  selectivity_non_directed: "S_ND ↑",
};

function cell(field: (typeof INTERACTION_METRIC_FIELDS)[number], value: number | null): string {
  if (value === null) return "—";
  return field.endsWith("latency_mean") ? `${value.toFixed(2)}s` : `${(value * 100).toFixed(1)}%`;
}

/** The panel as one table row per domain, and the event counts behind it. */
export function formatInteractionMetrics(domain: string, metrics: InteractionMetrics): string {
  const table = formatTable(
    ["Domain", ...INTERACTION_METRIC_FIELDS.map((f) => COLUMNS[f])],
    [[domain, ...INTERACTION_METRIC_FIELDS.map((f) => cell(f, metrics[f]))]],
  );
  const c = metrics.counts;
  const counts =
    `events: ${c.response_total} caller turns, ${c.yield_total} interruptions, ${c.backchannel_total} backchannels, ` +
    `${c.vocal_tic_total} vocal tics, ${c.non_directed_total} non-directed, ${c.agent_interrupts_count} agent interruptions ` +
    `over ${c.n_simulations} simulations`;
  return `${table}\n${counts}`;
}

/** `passk report DIR` on a voice run in the reference's directory format: the interaction metrics. */
export function reportVoiceRun(context: CliContext, folder: string, json: boolean): void {
  const result = voiceRunInteractionMetrics(folder);
  if (json) {
    println(context, stringifyKeepingPyFloats({ source: folder, ...result }, 2));
    return;
  }
  const complexity = result.speech_complexity ? `, speech complexity ${result.speech_complexity}` : "";
  println(context, `Interaction metrics (τ-voice panel) of ${folder}: ${result.domain}${complexity}`);
  println(context, formatInteractionMetrics(result.domain, result.interaction_metrics));
  println(
    context,
    `tick ${result.config.tick_duration_sec}s; windows: yield ${result.config.no_yield_window_sec}s, ` +
      `backchannel/tic/non-directed yield ${result.config.backchannel_yield_window_sec}s, ` +
      `tic/non-directed response ${result.config.vocal_tic_response_window_sec}s (metrics version ${result.version})`,
  );
  println(context, voiceRunCostLine(readVoiceResultsDir(folder).simulations));
}

/** Each side's cost over a voice run's calls, or how many calls could not be priced. */
export function voiceRunCostLine(
  simulations: readonly { agent_cost?: number | null | undefined; user_cost?: number | null | undefined }[],
): string {
  const side = (name: string, key: "agent_cost" | "user_cost") => {
    const costs = simulations.map((s) => s[key]);
    const unpriced = costs.filter((c) => c === null || c === undefined).length;
    if (unpriced > 0) return `${name} unknown (${unpriced} of ${costs.length} calls without a price)`;
    return `${name} $${(costs as number[]).reduce((a, b) => a + b, 0).toFixed(4)}`;
  };
  return `cost over ${simulations.length} calls: ${side("agent", "agent_cost")}, ${side("customer", "user_cost")}`;
}
