import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MessageSchema } from "../src/core/message.js";
import { builtinDomains } from "../src/domains/registry.js";
import { evaluateSimulationSync } from "../src/evaluation/evaluate-simulation.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { CulpritSchema, type Review } from "../src/review/blame.js";
import { reviewSimulations } from "../src/review/review-run.js";
import { goldDivergence, goldReferenceOf } from "../src/metrics/gold-divergence.js";
import { firstDivergence } from "../src/metrics/trial-divergence.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";

// The labelled corpus of test/fixtures/verdicts/: conversations written the way real models and
// customers talk, on official tasks, each labelled by hand with who caused the failure and where it
// first departs from the gold actions. passk's verdicts are measured against these labels.

const CaseSchema = z.object({
  id: z.string(),
  task_id: z.string(),
  story: z.string(),
  label: z.object({
    /** `none`: a passing conversation, kept as the twin of a failing one. */
    culprit: z.union([CulpritSchema, z.literal("none")]),
    departure: z
      .object({
        turn: z.number().int(),
        kind: z.enum(["missing-action", "wrong-arguments", "failed-call", "unexpected-call", "out-of-order"]),
        what: z.string(),
      })
      .nullable(),
  }),
  simulation: z.object({
    termination_reason: z.string(),
    info: z.record(z.string(), z.unknown()).optional(),
    messages: z.array(MessageSchema),
  }),
});
type Case = z.infer<typeof CaseSchema> & { domain: string };

const DIR = path.join(import.meta.dirname, "fixtures", "verdicts");
const corpus: Case[] = readdirSync(DIR)
  .filter((file) => file.endsWith(".json"))
  .flatMap((file) => {
    const { domain, cases } = z
      .object({ domain: z.string(), cases: z.array(CaseSchema) })
      .parse(JSON.parse(readFileSync(path.join(DIR, file), "utf8")));
    return cases.map((c) => ({ ...c, domain }));
  });
const failures = corpus.filter((c) => c.label.culprit !== "none");

const datas = new Map<string, DomainData>();
const dataOf = (domain: string) => {
  let data = datas.get(domain);
  if (!data) {
    data = new DomainData(builtinDomains.get(domain)!, tau2DataDir());
    datas.set(domain, data);
  }
  return data;
};
const toolsOf = (data: DomainData) => [...data.domain.agent.tools, ...(data.domain.user?.tools ?? [])];

const rewardOf = (c: Case) => {
  const data = dataOf(c.domain);
  return evaluateSimulationSync(
    { termination_reason: c.simulation.termination_reason as never, messages: c.simulation.messages },
    data.task(c.task_id),
    { newWorld: (options) => data.newWorld(options) },
  );
};

describe("the labelled verdict corpus", () => {
  it("holds at least 60 failed conversations over airline, retail, telecom (and its workflow) and banking_knowledge, each graded as the label says", () => {
    expect(failures.length).toBeGreaterThanOrEqual(60);
    expect(new Set(corpus.map((c) => c.domain))).toEqual(
      new Set(["airline", "retail", "telecom", "telecom-workflow", "banking_knowledge"]),
    );
    for (const c of corpus) {
      const reward = rewardOf(c);
      expect({ id: c.id, passed: reward.reward >= 1 }).toEqual({
        id: c.id,
        passed: c.label.culprit === "none",
      });
    }
  });

  it("explains the first departure from gold as labelled in at least 95% of the failures", () => {
    const misses: string[] = [];
    for (const c of failures) {
      const data = dataOf(c.domain);
      const found = goldDivergence(
        c.simulation.messages,
        goldReferenceOf(data.task(c.task_id), toolsOf(data)),
      );
      const expected = c.label.departure;
      const same =
        expected === null
          ? found === null || c.simulation.termination_reason === "infrastructure_error"
          : found !== null && found.messageIndex === expected.turn && found.kind === expected.kind;
      if (!same)
        misses.push(
          `${c.id}: labelled ${expected ? `${expected.kind} at ${expected.turn}` : "none"}, explained ${found ? `${found.kind} at ${found.messageIndex}: ${found.sentence}` : "none"}`,
        );
    }
    const share = 1 - misses.length / failures.length;
    console.log(`first departure: ${failures.length - misses.length}/${failures.length} as labelled`);
    expect(share, misses.join("\n")).toBeGreaterThanOrEqual(0.95);
  });

  it("does not call a pass and a fail the same when they differ only in a tool's answer", () => {
    const fail = corpus.find((c) => c.id === "airline-19-cancel-timed-out-never-retried")!;
    const pass = corpus.find((c) => c.id === "airline-19-cancel-done-pass")!;
    const divergence = firstDivergence(fail.simulation.messages, pass.simulation.messages);
    expect(divergence).toMatchObject({ kind: "result", a: 15, b: 15 });
    expect(divergence?.sentence).toContain('an error, "Error: the request timed out');
  });

  it("places failures with deterministic checks only where the label agrees (precision 100%), each citing its evidence; recall is reported", async () => {
    const { reviews } = await reviewSimulations(
      failures.map((c) => ({
        domain: c.domain,
        task_id: c.task_id,
        trial: 0,
        termination_reason: c.simulation.termination_reason,
        reward_info: rewardOf(c),
        messages: c.simulation.messages,
        info: c.simulation.info ?? null,
      })),
      {
        taskOf: (domain, taskId) => dataOf(domain).task(taskId),
        domainOf: (domain) => {
          const data = dataOf(domain);
          return { domain: data.domain, policy: data.policy, newWorld: (options) => data.newWorld(options) };
        },
      },
    );
    expect(reviews).toHaveLength(failures.length);
    const wrong: string[] = [];
    const byCheck = new Map<string, { fired: number; right: number }>();
    const byCulprit = new Map<string, { failures: number; placed: number }>();
    failures.forEach((c, i) => {
      const review: Review = reviews[i]!.review;
      const culprit = byCulprit.get(c.label.culprit) ?? { failures: 0, placed: 0 };
      culprit.failures++;
      byCulprit.set(c.label.culprit, culprit);
      if (review.check === null) return;
      const stats = byCheck.get(review.check) ?? { fired: 0, right: 0 };
      stats.fired++;
      // Every blame cites what it rests on.
      expect(review.evidence?.length ?? 0, `${c.id}: ${review.check} cites no evidence`).toBeGreaterThan(0);
      if (review.culprit === c.label.culprit) {
        stats.right++;
        culprit.placed++;
      } else
        wrong.push(
          `${c.id}: ${review.check} said ${review.culprit} (${review.reason}); labelled ${c.label.culprit}`,
        );
      byCheck.set(review.check, stats);
    });
    const lines = [...byCheck].map(([check, s]) => `${check}: fired ${s.fired}, right ${s.right}`);
    const recall = [...byCulprit].map(([culprit, s]) => `${culprit}: ${s.placed}/${s.failures} placed`);
    console.log(`precision by check:\n${lines.join("\n")}\nrecall by culprit:\n${recall.join("\n")}`);
    expect(wrong, wrong.join("\n")).toEqual([]);
  });
});
