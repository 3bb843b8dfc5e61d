import { describe, expect, it } from "vitest";
import type { ScoredSimulation } from "../metrics/run-metrics.js";
import { junitReport } from "./junit-report.js";

const sim = (
  task_id: string,
  trial: number,
  reward: number,
  termination_reason = "user_stop",
): ScoredSimulation => ({
  domain: "retail",
  task_id,
  trial,
  termination_reason,
  duration: 1.5,
  reward_info: {
    reward,
    reward_basis: ["DB", "NL_ASSERTION"],
    db_check: { db_match: reward === 1, db_reward: reward },
    nl_assertions: [{ nl_assertion: 'Agent says "refund" & <confirms>', met: reward === 1 }],
  },
});

describe("junitReport", () => {
  const xml = junitReport({
    name: "passk run r1",
    numTrials: 2,
    tasks: ["ok", "flaky", "down", "never", "half"].map((taskId) => ({ domain: "retail", taskId })),
    simulations: [
      sim("ok", 0, 1),
      sim("ok", 1, 1),
      sim("flaky", 0, 1),
      sim("flaky", 1, 0),
      sim("down", 0, 0, "infrastructure_error"),
      sim("down", 1, 0, "infrastructure_error"),
      sim("half", 0, 1),
    ],
    properties: { agent: "openai:gpt-4.1" },
  });

  it("counts each task once: passed, failed, error (only infrastructure errors), skipped (not run)", () => {
    expect(xml).toContain(
      '<testsuites name="passk run r1" tests="5" failures="1" errors="1" skipped="2" time="10.500">',
    );
    expect(xml).toContain('<property name="agent" value="openai:gpt-4.1"/>');
  });

  it("a failure carries the failed checks, escaped for XML", () => {
    expect(xml).toContain(
      '<failure message="passed 1 of 2 trials" type="reliability">1× DB: final database differs from the gold database\n' +
        "1× NL_ASSERTION: Agent says &quot;refund&quot; &amp; &lt;confirms&gt;</failure>",
    );
    expect(xml).toContain(
      '<error message="no evaluable trial: 2 infrastructure error(s)" type="infrastructure_error">',
    );
    expect(xml).toContain('<skipped message="not run (the run stopped before this task)"/>');
    expect(xml).toContain('<skipped message="only 1 of 2 trials ran (all passed)"/>');
    expect(xml).toMatch(
      /<testcase classname="passk.retail" name="ok" time="3.000">\n\s+<system-out>trial 0 ✓/,
    );
  });
});
