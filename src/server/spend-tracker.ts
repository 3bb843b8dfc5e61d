import type { Budget } from "./api-schemas.js";

/** What a running conversation has reserved against the cap: its estimate, less what it has spent. */
export interface SpendReservation {
  /** Add one of the conversation's model call costs (`null`: price unknown). */
  charge(cost: number | null): void;
  /** The conversation ended: what it did not spend is free again. */
  release(): void;
}

/**
 * Today's model spend against a daily cap (UTC days). Each conversation reserves an estimate of its
 * cost when it starts (refused when today's spend plus what running conversations reserved would pass
 * the cap), and running conversations are stopped once the cap is reached, so a burst of parallel
 * conversations cannot overshoot it by more than their last model calls.
 */
export class SpendTracker {
  readonly capUsd: number | null;
  readonly #now: () => Date;
  #day = "";
  #spent = 0;
  #unpriced = 0;
  readonly #reserved = new Set<{ remaining: number }>();

  constructor(options: { capUsd?: number | null; now: () => Date }) {
    if (options.capUsd !== undefined && options.capUsd !== null && !(options.capUsd >= 0))
      throw new RangeError(`SpendTracker: capUsd must be a non-negative number, got ${options.capUsd}`);
    this.capUsd = options.capUsd ?? null;
    this.#now = options.now;
  }

  /** Add one model call's cost; `null` means its price is unknown (counted, not summed). */
  record(cost: number | null): void {
    this.#roll();
    if (cost === null) this.#unpriced++;
    else if (Number.isFinite(cost) && cost > 0) this.#spent += cost;
  }

  /** What running conversations have reserved and not yet spent. */
  get committedUsd(): number {
    let sum = 0;
    for (const reservation of this.#reserved) sum += reservation.remaining;
    return sum;
  }

  /**
   * Reserve `estimateUsd` for a new conversation; null when today's spend plus what is already reserved
   * plus this estimate would pass the cap (always granted without a cap).
   */
  reserve(estimateUsd: number): SpendReservation | null {
    this.#roll();
    const entry = { remaining: Math.max(0, estimateUsd) };
    if (this.capUsd !== null && this.#spent + this.committedUsd + entry.remaining > this.capUsd * (1 + 1e-9))
      return null;
    this.#reserved.add(entry);
    return {
      charge: (cost) => {
        this.record(cost);
        if (cost !== null && Number.isFinite(cost) && cost > 0)
          entry.remaining = Math.max(0, entry.remaining - cost);
      },
      release: () => void this.#reserved.delete(entry),
    };
  }

  get exhausted(): boolean {
    this.#roll();
    return this.capUsd !== null && this.#spent >= this.capUsd;
  }

  budget(): Budget {
    this.#roll();
    const now = this.#now();
    const resets = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
    return {
      capUsd: this.capUsd,
      spentUsd: this.#spent,
      unpricedCalls: this.#unpriced,
      resetsAt: resets.toISOString(),
      exhausted: this.capUsd !== null && this.#spent >= this.capUsd,
    };
  }

  #roll(): void {
    const day = this.#now().toISOString().slice(0, 10);
    if (day !== this.#day) {
      this.#day = day;
      this.#spent = 0;
      this.#unpriced = 0;
    }
  }
}
