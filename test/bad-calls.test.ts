import { describe, expect, it } from "vitest";
import { builtinDomains } from "../src/domains/registry.js";
import { runSingleCall } from "../src/evaluation/single-call.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { hasFact, readJsonl, tau2DataDir } from "../src/testing/tau2-fixtures.js";

interface BadCall {
  id: string;
  category: string;
  requestor: "user" | "assistant";
  name: string;
  arguments: Record<string, unknown>;
  output: string;
  error: boolean;
  agent_db_changed: boolean;
  user_db_changed: boolean;
  /** Fields of newer fixtures (banking_knowledge): the config, calls made first, a varying suffix. */
  retrieval_config?: string;
  setup_calls?: Array<{ requestor: "user" | "assistant"; name: string; arguments: Record<string, unknown> }>;
  output_timing_suffix_regex?: string;
}

const EXACT = new Set([
  "unknown_tool",
  "bad_id",
  "business_rule",
  "requestor_mismatch",
  "policy_violation_permitted",
  "ok_reference",
]);
const domains = [...builtinDomains.keys()].filter((d) => hasFact(`fixtures/bad_calls/${d}.jsonl`));

describe.each(domains)("bad calls in %s", (name) => {
  const loaded = new Map<string, DomainData>();
  const dataFor = (config: string | undefined) => {
    let data = loaded.get(config ?? "");
    if (!data) {
      data = new DomainData(builtinDomains.get(name)!, tau2DataDir(), config !== undefined ? { config } : {});
      loaded.set(config ?? "", data);
    }
    return data;
  };
  const calls = readJsonl<BadCall>(`fixtures/bad_calls/${name}.jsonl`);
  const call = (c: BadCall, validation: "strict" | "lenient") => {
    const world = dataFor(c.retrieval_config).newWorld({ validation });
    for (const setup of c.setup_calls ?? [])
      world.callTool({ name: setup.name, arguments: setup.arguments, requestor: setup.requestor });
    const result = runSingleCall(world, { name: c.name, arguments: c.arguments, requestor: c.requestor });
    return c.output_timing_suffix_regex
      ? { ...result, output: result.output.replace(new RegExp(c.output_timing_suffix_regex), "") }
      : result;
  };
  const expectedOutput = (c: BadCall) =>
    c.output_timing_suffix_regex ? c.output.replace(new RegExp(c.output_timing_suffix_regex), "") : c.output;

  it.each(calls.filter((c) => EXACT.has(c.category)).map((c) => [c.id, c] as const))(
    "%s gives exactly the reference output",
    (_id, c) => {
      const expected = {
        output: expectedOutput(c),
        error: c.error,
        agent_db_changed: c.agent_db_changed,
        user_db_changed: c.user_db_changed,
      };
      expect(call(c, "strict")).toEqual(expected);
      expect(call(c, "lenient")).toEqual(expected);
    },
  );

  it.each(calls.filter((c) => !EXACT.has(c.category)).map((c) => [c.id, c] as const))(
    "%s is rejected with a clear error and changes nothing (strict)",
    (_id, c) => {
      const result = call(c, "strict");
      if (!result.error) {
        // Arguments that fit the schema behave as in the reference.
        expect(result).toEqual({
          output: c.output,
          error: c.error,
          agent_db_changed: c.agent_db_changed,
          user_db_changed: c.user_db_changed,
        });
        return;
      }
      expect(result.agent_db_changed).toBe(false);
      expect(result.user_db_changed).toBe(false);
      expect(result.output).toMatch(/^Error: /);
      if (c.category === "non_tool_method") expect(result.output).toContain(`'${c.name}' not found`);
      else expect(result.output).toContain(`'${c.name}'`);
      const named = [
        ...Object.keys(c.arguments),
        ...[...c.output.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]!),
      ];
      if (c.category !== "non_tool_method")
        expect(named.some((arg) => result.output.includes(`'${arg}`))).toBe(true);
    },
  );

  it.each(
    calls
      .filter((c) => c.category === "missing_arg" || c.category === "extra_arg")
      .map((c) => [c.id, c] as const),
  )("%s reproduces the reference text in lenient mode", (_id, c) => {
    expect(call(c, "lenient")).toEqual({
      output: c.output,
      error: c.error,
      agent_db_changed: c.agent_db_changed,
      user_db_changed: c.user_db_changed,
    });
  });
});
