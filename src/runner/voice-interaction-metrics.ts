import { markPyFloat } from "../python/py-float.js";
import { readVoiceResultsDir, recordedTickDuration } from "../formats/tau2/voice-results.js";
import {
  computeInteractionMetrics,
  DEFAULT_INTERACTION_METRICS_CONFIG,
  INTERACTION_METRICS_VERSION,
  type InteractionMetrics,
  type InteractionMetricsConfig,
} from "../metrics/interaction-metrics.js";

/** A voice run's interaction metrics, with what they were computed from. */
export interface VoiceRunInteractionMetrics {
  domain: string;
  speech_complexity: string | null;
  version: string;
  config: InteractionMetricsConfig;
  interaction_metrics: InteractionMetrics;
}

/**
 * The interaction metrics of a voice run in the reference's directory format (`results.json` +
 * `simulations/`): the reference's default windows, with the tick length the run recorded.
 */
export function voiceRunInteractionMetrics(
  folder: string,
  windows: Partial<InteractionMetricsConfig> = {},
): VoiceRunInteractionMetrics {
  const run = readVoiceResultsDir(folder);
  const recorded = recordedTickDuration(run.meta);
  const config: InteractionMetricsConfig = {
    ...DEFAULT_INTERACTION_METRICS_CONFIG,
    ...windows,
    ...(recorded ? { tick_duration_sec: recorded } : {}),
  };
  // Every window is a float (`2.0`), as the reference records its config block.
  for (const key of Object.keys(config)) markPyFloat(config, key);
  return {
    domain: run.meta.info.environment_info.domain_name,
    speech_complexity: run.meta.info.speech_complexity ?? null,
    version: INTERACTION_METRICS_VERSION,
    config,
    interaction_metrics: computeInteractionMetrics(run.simulations, config),
  };
}
