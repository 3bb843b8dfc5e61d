import { describe, expect, it } from "vitest";
import { SpendTracker } from "./spend-tracker.js";

describe("SpendTracker", () => {
  it("sums priced calls per UTC day, counts unpriced ones, and starts again at midnight", () => {
    let now = new Date("2025-06-01T23:59:00Z");
    const spend = new SpendTracker({ capUsd: 1, now: () => now });
    spend.record(0.25);
    spend.record(null);
    spend.record(0.75);
    expect(spend.budget()).toEqual({
      capUsd: 1,
      spentUsd: 1,
      unpricedCalls: 1,
      resetsAt: "2025-06-02T00:00:00.000Z",
      exhausted: true,
    });
    now = new Date("2025-06-02T00:00:00Z");
    expect(spend.exhausted).toBe(false);
    expect(spend.budget().spentUsd).toBe(0);
  });

  it("has no cap unless given one, and rejects a negative cap when wired", () => {
    expect(new SpendTracker({ now: () => new Date() }).budget().exhausted).toBe(false);
    expect(() => new SpendTracker({ capUsd: -1, now: () => new Date() })).toThrow(/non-negative/);
  });
});
