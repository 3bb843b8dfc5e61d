import { ConfigError } from "../core/errors.js";

/**
 * mulberry32: a small, fast 32-bit PRNG. The same seed gives the same sequence of numbers in [0, 1)
 * on every platform, which is all a reproducible sample needs (it is not cryptographic).
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A deterministic sample of `size` items without replacement: a partial Fisher–Yates shuffle of the
 * indices driven by `mulberry32(seed)`, then the chosen items in their original order.
 *
 * @example
 * sampleTasks(["a", "b", "c", "d"], 2, 7) // the same two items, in list order, on every run
 */
export function sampleTasks<T>(items: readonly T[], size: number, seed: number): T[] {
  if (!Number.isInteger(size) || size < 0)
    throw new ConfigError(
      `--sample ${size} is not a whole number ≥ 0; pass how many tasks to keep, e.g. --sample 50`,
    );
  if (size > items.length)
    throw new ConfigError(
      `--sample ${size} asks for more tasks than the set has (${items.length}); pass --sample ${items.length} or less`,
    );
  const random = mulberry32(seed);
  const indices = items.map((_, i) => i);
  for (let i = 0; i < size; i++) {
    const j = i + Math.floor(random() * (indices.length - i));
    [indices[i], indices[j]] = [indices[j]!, indices[i]!];
  }
  return indices
    .slice(0, size)
    .sort((a, b) => a - b)
    .map((i) => items[i]!);
}
