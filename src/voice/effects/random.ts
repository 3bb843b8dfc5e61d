import { seededRandom } from "../../core/seeded-random.js";

/** An independent random stream `stream` of a call's seed (one per effect, so each is reproducible alone). */
export function randomStream(seed: number, stream: number): () => number {
  return seededRandom((seed >>> 0) ^ Math.imul(stream + 1, 0x9e3779b1));
}

/** Whether a Poisson process of `perSecond` events fires in `seconds`. */
export function poissonFires(perSecond: number, seconds: number, random: () => number): boolean {
  return perSecond > 0 && random() < 1 - Math.exp(-perSecond * seconds);
}

/** A uniform pick from a non-empty list. */
export function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.min(items.length - 1, Math.floor(random() * items.length))]!;
}
