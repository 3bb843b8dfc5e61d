import { failedChecks } from "../metrics/failed-checks.js";
import { isSuccessful } from "../metrics/pass-hat-k.js";
import { type ScoredSimulation } from "../metrics/run-metrics.js";
import { NON_EVALUABLE_TERMINATIONS } from "../core/simulation.js";

export interface JunitOptions {
  /** Test suite names the run in CI's UI. */
  name: string;
  /** Every planned task, per domain, in run order: tasks that never ran are reported as skipped. */
  tasks: ReadonlyArray<{ domain: string; taskId: string }>;
  simulations: readonly ScoredSimulation[];
  numTrials: number;
  /** `<property>`s of every suite (agent, user, seed…). */
  properties?: Readonly<Record<string, string | number | boolean>>;
  timestamp?: string;
}

const escapeXml = (text: string) =>
  text
    // Characters XML 1.0 cannot hold at all.
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");

const seconds = (s: number) => s.toFixed(3);

interface Case {
  xml: string;
  outcome: "passed" | "failed" | "error" | "skipped";
  time: number;
}

function testCase(
  domain: string,
  taskId: string,
  trials: readonly ScoredSimulation[],
  numTrials: number,
): Case {
  const sorted = [...trials].sort((a, b) => (a.trial ?? 0) - (b.trial ?? 0));
  const evaluable = sorted.filter((s) => !NON_EVALUABLE_TERMINATIONS.has(s.termination_reason));
  const passedTrials = evaluable.filter((s) => isSuccessful(s.reward_info?.reward));
  const time = sorted.reduce((sum, s) => sum + (s.duration ?? 0), 0);
  const lines = sorted.map((s) => {
    const reward = s.reward_info?.reward;
    const mark = NON_EVALUABLE_TERMINATIONS.has(s.termination_reason)
      ? "!"
      : isSuccessful(reward)
        ? "✓"
        : "✗";
    const checks = isSuccessful(reward)
      ? []
      : failedChecks(s.reward_info, s.termination_reason).map((c) => `${c.kind}: ${c.check}`);
    const head = `trial ${s.trial ?? "?"} ${mark} reward ${reward ?? "-"} (${s.termination_reason})`;
    return [head, ...checks.map((c) => `    ${c}`)].join("\n");
  });
  const body = escapeXml(lines.join("\n"));
  const open = `    <testcase classname="passk.${escapeXml(domain)}" name="${escapeXml(taskId)}" time="${seconds(time)}">`;
  const close = "    </testcase>";
  const out = body ? `\n      <system-out>${body}</system-out>` : "";
  if (sorted.length === 0) {
    return {
      outcome: "skipped",
      time,
      xml: `${open}\n      <skipped message="not run (the run stopped before this task)"/>\n${close}`,
    };
  }
  if (evaluable.length === 0) {
    const message = `no evaluable trial: ${sorted.length} infrastructure error(s)`;
    return {
      outcome: "error",
      time,
      xml: `${open}\n      <error message="${escapeXml(message)}" type="infrastructure_error">${body}</error>${out}\n${close}`,
    };
  }
  if (passedTrials.length < evaluable.length) {
    const counts = new Map<string, number>();
    for (const s of evaluable) {
      if (isSuccessful(s.reward_info?.reward)) continue;
      for (const c of failedChecks(s.reward_info, s.termination_reason)) {
        const key = `${c.kind}: ${c.check}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }
    const summary = [...counts.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([check, n]) => `${n}× ${check}`)
      .join("\n");
    const message = `passed ${passedTrials.length} of ${evaluable.length} trials`;
    return {
      outcome: "failed",
      time,
      xml: `${open}\n      <failure message="${escapeXml(message)}" type="reliability">${escapeXml(summary)}</failure>${out}\n${close}`,
    };
  }
  if (sorted.length < numTrials) {
    const message = `only ${sorted.length} of ${numTrials} trials ran (all passed)`;
    return {
      outcome: "skipped",
      time,
      xml: `${open}\n      <skipped message="${escapeXml(message)}"/>${out}\n${close}`,
    };
  }
  return { outcome: "passed", time, xml: `${open}${out}\n${close}` };
}

/**
 * A JUnit XML report of a run: one test suite per domain, one test case per task. A task passes when
 * every one of its evaluable trials succeeded (the pass^k view of reliability); a failure lists its
 * failed checks with how often each failed; a task whose trials were all infrastructure errors is an
 * error; a task that never ran is skipped. CI systems read it like any unit-test report.
 */
export function junitReport(options: JunitOptions): string {
  const byTask = new Map<string, ScoredSimulation[]>();
  for (const s of options.simulations) {
    const key = `${s.domain}\u0000${s.task_id}`;
    const list = byTask.get(key) ?? [];
    list.push(s);
    byTask.set(key, list);
  }
  const domains = [...new Set(options.tasks.map((t) => t.domain))];
  const properties = Object.entries(options.properties ?? {})
    .map(([name, value]) => `      <property name="${escapeXml(name)}" value="${escapeXml(String(value))}"/>`)
    .join("\n");
  const totals = { tests: 0, failed: 0, error: 0, skipped: 0, time: 0 };
  const suites = domains.map((domain) => {
    const cases = options.tasks
      .filter((t) => t.domain === domain)
      .map((t) =>
        testCase(domain, t.taskId, byTask.get(`${domain}\u0000${t.taskId}`) ?? [], options.numTrials),
      );
    const count = (outcome: Case["outcome"]) => cases.filter((c) => c.outcome === outcome).length;
    const time = cases.reduce((sum, c) => sum + c.time, 0);
    totals.tests += cases.length;
    totals.failed += count("failed");
    totals.error += count("error");
    totals.skipped += count("skipped");
    totals.time += time;
    return [
      `  <testsuite name="${escapeXml(`${options.name} · ${domain}`)}" tests="${cases.length}" failures="${count("failed")}" errors="${count("error")}" skipped="${count("skipped")}" time="${seconds(time)}"${options.timestamp ? ` timestamp="${escapeXml(options.timestamp)}"` : ""}>`,
      ...(properties ? ["    <properties>", properties, "    </properties>"] : []),
      ...cases.map((c) => c.xml),
      "  </testsuite>",
    ].join("\n");
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escapeXml(options.name)}" tests="${totals.tests}" failures="${totals.failed}" errors="${totals.error}" skipped="${totals.skipped}" time="${seconds(totals.time)}">`,
    ...suites,
    "</testsuites>",
    "",
  ].join("\n");
}
