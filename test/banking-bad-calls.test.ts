import { describe, expect, it } from "vitest";
import { builtinDomains } from "../src/domains/registry.js";
import { runSingleCall } from "../src/evaluation/single-call.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { readJsonl, tau2DataDir } from "../src/testing/tau2-fixtures.js";

// Every deliberately wrong (and reference) call of the fixture, exactly: output, error flag, whether the
// DB changed. Each runs in a fresh world built as for task_001 under the line's retrieval config, after
// its setup calls; under τ²'s argument handling (lenient), which is what the reference does.

interface BadCall {
  id: string;
  category: string;
  retrieval_config: string;
  requestor: "user" | "assistant";
  name: string;
  arguments: Record<string, unknown>;
  output: string;
  error: boolean;
  agent_db_changed: boolean;
  user_db_changed: boolean;
  setup_calls?: Array<{
    requestor: "user" | "assistant";
    name: string;
    arguments: Record<string, unknown>;
    output: string;
    error: boolean;
  }>;
  output_timing_suffix_regex?: string;
}

const file = "fixtures/bad_calls/banking_knowledge.jsonl";

describe("banking_knowledge bad calls", () => {
  const domain = builtinDomains.get("banking_knowledge")!;
  const loaded = new Map<string, DomainData>();
  const dataFor = (config: string) => {
    let data = loaded.get(config);
    if (!data) loaded.set(config, (data = new DomainData(domain, tau2DataDir(), { config })));
    return data;
  };
  const lines = readJsonl<BadCall>(file);

  it.each(lines.map((c) => [c.id, c] as const))("%s", (_id, c) => {
    const data = dataFor(c.retrieval_config);
    const world = data.newWorld({ validation: "lenient", task: data.task("task_001") });
    for (const setup of c.setup_calls ?? []) {
      const result = world.callTool({
        name: setup.name,
        arguments: setup.arguments,
        requestor: setup.requestor,
      });
      expect({ output: result.content, error: result.error }).toEqual({
        output: setup.output,
        error: setup.error,
      });
    }
    const result = runSingleCall(world, { name: c.name, arguments: c.arguments, requestor: c.requestor });
    const timing = c.output_timing_suffix_regex ? new RegExp(c.output_timing_suffix_regex) : undefined;
    if (timing) expect(result.output).toMatch(timing);
    const strip = (text: string) => (timing ? text.replace(timing, "") : text);
    expect({ ...result, output: strip(result.output) }).toEqual({
      output: strip(c.output),
      error: c.error,
      agent_db_changed: c.agent_db_changed,
      user_db_changed: c.user_db_changed,
    });
  });
});
