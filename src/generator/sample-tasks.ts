import { ConfigError } from "../core/errors.js";
import { seededRandom } from "../core/seeded-random.js";

/**
 * A deterministic sample of `size` items without replacement: a partial Fisher–Yates shuffle of the
 * indices driven by `seededRandom(seed)` (mulberry32), then the chosen items in their original order.
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
  const random = seededRandom(seed);
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
