// Butterworth filters as cascades of biquads (bilinear transform, pre-warped), each section keeping its
// state between calls, so that a stream filtered tick by tick equals the whole stream filtered at once.

interface Section {
  b0: number;
  b1: number;
  b2: number;
  a1: number;
  a2: number;
  z1: number;
  z2: number;
}

/** The Q of each biquad of an even-order Butterworth filter. */
function butterworthQs(order: number): number[] {
  if (order < 2 || order % 2 !== 0) throw new RangeError(`Butterworth order must be even (got ${order})`);
  const qs: number[] = [];
  for (let k = 0; k < order / 2; k++) qs.push(1 / (2 * Math.sin(((2 * k + 1) * Math.PI) / (2 * order))));
  return qs;
}

function section(kind: "lowpass" | "highpass", cutoffHz: number, sampleRate: number, q: number): Section {
  const w0 = (2 * Math.PI * cutoffHz) / sampleRate;
  const cos = Math.cos(w0);
  const alpha = Math.sin(w0) / (2 * q);
  const a0 = 1 + alpha;
  const [b0, b1] = kind === "lowpass" ? [(1 - cos) / 2, 1 - cos] : [(1 + cos) / 2, -(1 + cos)];
  return { b0: b0 / a0, b1: b1 / a0, b2: b0 / a0, a1: (-2 * cos) / a0, a2: (1 - alpha) / a0, z1: 0, z2: 0 };
}

/** A stateful IIR filter over float samples. */
export class Filter {
  private readonly sections: Section[];

  constructor(sections: Section[]) {
    this.sections = sections;
  }

  /** Filter `samples` in place, continuing from the previous call's state. */
  process(samples: Float64Array): Float64Array {
    for (const s of this.sections) {
      let { z1, z2 } = s;
      const { b0, b1, b2, a1, a2 } = s;
      for (let i = 0; i < samples.length; i++) {
        const x = samples[i]!;
        const y = b0 * x + z1;
        z1 = b1 * x - a1 * y + z2;
        z2 = b2 * x - a2 * y;
        samples[i] = y;
      }
      s.z1 = z1;
      s.z2 = z2;
    }
    return samples;
  }
}

/** A Butterworth low-pass of `order` (even) at `cutoffHz`. */
export function lowpass(order: number, cutoffHz: number, sampleRate: number): Filter {
  return new Filter(butterworthQs(order).map((q) => section("lowpass", cutoffHz, sampleRate, q)));
}

/** A Butterworth high-pass of `order` (even) at `cutoffHz`. */
export function highpass(order: number, cutoffHz: number, sampleRate: number): Filter {
  return new Filter(butterworthQs(order).map((q) => section("highpass", cutoffHz, sampleRate, q)));
}

/** A band-pass: a Butterworth high-pass at `lowHz` then a low-pass at `highHz`, each of `order`. */
export function bandpass(order: number, lowHz: number, highHz: number, sampleRate: number): Filter {
  const sections = [
    ...butterworthQs(order).map((q) => section("highpass", lowHz, sampleRate, q)),
    ...butterworthQs(order).map((q) => section("lowpass", highHz, sampleRate, q)),
  ];
  return new Filter(sections);
}
