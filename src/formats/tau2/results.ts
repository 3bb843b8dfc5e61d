import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import type { z } from "zod";
import { InvalidInputFileError, type InputProblem } from "../../core/errors.js";
import { writeFileAtomic } from "../../core/write-file-atomic.js";
import { ResultsSchema, type Results } from "../../core/simulation.js";
import {
  copyPyFloatMarks,
  parseJsonKeepingPyFloats,
  stringifyKeepingPyFloats,
} from "../../python/py-float.js";
import { parseJsonFile, readInputText } from "../../core/json-file.js";
import { zodProblems } from "../../core/zod-problems.js";

/** A results file as written (no defaults filled in): what import stores and export writes back. */
export type ResultsInput = z.input<typeof ResultsSchema>;
export type SimulationRunInput = ResultsInput["simulations"][number];
export type TaskInput = ResultsInput["tasks"][number];

/** A validated results file: `results` has zod's defaults applied, `raw` is exactly what the file holds. */
export interface ResultsFile {
  results: Results;
  raw: ResultsInput;
}

const RESULTS_HINT =
  "a τ²-bench results file is the JSON written by `tau2 run --save-to` (or `passk run --save-to`): " +
  "{timestamp, info, tasks, simulations[]}; each simulation needs id, task_id, termination_reason and messages. " +
  "Re-export it from its source, or fix the fields listed.";

/**
 * Parse and validate a τ²-bench results JSON. All or nothing: any problem rejects the file, each
 * problem named by its JSON path (`$.simulations[3].termination_reason`) and simulation.
 */
export function parseResults(text: string, file: string): ResultsFile {
  const raw = parseJsonFile(
    text,
    file,
    "the file is not valid JSON (truncated or corrupt?); re-export it from its source.",
    // Keep `2.0` distinct from `2` in recorded tool arguments, so replays print them as τ² did.
    parseJsonKeepingPyFloats,
  );
  return validateResults(raw, file);
}

/** Validate an already-parsed results value (see {@link parseResults}). */
export function validateResults(raw: unknown, file: string): ResultsFile {
  if (typeof raw === "object" && raw !== null && !Array.isArray(raw)) {
    const record = raw as Record<string, unknown>;
    if (!("simulations" in record) && "simulation_index" in record) {
      throw new InvalidInputFileError(
        file,
        [
          {
            path: "$.simulations",
            message: "missing: this is the metadata of a directory-format results run",
          },
        ],
        "pass the run's directory (the one holding results.json and simulations/) instead of its results.json.",
      );
    }
  }
  const parsed = ResultsSchema.safeParse(raw);
  if (!parsed.success) {
    throw new InvalidInputFileError(file, resultsProblems(parsed.error, raw), RESULTS_HINT);
  }
  copyPyFloatMarks(raw, parsed.data);
  const problems = duplicateTrials(parsed.data);
  if (problems.length > 0) {
    throw new InvalidInputFileError(
      file,
      problems,
      "each (task_id, trial) may occur once; remove the duplicated simulations.",
    );
  }
  return { results: parsed.data, raw: raw as ResultsInput };
}

/** zod issues as problems, each naming the task of the simulation or task entry it sits in. */
function resultsProblems(error: z.ZodError, raw: unknown): InputProblem[] {
  const problems = zodProblems(error);
  const record = raw as { simulations?: unknown; tasks?: unknown };
  return problems.map((problem, i) => {
    const [list, index] = error.issues[i]!.path;
    const items = list === "simulations" ? record.simulations : list === "tasks" ? record.tasks : undefined;
    if (!Array.isArray(items) || typeof index !== "number") return problem;
    const item = items[index] as { task_id?: unknown; id?: unknown; trial?: unknown } | undefined;
    const id = list === "simulations" ? item?.task_id : item?.id;
    if (typeof id !== "string") return problem;
    const trial = list === "simulations" && typeof item?.trial === "number" ? ` (trial ${item.trial})` : "";
    return { ...problem, message: `${problem.message}${trial}`, taskId: id };
  });
}

function duplicateTrials(results: Results): InputProblem[] {
  const seen = new Map<string, number>();
  const problems: InputProblem[] = [];
  results.simulations.forEach((simulation, index) => {
    if (simulation.trial === null || simulation.trial === undefined) return;
    const key = `${simulation.task_id}\u0000${simulation.trial}`;
    const first = seen.get(key);
    if (first === undefined) seen.set(key, index);
    else
      problems.push({
        path: `$.simulations[${index}]`,
        message: `task "${simulation.task_id}" trial ${simulation.trial} already occurs at $.simulations[${first}]`,
      });
  });
  return problems;
}

/**
 * Read a results file, or a directory-format run (a folder with `results.json` and
 * `simulations/*.json`, as newer τ² versions write for voice runs).
 */
export function readResultsFile(file: string): ResultsFile {
  if (!existsSync(file)) {
    throw new InvalidInputFileError(
      file,
      [{ path: "(file)", message: "no such file" }],
      "check the path of the results file.",
    );
  }
  if (statSync(file).isDirectory()) return readResultsDirectory(file);
  return parseResults(readInputText(file, "pass a results JSON file saved on disk."), file);
}

function readResultsDirectory(folder: string): ResultsFile {
  const metaFile = path.join(folder, "results.json");
  if (!existsSync(metaFile)) {
    throw new InvalidInputFileError(
      folder,
      [{ path: "(folder)", message: "is a directory without results.json" }],
      "pass a results JSON file, or a τ² run directory holding results.json and simulations/.",
    );
  }
  const meta = parseJsonFile(readInputText(metaFile, RESULTS_HINT), metaFile, RESULTS_HINT);
  const simulationsDir = path.join(folder, "simulations");
  const simulations = existsSync(simulationsDir)
    ? readdirSync(simulationsDir)
        .filter((name) => name.endsWith(".json"))
        .sort()
        .map((name) => {
          const simFile = path.join(simulationsDir, name);
          const hint = "the simulation file is not valid JSON; re-export the run.";
          return parseJsonFile(readInputText(simFile, hint), simFile, hint);
        })
    : [];
  const record = { ...(meta as Record<string, unknown>) };
  delete record.format_version;
  return validateResults({ ...record, simulations }, folder);
}

// ---------------------------------------------------------------------------------------------
// Writing: the official shape. pydantic dumps every field of a model, in declaration order, with
// null for unset optionals; passk writes the same so that files diff cleanly against τ²'s and load
// with `Results.model_validate_json`. Unknown fields are kept, after the known ones.

interface ModelSpec {
  fields: ReadonlyArray<readonly [string, FieldSpec?]>;
  /** Values for fields that are missing and whose pydantic default is not None. */
  defaults?: Readonly<Record<string, unknown>>;
}
type FieldSpec = ModelSpec | { list: ModelSpec | RoleSpec } | RoleSpec;
interface RoleSpec {
  byRole: Readonly<Record<string, ModelSpec>>;
}

const TOOL_CALL: ModelSpec = {
  fields: [["id"], ["name"], ["arguments"], ["requestor"]],
  defaults: { id: "", requestor: "assistant" },
};
const PARTICIPANT: ModelSpec = {
  fields: [
    ["role"],
    ["content"],
    ["tool_calls", { list: TOOL_CALL }],
    ["turn_idx"],
    ["timestamp"],
    ["cost"],
    ["usage"],
    ["raw_data"],
  ],
};
const MESSAGE: RoleSpec = {
  byRole: {
    system: { fields: [["role"], ["content"], ["turn_idx"], ["timestamp"]] },
    assistant: PARTICIPANT,
    user: PARTICIPANT,
    tool: {
      fields: [["id"], ["role"], ["content"], ["requestor"], ["error"], ["turn_idx"], ["timestamp"]],
      defaults: { requestor: "assistant", error: false },
    },
  },
};
const ACTION: ModelSpec = {
  fields: [["action_id"], ["requestor"], ["name"], ["arguments"], ["info"], ["compare_args"]],
  defaults: { requestor: "assistant" },
};
const ENV_ASSERTION: ModelSpec = {
  fields: [["env_type"], ["func_name"], ["arguments"], ["assert_value"], ["message"]],
  defaults: { assert_value: true },
};
const ENV_CALL: ModelSpec = { fields: [["env_type"], ["func_name"], ["arguments"]] };
const TASK: ModelSpec = {
  fields: [
    ["id"],
    ["description", { fields: [["purpose"], ["relevant_policies"], ["notes"]] }],
    [
      "user_scenario",
      {
        fields: [
          ["persona"],
          [
            "instructions",
            {
              fields: [
                ["domain"],
                ["reason_for_call"],
                ["known_info"],
                ["unknown_info"],
                ["task_instructions"],
              ],
            },
          ],
        ],
      },
    ],
    ["ticket"],
    [
      "initial_state",
      {
        fields: [
          ["initialization_data", { fields: [["agent_data"], ["user_data"]] }],
          ["initialization_actions", { list: ENV_CALL }],
          ["message_history", { list: MESSAGE }],
        ],
      },
    ],
    [
      "evaluation_criteria",
      {
        fields: [
          ["actions", { list: ACTION }],
          ["env_assertions", { list: ENV_ASSERTION }],
          ["communicate_info"],
          ["nl_assertions"],
          ["reward_basis"],
        ],
        defaults: { reward_basis: ["DB", "COMMUNICATE"] },
      },
    ],
  ],
};
const REWARD_INFO: ModelSpec = {
  fields: [
    ["reward"],
    ["db_check", { fields: [["db_match"], ["db_reward"]] }],
    ["env_assertions", { list: { fields: [["env_assertion", ENV_ASSERTION], ["met"], ["reward"]] } }],
    [
      "action_checks",
      { list: { fields: [["action", ACTION], ["action_match"], ["action_reward"], ["tool_type"]] } },
    ],
    ["nl_assertions", { list: { fields: [["nl_assertion"], ["met"], ["justification"]] } }],
    ["communicate_checks", { list: { fields: [["info"], ["met"], ["justification"]] } }],
    ["reward_basis"],
    ["reward_breakdown"],
    ["info"],
  ],
};
const SIMULATION: ModelSpec = {
  fields: [
    ["id"],
    ["task_id"],
    ["timestamp"],
    ["start_time"],
    ["end_time"],
    ["duration"],
    ["termination_reason"],
    ["agent_cost"],
    ["user_cost"],
    ["reward_info", REWARD_INFO],
    ["messages", { list: MESSAGE }],
    ["trial"],
    ["seed"],
  ],
};
const INFO: ModelSpec = {
  fields: [
    ["git_commit"],
    ["num_trials"],
    ["max_steps"],
    ["max_errors"],
    ["user_info", { fields: [["implementation"], ["llm"], ["llm_args"], ["global_simulation_guidelines"]] }],
    ["agent_info", { fields: [["implementation"], ["llm"], ["llm_args"]] }],
    ["environment_info", { fields: [["domain_name"], ["policy"], ["tool_defs"]] }],
    ["seed"],
  ],
};
const RESULTS: ModelSpec = {
  fields: [["timestamp"], ["info", INFO], ["tasks", { list: TASK }], ["simulations", { list: SIMULATION }]],
  defaults: { simulations: [] },
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function shapeField(value: unknown, spec: FieldSpec | undefined): unknown {
  if (spec === undefined || value === null || value === undefined) return value ?? null;
  if ("list" in spec) return Array.isArray(value) ? value.map((item) => shapeField(item, spec.list)) : value;
  if ("byRole" in spec) {
    const role = isPlainObject(value) ? value.role : undefined;
    const model = typeof role === "string" ? spec.byRole[role] : undefined;
    return model ? shapeModel(value, model) : value;
  }
  return shapeModel(value, spec);
}

function shapeModel(value: unknown, spec: ModelSpec): unknown {
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [name, child] of spec.fields) {
    out[name] = name in value ? shapeField(value[name], child) : (spec.defaults?.[name] ?? null);
  }
  for (const [name, child] of Object.entries(value)) if (!(name in out)) out[name] = child;
  return out;
}

/** The simulation in the official shape (field order, nulls, and a float-only reward breakdown). */
export function toOfficialSimulation(simulation: SimulationRunInput): Record<string, unknown> {
  const shaped = shapeModel(simulation, SIMULATION) as Record<string, unknown>;
  const rewardInfo = shaped.reward_info;
  if (isPlainObject(rewardInfo) && isPlainObject(rewardInfo.reward_breakdown)) {
    // τ² types the breakdown `dict[RewardType, float]`: a component passk could not evaluate
    // (NL assertions without a judge, kept as null) would make the file unloadable, so it is left out.
    rewardInfo.reward_breakdown = Object.fromEntries(
      Object.entries(rewardInfo.reward_breakdown).filter(([, v]) => v !== null),
    );
  }
  return shaped;
}

/** A whole results value in the official shape. */
export function toOfficialResults(results: ResultsInput): Record<string, unknown> {
  const shaped = shapeModel(results, RESULTS) as Record<string, unknown>;
  shaped.simulations = (results.simulations ?? []).map(toOfficialSimulation);
  return shaped;
}

/**
 * The official results JSON text: pydantic's field order, two-space indent, non-ASCII escaped as
 * Python's `json.dumps` does.
 */
export function formatResults(results: ResultsInput): string {
  // Tool arguments the model wrote as floats (`2.0`) are written as floats: the reference's strict
  // replay prints them into tool outputs (telecom's "2.0 GB").
  return stringifyKeepingPyFloats(toOfficialResults(results), 2).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** Write a results file atomically (a reader never sees half a file). */
export function writeResultsFile(file: string, results: ResultsInput): void {
  writeFileAtomic(file, formatResults(results));
}
