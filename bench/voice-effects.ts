/**
 * The caller's line (src/voice/effects): a 10-minute call (3,000 ticks of 0.2 s) through a task's
 * `regular` voice settings — background noise with drift, Poisson bursts, muffling, the telephone band,
 * μ-law and Gilbert–Elliott frame drops — with the caller speaking 60% of the time. Milliseconds per
 * call and ticks per second on one core (fastest of 5 calls after 2 warm-up calls), and how many calls
 * one core could carry in real time (call length / CPU time per call). The noise recordings come from
 * the data dir (`passk data pull`); a background recording missing offline is replaced by one there.
 *
 * Usage: node --import tsx bench/voice-effects.ts   (run by `npm run bench`)
 */
import os from "node:os";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { wireBytesPerTick, DEFAULT_TICK_SECONDS } from "../src/voice/call.js";
import { createCallerLine } from "../src/voice/effects/caller-line.js";
import { loadCallerNoise } from "../src/voice/effects/noise.js";
import { loadTasksVoice, voiceSettingsFor } from "../src/voice/voice-settings.js";

const CALL_SECONDS = 600;
const WARM_UP = 2;
const CALLS = 5;
const TASK = "0";

const dataDir = tau2DataDir();
const settings = voiceSettingsFor(loadTasksVoice(dataDir, "airline"), TASK, "regular");
const noise = loadCallerNoise(dataDir, settings, { onMissing: "substitute" });
const tickSamples = wireBytesPerTick(DEFAULT_TICK_SECONDS);
const ticks = Math.round(CALL_SECONDS / DEFAULT_TICK_SECONDS);

// The caller's "voice": a gliding two-tone signal at speech level, 3 s utterances with 2 s pauses.
const voice = new Int16Array(tickSamples * 25);
for (let i = 0; i < voice.length; i++) {
  const t = i / 8000;
  voice[i] = Math.round(
    2500 * Math.sin(2 * Math.PI * (200 + 40 * t) * t) + 1500 * Math.sin(2 * Math.PI * 1700 * t),
  );
}
const silence = new Int16Array(tickSamples);

function oneCall(seed: number): number {
  const line = createCallerLine(settings, noise, seed);
  let lostMs = 0;
  for (let t = 0; t < ticks; t++) {
    const inUtterance = t % 25;
    const speaking = inUtterance < 15;
    const speech = speaking
      ? voice.subarray(inUtterance * tickSamples, (inUtterance + 1) * tickSamples)
      : silence;
    const out = line.tick(speech, { speaking, utteranceStart: inUtterance === 0 });
    lostMs += out.channelEffects?.frame_drop_ms ?? 0;
  }
  return lostMs;
}

for (let i = 0; i < WARM_UP; i++) oneCall(i);
let best = Infinity;
for (let i = 0; i < CALLS; i++) {
  const start = performance.now();
  oneCall(100 + i);
  best = Math.min(best, performance.now() - start);
}
console.log(
  JSON.stringify({
    bench: "voice-effects",
    settings: `airline task ${TASK}, regular`,
    background: noise.background?.name ?? null,
    substituted: noise.substitutions.map((s) => `${s.wanted}→${s.used ?? "none"}`),
    call_seconds: CALL_SECONDS,
    ticks,
    ms_per_call: Number(best.toFixed(1)),
    ticks_per_second: Math.round((ticks / best) * 1000),
    realtime_calls_per_core: Math.floor((CALL_SECONDS * 1000) / best),
    load_average: os.loadavg().map((l) => Number(l.toFixed(2))),
  }),
);
