import { describe, expect, it } from "vitest";
import { InfrastructureError } from "../core/llm.js";
import { parseRetryAfterMs, resolveRetryOptions, retryDelayMs, retryWithBackoff } from "./retry.js";

describe("retryDelayMs", () => {
  it("doubles from the initial delay up to the cap, spread by the injected random source", () => {
    const middle = resolveRetryOptions({
      initialDelayMs: 100,
      maxDelayMs: 1_000,
      jitter: 0.5,
      random: () => 0.5,
    });
    expect([1, 2, 3, 4, 5].map((retry) => retryDelayMs(retry, middle))).toEqual([100, 200, 400, 800, 1_000]);
    // random 0 → 1 - jitter of the delay; random → 1 approaches 1 + jitter.
    const low = { ...middle, random: () => 0 };
    const high = { ...middle, random: () => 0.999 };
    expect(retryDelayMs(2, low)).toBe(100);
    expect(retryDelayMs(2, high)).toBe(300);
  });

  it("uses Retry-After instead of the backoff and only ever lengthens it", () => {
    const options = resolveRetryOptions({ initialDelayMs: 5_000, jitter: 0.2, random: () => 0 });
    expect(retryDelayMs(1, options, 1_000)).toBe(1_000);
    expect(retryDelayMs(1, { ...options, random: () => 0.5 }, 1_000)).toBe(1_100);
  });
});

describe("parseRetryAfterMs", () => {
  it("reads retry-after-ms, retry-after seconds and retry-after dates", () => {
    expect(parseRetryAfterMs({ "retry-after-ms": "250" })).toBe(250);
    expect(parseRetryAfterMs({ "retry-after": "2" })).toBe(2_000);
    expect(parseRetryAfterMs({ "retry-after": "0.5" })).toBe(500);
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfterMs({ "retry-after": "Wed, 01 Jan 2025 00:00:03 GMT" }, now)).toBe(3_000);
    expect(parseRetryAfterMs({ "retry-after": "soon" })).toBeUndefined();
    expect(parseRetryAfterMs({})).toBeUndefined();
  });
});

describe("retryWithBackoff", () => {
  const fastOptions = (sleeps: number[]) =>
    resolveRetryOptions({
      maxAttempts: 4,
      initialDelayMs: 10,
      jitter: 0,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });

  it("retries retryable failures with backoff and returns the first success", async () => {
    const sleeps: number[] = [];
    let calls = 0;
    const result = await retryWithBackoff(
      async () => {
        calls++;
        if (calls < 3) throw new Error("flaky");
        return "ok";
      },
      {
        retry: fastOptions(sleeps),
        classify: () => ({ retryable: true, reason: "flaky" }),
        label: "test:model",
      },
    );
    expect(result).toBe("ok");
    expect(calls).toBe(3);
    expect(sleeps).toEqual([10, 20]);
  });

  it("ends in an InfrastructureError carrying the number of attempts", async () => {
    const sleeps: number[] = [];
    const error = await retryWithBackoff(
      async () => {
        throw new Error("down");
      },
      {
        retry: fastOptions(sleeps),
        classify: () => ({ retryable: true, reason: "HTTP 500: down" }),
        label: "test:model",
      },
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InfrastructureError);
    expect((error as InfrastructureError).attempts).toBe(4);
    expect((error as Error).message).toContain(
      "test:model: the provider call failed 4 times (last: HTTP 500: down)",
    );
    expect(sleeps).toEqual([10, 20, 40]);
  });

  it("rethrows a non-retryable failure at once", async () => {
    const original = new Error("bad request");
    let calls = 0;
    const error = await retryWithBackoff(
      async () => {
        calls++;
        throw original;
      },
      { retry: fastOptions([]), classify: () => ({ retryable: false, reason: "400" }), label: "test:model" },
    ).catch((caught: unknown) => caught);
    expect(error).toBe(original);
    expect(calls).toBe(1);
  });

  it("gives up at once when Retry-After exceeds the allowed wait", async () => {
    const sleeps: number[] = [];
    const error = await retryWithBackoff(
      async () => {
        throw new Error("429");
      },
      {
        retry: { ...fastOptions(sleeps), maxRetryAfterMs: 1_000 },
        classify: () => ({ retryable: true, reason: "HTTP 429", retryAfterMs: 3_600_000 }),
        label: "test:model",
      },
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InfrastructureError);
    expect((error as Error).message).toContain("asked to wait 3600 s");
    expect(sleeps).toEqual([]);
  });
});
