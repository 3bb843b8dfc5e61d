import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { InvalidInputFileError } from "../../core/errors.js";
import {
  formatResults,
  parseResults,
  readResultsFile,
  toOfficialSimulation,
  type ResultsInput,
} from "./results.js";

const minimal = (): ResultsInput => ({
  timestamp: "2025-06-01T10:00:00",
  info: { num_trials: 1, environment_info: { domain_name: "mock" } },
  tasks: [{ id: "t1", user_scenario: { instructions: "do it" } }],
  simulations: [
    {
      id: "s1",
      task_id: "t1",
      termination_reason: "agent_stop",
      reward_info: { reward: 1, reward_breakdown: { DB: 1, NL_ASSERTION: null } },
      messages: [
        { role: "assistant", content: "Héllo ✓" },
        { role: "assistant", content: null, tool_calls: [{ name: "get_users", arguments: {} }] },
        { role: "tool", id: "c1", content: "[]" },
      ],
      trial: 0,
    },
  ],
});

function problemsOf(text: string): string {
  try {
    parseResults(text, "run.json");
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputFileError);
    return (error as Error).message;
  }
  throw new Error("expected the file to be refused");
}

describe("reading a results file", () => {
  it("accepts the official shape and keeps the raw value as written", () => {
    const file = parseResults(JSON.stringify(minimal()), "run.json");
    expect(file.results.simulations[0]!.termination_reason).toBe("agent_stop");
    expect(file.raw).toEqual(minimal());
    // zod fills defaults into `results` only
    expect(file.results.tasks[0]!.evaluation_criteria).toBeNull();
    expect("evaluation_criteria" in file.raw.tasks[0]!).toBe(false);
  });

  it("names the JSON path, task and trial of each problem", () => {
    const bad = minimal() as unknown as { simulations: Array<Record<string, unknown>> };
    bad.simulations[0]!.termination_reason = "gave_up";
    delete bad.simulations[0]!.messages;
    const message = problemsOf(JSON.stringify(bad));
    expect(message).toContain("run.json is not valid (2 problems)");
    expect(message).toMatch(
      /task "t1": \$\.simulations\[0\]\.termination_reason: Invalid option: expected one of .* \(trial 0\)/,
    );
    expect(message).toMatch(/task "t1": \$\.simulations\[0\]\.messages: Invalid input: expected array/);
    expect(message).toContain("Fix: a τ²-bench results file is the JSON written by `tau2 run --save-to`");
  });

  it("reports where a corrupt file stops being JSON", () => {
    const text = JSON.stringify(minimal(), null, 2);
    expect(problemsOf(text.slice(0, 200))).toMatch(
      /run\.json is not valid \(1 problem\):\n {2}- line \d+, column \d+: .*\nFix: the file is not valid JSON/,
    );
  });

  it("refuses duplicated (task, trial) pairs", () => {
    const twice = minimal();
    twice.simulations.push({ ...twice.simulations[0]!, id: "s2" });
    expect(problemsOf(JSON.stringify(twice))).toContain(
      '$.simulations[1]: task "t1" trial 0 already occurs at $.simulations[0]',
    );
  });

  it("reads directory-format runs (results.json + simulations/)", () => {
    const folder = mkdtempSync(path.join(tmpdir(), "passk-results-"));
    const { simulations, ...meta } = minimal();
    writeFileSync(
      path.join(folder, "results.json"),
      JSON.stringify({ ...meta, format_version: 2, simulation_index: [] }),
    );
    mkdirSync(path.join(folder, "simulations"));
    writeFileSync(path.join(folder, "simulations", "s1.json"), JSON.stringify(simulations[0]));
    expect(readResultsFile(folder).results.simulations.map((s) => s.id)).toEqual(["s1"]);
    expect(() => readResultsFile(path.join(folder, "results.json"))).toThrow(/pass the run's directory/);
  });
});

describe("writing a results file", () => {
  it("writes every field of the official models, in their order, unknown fields after", () => {
    const simulation = toOfficialSimulation({ ...minimal().simulations[0]!, extra: 1 });
    expect(Object.keys(simulation)).toEqual([
      "id",
      "task_id",
      "timestamp",
      "start_time",
      "end_time",
      "duration",
      "termination_reason",
      "agent_cost",
      "user_cost",
      "reward_info",
      "messages",
      "trial",
      "seed",
      "extra",
    ]);
    const [greeting, call, tool] = simulation.messages as Array<Record<string, unknown>>;
    expect(Object.keys(greeting!)).toEqual([
      "role",
      "content",
      "tool_calls",
      "turn_idx",
      "timestamp",
      "cost",
      "usage",
      "raw_data",
    ]);
    expect(call!.tool_calls).toEqual([{ id: "", name: "get_users", arguments: {}, requestor: "assistant" }]);
    expect(tool).toEqual({
      id: "c1",
      role: "tool",
      content: "[]",
      requestor: "assistant",
      error: false,
      turn_idx: null,
      timestamp: null,
    });
  });

  it("leaves unevaluated components out of the reward breakdown (τ² types it dict[RewardType, float])", () => {
    const simulation = toOfficialSimulation(minimal().simulations[0]!);
    expect((simulation.reward_info as { reward_breakdown: unknown }).reward_breakdown).toEqual({ DB: 1 });
  });

  it("escapes non-ASCII as Python's json.dumps does and reads back equal", () => {
    const text = formatResults(minimal());
    expect(text).toContain('"content": "H\\u00e9llo \\u2713"');
    expect([...text].every((c) => c.charCodeAt(0) < 0x80)).toBe(true);
    const again = parseResults(text, "again.json").raw;
    expect(formatResults(again)).toBe(text);
  });
});
