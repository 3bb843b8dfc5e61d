import type { Budget } from "./api-schemas.js";

/**
 * Today's model spend against a daily cap (UTC days). Costs are added as conversations report them;
 * once the cap is reached new conversations are refused while running ones finish, so the day's
 * spend can end somewhat above the cap (by at most what the running conversations still cost).
 */
export class SpendTracker {
  readonly capUsd: number | null;
  readonly #now: () => Date;
  #day = "";
  #spent = 0;
  #unpriced = 0;

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
