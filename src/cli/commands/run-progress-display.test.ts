import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { Job } from "../../core/job-queue.js";
import { progressDisplay } from "./run-progress-display.js";

const job: Job = {
  runId: "r",
  domain: "mock",
  taskId: "a",
  trial: 0,
  attempt: 1,
  workerId: "w",
  leaseExpiresAt: "",
};

function stream(isTTY: boolean) {
  const out = Object.assign(new PassThrough(), { isTTY, columns: 160 });
  let text = "";
  out.on("data", (d: Buffer) => (text += d.toString()));
  return { out, text: () => text };
}

describe("progressDisplay", () => {
  it("on a terminal draws a bar with done/total, successes, cost, ETA and errors, and notes above it", () => {
    const { out, text } = stream(true);
    const display = progressDisplay({
      stream: out,
      mode: "auto",
      intervalMs: 1000,
      prefix: "[scripted demo] ",
    });
    display.onEvent({
      type: "run-start",
      runId: "r",
      total: 4,
      done: 0,
      successes: 0,
      cost: 0,
      concurrency: 2,
    });
    display.onEvent({ type: "job-start", job, seed: 1 });
    display.onEvent({
      type: "job-end",
      job,
      durationMs: 5,
      result: {
        terminationReason: "user_stop",
        reward: 1,
        success: true,
        cost: 0.01,
        state: "done",
        written: true,
      },
    });
    display.note("budget reached");
    display.stop();
    const screen = text();
    expect(screen).toContain("\u001b["); // cursor control: a redrawn bar, not lines
    expect(screen).toContain(
      "[scripted demo] ██████░░░░░░░░░░░░░░░░░░ 1/4 done | 1 passed | 0 running | $0.0100 |",
    );
    expect(screen).toContain("[scripted demo] budget reached\n");
  });

  it("elsewhere prints plain lines: at the start, every interval, and at the end", async () => {
    const { out, text } = stream(false);
    const display = progressDisplay({ stream: out, mode: "auto", intervalMs: 20, prefix: "" });
    display.onEvent({
      type: "run-start",
      runId: "r",
      total: 2,
      done: 0,
      successes: 0,
      cost: 0,
      concurrency: 1,
    });
    display.onEvent({ type: "job-start", job, seed: 1 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    display.stop();
    const lines = text().trim().split("\n");
    expect(text()).not.toContain("\u001b[");
    expect(lines[0]).toBe("0/2 done | 0 passed | 0 running | $0.0000 | ETA ? | errors: none");
    expect(lines).toContain("0/2 done | 0 passed | 1 running | $0.0000 | ETA ? | errors: none");
  });
});
