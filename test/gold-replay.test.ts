import { describe, expect, it } from "vitest";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { replayGoldActions, type GoldReplayRecord } from "../src/evaluation/gold-replay.js";
import { hasFact, readJsonl, tau2DataDir } from "../src/testing/tau2-fixtures.js";

const domains = [...builtinDomains.keys()].filter((d) => hasFact(`fixtures/gold_replay/${d}.jsonl`));

describe.each(domains)("gold replay of %s equals the reference fixtures", (name) => {
  const data = new DomainData(builtinDomains.get(name)!, tau2DataDir());
  const fixtures = readJsonl<GoldReplayRecord>(`fixtures/gold_replay/${name}.jsonl`);
  const tasks = new Map(data.tasks.map((t) => [t.id, t]));

  it("covers every task of the fixture", () => {
    expect(fixtures.map((f) => f.task_id)).toEqual(data.tasks.map((t) => t.id));
  });

  it.each(fixtures.map((f) => [f.task_id, f] as const))("task %s", (taskId, fixture) => {
    const record = replayGoldActions(name, tasks.get(taskId)!, (o) => data.newWorld(o));
    // Tool outputs must be byte-identical; the rest JSON-equal.
    expect(record.steps.map((s) => s.output)).toEqual(fixture.steps.map((s) => s.output));
    expect(JSON.parse(JSON.stringify(record))).toEqual(fixture);
  });
});
