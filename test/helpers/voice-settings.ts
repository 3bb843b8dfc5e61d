import { seededRandom } from "../../src/core/seeded-random.js";
import { noiseClip, type NoiseClip } from "../../src/voice/effects/noise.js";
import { voiceSettingsSchema, type VoiceSettings } from "../../src/voice/voice-settings.js";

/** Voice settings with every effect off and no telephone band (the reference's fields and defaults). */
export function quietSettings(): VoiceSettings {
  return voiceSettingsSchema.parse({
    persona_name: "matt_delaney",
    background_noise_file: null,
    burst_noise_files: [],
    environment: null,
    backchannel_min_threshold: null,
    use_llm_backchannel: false,
    enable_interruptions: false,
    telephony_enabled: false,
    channel_effects_config: {
      enable_frame_drops: false,
      frame_drop_rate: 0,
      frame_drop_burst_duration_ms: 100,
      frame_drop_count: 1,
      frame_drop_duration_ms: 150,
    },
    source_effects_config: {
      enable_background_noise: false,
      noise_snr_db: 15,
      noise_snr_drift_db: 0,
      noise_variation_speed: 0.5,
      enable_burst_noise: false,
      burst_noise_events_per_minute: 0,
      burst_snr_range_db: [-5, 10],
    },
    speech_effects_config: {
      enable_dynamic_muffling: false,
      muffle_probability: 0,
      muffle_segment_count: 1,
      muffle_segment_duration_ms: 500,
      muffle_cutoff_freq: 1500,
      muffle_transition_ms: 100,
      enable_vocal_tics: false,
      vocal_tics: [{ text: ".[cough][cough][cough]", type: "vocal_tic" }],
      min_words_for_vocal_tics: 3,
      enable_non_directed_phrases: false,
      non_directed_phrases: [{ text: "Hold on a second.", type: "non_directed_phrase" }],
      speech_insert_events_per_minute: 0,
    },
    persona_config: { verbosity: "minimal", interrupt_tendency: "waits" },
    complexity: "control",
  });
}

/** `quietSettings` with parts replaced. */
export function settingsWith(change: (settings: VoiceSettings) => void): VoiceSettings {
  const settings = quietSettings();
  change(settings);
  return settings;
}

/** Uniform white noise as a noise recording (`seconds` at 8 kHz). */
export function whiteNoise(name: string, seconds: number, seed = 7, amplitude = 8000): NoiseClip {
  const random = seededRandom(seed);
  const samples = new Int16Array(Math.round(seconds * 8000));
  for (let i = 0; i < samples.length; i++) samples[i] = Math.round((random() * 2 - 1) * amplitude);
  return noiseClip(name, samples);
}
