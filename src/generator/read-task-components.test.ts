import { describe, expect, it } from "vitest";
import { InvalidInputFileError } from "../core/errors.js";
import { isPyFloat } from "../python/py-float.js";
import { parseTaskComponents } from "./read-task-components.js";

/** A minimal valid file; each test breaks one thing. */
function minimal() {
  return {
    format: "passk-task-components/1",
    personas: [{ key: "None", text: null }],
    template_values: { name: "Ada" },
    reward_basis: { fixable: ["ENV_ASSERTION"], unfixable: ["ENV_ASSERTION", "ACTION"] },
    unfixable_action: {
      action_id: "transfer",
      requestor: "assistant",
      name: "transfer_to_human_agents",
      arguments: { summary: "x" },
      info: null,
      compare_args: [],
    },
    managers: [
      {
        name: "m",
        domain: "d",
        purpose: "p",
        reason_for_call: "r",
        known_info: "You are {name}.",
        task_instructions: "t",
        ticket: null,
        env_assertions_fixable: [{ env_type: "assistant", func_name: "ok", arguments: {} }],
        selection_sets: ["s"],
        required_from: 0,
      },
    ],
    selection_sets: { s: ["a", "b"] },
    subtasks: {
      a: { group: "s", fix_actions: [{ requestor: "assistant", name: "fix", arguments: { n: 2.0 } }] },
      b: { group: "s", fix_actions: null },
    },
    task_sets: { tasks: { exclude_subtasks: ["b"] } },
  };
}

function problems(file: object): string[] {
  try {
    parseTaskComponents(JSON.stringify(file), "c.json");
  } catch (error) {
    if (error instanceof InvalidInputFileError) return error.problems.map((p) => `${p.path}: ${p.message}`);
    throw error;
  }
  return [];
}

describe("parseTaskComponents", () => {
  it("accepts a minimal file and fills the defaults", () => {
    const components = parseTaskComponents(JSON.stringify(minimal()), "c.json");
    expect(components.managers[0]!.base_init_actions).toEqual([]);
    expect(components.managers[0]!.env_assertions_fixable[0]).toEqual({
      env_type: "assistant",
      func_name: "ok",
      arguments: {},
      assert_value: true,
      message: null,
    });
    expect(components.task_sets.tasks).toEqual({ exclude_subtasks: ["b"], max_subtasks: null });
  });

  it("names the JSON path of each broken reference", () => {
    const file = minimal();
    file.managers[0]!.selection_sets = ["s", "nope"];
    file.managers[0]!.known_info = "You are {nam}.";
    file.selection_sets.s = ["a", "b", "c"];
    file.task_sets.tasks.exclude_subtasks = ["zz"];
    expect(problems(file)).toEqual([
      '$.managers[0].selection_sets[1]: unknown selection set "nope" (defined: s)',
      "$.managers[0].known_info: placeholder {nam} has no entry in $.template_values (defined: name)",
      '$.selection_sets.s[2]: unknown sub-issue "c" (not a key of $.subtasks)',
      '$.task_sets.tasks.exclude_subtasks[0]: unknown sub-issue "zz" (not a key of $.subtasks)',
    ]);
  });

  it("catches group mismatches, orphans and a missing unfixable action", () => {
    const file: Record<string, unknown> & ReturnType<typeof minimal> = minimal();
    file.selection_sets.s = ["b"];
    file.unfixable_action = null as never;
    expect(problems(file)).toEqual([
      '$.subtasks.a: sub-issue "a" is in no selection set',
      "$.unfixable_action: required: some sub-issue has `fix_actions: null`, and its tasks need this gold action",
    ]);
    const other = minimal();
    other.subtasks.a.group = "t";
    expect(problems(other)).toEqual(['$.subtasks.a.group: is "t" but the sub-issue is listed in set "s"']);
  });

  it("reports shape errors with paths, including misspelt keys", () => {
    const file = minimal() as Record<string, unknown>;
    file.personas = [{ key: "None", txt: null }];
    file.format = "v1";
    expect(problems(file)).toEqual([
      '$.format: expected a format tag ending in "task-components/1", e.g. "passk-task-components/1"',
      "$.personas[0].text: Invalid input: expected string, received undefined",
      '$.personas[0]: Unrecognized key: "txt"',
    ]);
  });

  it("reports JSON syntax errors with line and column", () => {
    expect(() => parseTaskComponents('{\n  "format": 1,\n}', "c.json")).toThrow(
      /line 3, column 1: JSON syntax error/,
    );
  });

  it.each([
    ['{"a": 2.0,}', "line 1, column 11: JSON syntax error: PropertyNameExpected"],
    ['{"a" 1}', "line 1, column 6: JSON syntax error: ColonExpected"],
    ["[1, 2.0", "line 1, column 8: JSON syntax error: CloseBracketExpected"],
  ])("names the position of a syntax error in %s, floats or not", (text, message) => {
    expect(() => parseTaskComponents(text, "c.json")).toThrow(message);
  });

  it("keeps whole floats marked as floats on the checked value, ints as ints", () => {
    const file = minimal();
    file.managers[0]!.env_assertions_fixable[0]!.arguments = { limit: 1 };
    const text = JSON.stringify(file)
      .replace('"arguments":{"n":2}', '"arguments":{"n":2.0,"m":[3,1e3],"k":4}')
      .replace('"arguments":{"limit":1}', '"arguments":{"limit":1.0}');
    const components = parseTaskComponents(text, "c.json");
    const args = components.subtasks.a!.fix_actions![0]!.arguments as { n: number; m: number[]; k: number };
    expect(args).toEqual({ n: 2, m: [3, 1000], k: 4 });
    expect([isPyFloat(args, "n"), isPyFloat(args.m, 0), isPyFloat(args.m, 1), isPyFloat(args, "k")]).toEqual([
      true,
      false,
      true,
      false,
    ]);
    expect(isPyFloat(components.managers[0]!.env_assertions_fixable[0]!.arguments, "limit")).toBe(true);
  });
});
