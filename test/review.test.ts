import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  isUserSimulatorRequest,
  mockReply,
  startMockLlmServer,
  type MockLlmRequest,
  type MockLlmServer,
} from "../src/testing/index.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { mockModelFlags, runCli } from "./helpers/run-cli.js";

// `passk review` over real HTTP: failures no check places go to the reviewer model, whose structured
// answer is validated; a bad answer is recorded as undetermined with the reason; `report` then shows
// pass^k as measured and without the failures that were not the agent's.

const dir = mkdtempSync(path.join(tmpdir(), "passk-review-"));
const env = { PASSK_DATA_DIR: tau2DataDir(), OPENAI_COMPATIBLE_API_KEY: "sk-test-review" };
let server: MockLlmServer;
let reviewer: (request: MockLlmRequest) => string = () => "{}";
const isReviewer = (r: MockLlmRequest) => r.system.startsWith("You find out why");

beforeAll(async () => {
  server = await startMockLlmServer({
    script: (request) => {
      if (isReviewer(request)) return mockReply.text(reviewer(request));
      // The customer leaves after its first message; the agent never does anything: every task fails.
      if (isUserSimulatorRequest(request))
        return mockReply.text(request.messages.length > 1 ? "###STOP###" : "Please create a task for me.");
      return mockReply.text("I am afraid I cannot do that.");
    },
  });
});
afterAll(() => server.close());

describe("passk review", () => {
  const store = path.join(dir, "passk.db");
  let runId = "";
  beforeAll(async () => {
    const run = await runCli(
      [
        "run",
        "--domain",
        "mock",
        ...mockModelFlags(server.baseUrl),
        "--task-ids",
        "create_task_1",
        "update_task_1",
        "--store",
        store,
        "--protocol",
        "passk",
      ],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    runId = /run (\d{8}-\d{6}-[0-9a-f]{4})/.exec(run.stderr)![1]!;
  });

  it("asks the reviewer about failures no check places, validates its answers, stores them", async () => {
    reviewer = (request) =>
      JSON.stringify(request.messages).includes("Important Meeting")
        ? JSON.stringify({
            culprit: "user_simulator",
            turn: 3,
            reason: "The customer left before saying what task to create.",
          })
        : JSON.stringify({
            culprit: "agent",
            turn: 2,
            reason: "The agent refused a request its policy allows.",
          });
    const review = await runCli(
      [
        "review",
        runId,
        "--store",
        store,
        "--judge-llm",
        "openai-compatible:reviewer",
        "--judge-llm-base-url",
        server.baseUrl,
        "--json",
      ],
      { env },
    );
    expect(review.code, review.stderr).toBe(0);
    const { reviews } = JSON.parse(review.stdout) as {
      reviews: Array<{ task_id: string; review: { culprit: string; source: string; turn: number } }>;
    };
    expect(reviews).toHaveLength(2);
    expect(reviews.every((r) => r.review.source === "llm")).toBe(true);
    expect(server.requests.filter(isReviewer).at(-1)!.body).toMatchObject({
      response_format: { type: "json_object" },
    });
    const report = await runCli(["report", runId, "--store", store], { env });
    expect(report.stdout).toContain("review: 2 failed simulation(s): agent 1, user_simulator 1");
    expect(report.stdout).toContain(
      "without the 1 failure(s) `passk review` placed on the simulated customer",
    );
  });

  it("a reviewer answer that is not the asked shape is rejected clearly: recorded undetermined with the reason", async () => {
    reviewer = () => JSON.stringify({ culprit: "the moon", reason: "" });
    const review = await runCli(
      [
        "review",
        runId,
        "--store",
        store,
        "--judge-llm",
        "openai-compatible:reviewer",
        "--judge-llm-base-url",
        server.baseUrl,
      ],
      { env },
    );
    expect(review.code, review.stderr).toBe(0);
    expect(review.stdout).toMatch(
      /undetermined .*the reviewer's JSON has the wrong shape \(culprit: .*; turn: .*; reason: /,
    );
    expect(review.stdout).toContain("2 failed simulation(s): undetermined 2");
    const notJson = await runCli(
      [
        "review",
        runId,
        "--store",
        store,
        "--judge-llm",
        "openai-compatible:reviewer",
        "--judge-llm-base-url",
        server.baseUrl,
      ],
      { env: { ...env } },
    );
    expect(notJson.code).toBe(0);
  });

  it("without a reviewer model, unplaced failures stay undetermined, never guessed", async () => {
    const review = await runCli(["review", runId, "--store", store], { env });
    expect(review.code, review.stderr).toBe(0);
    expect(review.stdout).toContain("no check placed it, and no reviewer model was given (--judge-llm)");
  });

  it("`passk run --review` reviews the failures as the run ends and stores them for `report`", async () => {
    const reviewedStore = path.join(dir, "reviewed.db");
    const run = await runCli(
      [
        "run",
        "--domain",
        "mock",
        ...mockModelFlags(server.baseUrl),
        "--task-ids",
        "create_task_1",
        "--store",
        reviewedStore,
        "--protocol",
        "passk",
        "--review",
      ],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /review: 1 failed simulation\(s\): undetermined 1 \(details: `passk review \d{8}-/,
    );
    const id = /run (\d{8}-\d{6}-[0-9a-f]{4})/.exec(run.stderr)![1]!;
    const report = await runCli(["report", id, "--store", reviewedStore], { env });
    expect(report.stdout).toContain("review: 1 failed simulation(s): undetermined 1");
  });
});
