// A deterministic stand-in for speech, for tests and keyless demos: no recognizer with weights can run
// here, so "speech" is text sent as tones. Each byte of the text's UTF-8 becomes one 50 ms symbol: two
// tones at once, one from a low group (its low four bits) and one from a high group (its high four bits),
// all inside the telephone band. A listener recovers a byte only when both tones of its symbol clearly
// stand out; a frame lost on the line, a loud tonal burst or a heavily filtered voice loses or garbles
// bytes, so what the listener hears degrades the way a misheard caller does — honestly, not by a dice roll.

/** Length of one byte's symbol: 20 bytes of text per second of speech. */
export const SYMBOL_SECONDS = 0.05;

const LOW_TONES = Array.from({ length: 16 }, (_, i) => 500 + 60 * i); // 500–1400 Hz
const HIGH_TONES = Array.from({ length: 16 }, (_, i) => 1700 + 100 * i); // 1700–3200 Hz
/** Amplitude of each tone (of 32767): two tones sum to about half of full scale. */
const TONE_AMPLITUDE = 8000;
/** Quietest tone a listener still hears (amplitude), well above μ-law's quantisation noise. */
const MIN_TONE_AMPLITUDE = 1200;
/** How far the strongest tone of a group must stand above the next one (power ratio). */
const MIN_DOMINANCE = 6;
/** Edge ramp of each symbol (seconds), so symbols do not splatter into their neighbours' tones. */
const RAMP_SECONDS = 0.004;
/** Silence after which a listener takes an utterance as finished. */
export const DEFAULT_END_OF_UTTERANCE_SECONDS = 0.5;

function symbolSamples(sampleRate: number): number {
  return Math.round(SYMBOL_SECONDS * sampleRate);
}

/** Audio of `text` as the test speech codec speaks it: PCM16 mono at `sampleRate`, 50 ms per UTF-8 byte. */
export function speakTestSpeech(text: string, sampleRate: number): Int16Array {
  const bytes = new TextEncoder().encode(text);
  const perSymbol = symbolSamples(sampleRate);
  const ramp = Math.max(1, Math.round(RAMP_SECONDS * sampleRate));
  const out = new Int16Array(bytes.length * perSymbol);
  bytes.forEach((byte, index) => {
    const low = (2 * Math.PI * LOW_TONES[byte & 0x0f]!) / sampleRate;
    const high = (2 * Math.PI * HIGH_TONES[byte >> 4]!) / sampleRate;
    const start = index * perSymbol;
    for (let n = 0; n < perSymbol; n++) {
      const edge = Math.min(1, (n + 0.5) / ramp, (perSymbol - n - 0.5) / ramp);
      const value = TONE_AMPLITUDE * edge * (Math.sin(low * n) + Math.sin(high * n));
      out[start + n] = Math.round(value);
    }
  });
  return out;
}

/** Seconds of speech the codec makes of `text`. */
export function testSpeechSeconds(text: string): number {
  return new TextEncoder().encode(text).length * SYMBOL_SECONDS;
}

/** Power of one frequency in a window (Goertzel). */
function tonePower(
  samples: Int16Array,
  start: number,
  length: number,
  frequency: number,
  sampleRate: number,
): number {
  const coefficient = 2 * Math.cos((2 * Math.PI * frequency) / sampleRate);
  let previous = 0;
  let beforePrevious = 0;
  for (let n = 0; n < length; n++) {
    const current = samples[start + n]! + coefficient * previous - beforePrevious;
    beforePrevious = previous;
    previous = current;
  }
  return previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious;
}

interface GroupReading {
  index: number;
  /** Power of the strongest tone. */
  power: number;
  /** Whether it is loud enough and stands clearly above the rest of its group. */
  clear: boolean;
}

function readGroup(
  samples: Int16Array,
  start: number,
  length: number,
  tones: readonly number[],
  sampleRate: number,
): GroupReading {
  let best = -1;
  let bestPower = 0;
  let secondPower = 0;
  tones.forEach((frequency, index) => {
    const power = tonePower(samples, start, length, frequency, sampleRate);
    if (power > bestPower) {
      secondPower = bestPower;
      bestPower = power;
      best = index;
    } else if (power > secondPower) secondPower = power;
  });
  // A sinusoid of amplitude A over N samples has Goertzel power (A·N/2)².
  const amplitude = (2 * Math.sqrt(bestPower)) / length;
  const clear = amplitude >= MIN_TONE_AMPLITUDE && bestPower >= MIN_DOMINANCE * secondPower;
  return { index: best, power: bestPower, clear };
}

/** The byte a window holds, or null when its tones cannot be made out. */
function readSymbol(
  samples: Int16Array,
  start: number,
  sampleRate: number,
): { byte: number | null; power: number } {
  const length = symbolSamples(sampleRate);
  const low = readGroup(samples, start, length, LOW_TONES, sampleRate);
  const high = readGroup(samples, start, length, HIGH_TONES, sampleRate);
  return {
    byte: low.clear && high.clear ? (high.index << 4) | low.index : null,
    power: Math.min(low.power, high.power),
  };
}

/**
 * Hears test speech in a stream of audio, utterance by utterance: it finds where an utterance starts,
 * locks onto its symbols, and ends it after `endOfUtteranceSeconds` without a symbol it can make out.
 * Bytes it cannot make out in between are lost (a frame dropped on the line loses its bytes).
 */
export class TestSpeechListener {
  private buffer: Int16Array = new Int16Array(0);
  /** Start of the next symbol to read in `buffer`, when inside an utterance. */
  private cursor: number | null = null;
  /** Where to look for the next utterance's start in `buffer` (after the last one's end). */
  private scanFrom = 0;
  private heard: number[] = [];
  private silentSymbols = 0;
  private readonly perSymbol: number;
  private readonly endSymbols: number;

  constructor(
    private readonly sampleRate: number,
    endOfUtteranceSeconds: number = DEFAULT_END_OF_UTTERANCE_SECONDS,
  ) {
    this.perSymbol = symbolSamples(sampleRate);
    this.endSymbols = Math.max(1, Math.round(endOfUtteranceSeconds / SYMBOL_SECONDS));
  }

  /** Whether an utterance is under way (it started and has not ended yet). */
  get hearing(): boolean {
    return this.cursor !== null;
  }

  /** Feed more audio; returns the utterances that ended within it. */
  push(samples: Int16Array): string[] {
    const joined = new Int16Array(this.buffer.length + samples.length);
    joined.set(this.buffer);
    joined.set(samples, this.buffer.length);
    this.buffer = joined;
    const finished: string[] = [];
    for (;;) {
      if (this.cursor === null) {
        const start = this.findOnset();
        if (start === null) break;
        this.cursor = start;
      }
      if (this.cursor + this.perSymbol > this.buffer.length) break;
      const { byte } = readSymbol(this.buffer, this.cursor, this.sampleRate);
      this.cursor += this.perSymbol;
      if (byte === null) {
        this.silentSymbols++;
        if (this.silentSymbols >= this.endSymbols) {
          this.scanFrom = this.cursor;
          finished.push(this.finishUtterance());
        }
      } else {
        this.heard.push(byte);
        this.silentSymbols = 0;
      }
    }
    this.compact();
    return finished.filter((text) => text.length > 0);
  }

  /** End the stream: the utterance under way, if any, is finished. */
  flush(): string[] {
    const text = this.cursor === null ? "" : this.finishUtterance();
    this.buffer = new Int16Array(0);
    this.scanFrom = 0;
    return text.length > 0 ? [text] : [];
  }

  private finishUtterance(): string {
    const text = new TextDecoder().decode(Uint8Array.from(this.heard));
    this.heard = [];
    this.silentSymbols = 0;
    this.cursor = null;
    return text;
  }

  /** First symbol start in the buffer, aligned to the symbol grid; null when none is heard yet. */
  private findOnset(): number | null {
    const hop = Math.max(1, Math.floor(this.perSymbol / 16));
    // Leave room to align within half a symbol either side of the first window that holds a symbol.
    for (let start = this.scanFrom; start + 2 * this.perSymbol <= this.buffer.length; start += hop) {
      if (readSymbol(this.buffer, start, this.sampleRate).byte === null) continue;
      const step = Math.max(1, Math.floor(this.perSymbol / 100));
      let best = start;
      let bestPower = -1;
      const from = Math.max(this.scanFrom, start - Math.floor(this.perSymbol / 2));
      const to = start + Math.floor(this.perSymbol / 2);
      for (let candidate = from; candidate <= to; candidate += step) {
        const { byte, power } = readSymbol(this.buffer, candidate, this.sampleRate);
        if (byte !== null && power > bestPower) {
          bestPower = power;
          best = candidate;
        }
      }
      return best;
    }
    return null;
  }

  /** Drop audio that is no longer needed. */
  private compact(): void {
    // Idle: what was scanned without an onset goes, but for three symbols' worth: an onset may straddle
    // the edge, and aligning to it looks half a symbol back.
    const keepFrom = this.cursor ?? Math.max(this.scanFrom, this.buffer.length - 3 * this.perSymbol);
    if (keepFrom <= 0) return;
    this.buffer = this.buffer.slice(keepFrom);
    if (this.cursor !== null) this.cursor -= keepFrom;
    this.scanFrom = Math.max(0, this.scanFrom - keepFrom);
  }
}

/** Everything a listener hears in `samples`: its utterances, joined by spaces. */
export function hearTestSpeech(samples: Int16Array, sampleRate: number): string {
  const listener = new TestSpeechListener(sampleRate);
  return [...listener.push(samples), ...listener.flush()].join(" ");
}
