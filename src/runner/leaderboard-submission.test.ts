import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../core/errors.js";
import { validateResults, writeResultsFile, type ResultsInput } from "../formats/tau2/results.js";
import {
  prepareSubmission,
  scoreDomain,
  submissionDirectoryName,
  SubmissionSchema,
  trajectoryFileName,
  validateSubmission,
  type SubmissionMetadata,
  type SubmissionRun,
} from "./leaderboard-submission.js";
import type { RunConfig } from "./run-spec.js";
import { tau2Comparability } from "./tau2-comparability.js";

const TASKS = ["0", "1", "2"];

function config(overrides: Partial<RunConfig> = {}, agent: Partial<RunConfig["agent"]> = {}): RunConfig {
  return {
    kind: "passk-run",
    version: 2,
    domains: ["airline"],
    dataDir: "/nowhere",
    numTrials: 4,
    seed: 300,
    maxSteps: 200,
    maxErrors: 10,
    solo: false,
    protocol: "tau2",
    agent: { model: "openai:gpt-4.1", ...agent },
    user: { model: "openai:gpt-4.1" },
    timeoutSeconds: 120,
    maxRetries: 5,
    maxConcurrency: 3,
    maxAttempts: 4,
    scriptedDemo: false,
    ...overrides,
  };
}

interface RunOptions {
  domain?: string;
  trials?: number;
  tasks?: string[];
  /** Successful trials of each task (default: all). */
  passes?: Record<string, number>;
  config?: RunConfig;
  agentLlm?: string;
  agentArgs?: Record<string, unknown>;
  cost?: { agent: number | null; user: number | null; judge?: number };
}

/** A results value as passk writes it: `trials` trials of each task, the first `passes[task]` successful. */
function run(options: RunOptions = {}): ResultsInput {
  const domain = options.domain ?? "airline";
  const trials = options.trials ?? 4;
  const tasks = options.tasks ?? TASKS;
  const cfg = options.config ?? config({ domains: [domain], numTrials: trials });
  const agentLlm = options.agentLlm ?? cfg.agent.model;
  const cost = options.cost ?? { agent: 0.01, user: 0.002 };
  return {
    timestamp: "2025-06-01T10:00:00.000",
    info: {
      git_commit: "passk 0.1.0",
      num_trials: trials,
      max_steps: 200,
      max_errors: 10,
      user_info: { implementation: "user_simulator", llm: cfg.user.model, llm_args: { temperature: 0 } },
      agent_info: { implementation: "llm_agent", llm: agentLlm, llm_args: options.agentArgs ?? {} },
      environment_info: { domain_name: domain, policy: "be nice", tool_defs: null },
      seed: 300,
      passk: {
        run_id: "r1",
        protocol: cfg.protocol,
        ...(agentLlm.startsWith("scripted:") ? { scripted_demo: true } : {}),
        config: cfg,
      },
    },
    tasks: [],
    simulations: tasks.flatMap((task) =>
      Array.from({ length: trials }, (_, trial) => ({
        id: `${task}-${trial}`,
        task_id: task,
        termination_reason: "user_stop" as const,
        messages: [],
        trial,
        agent_cost: cost.agent,
        user_cost: cost.user,
        reward_info: {
          reward: trial < (options.passes?.[task] ?? trials) ? 1 : 0,
          ...(cost.judge !== undefined ? { info: { judge_cost: cost.judge } } : {}),
        },
      })),
    ),
  };
}

const METADATA: SubmissionMetadata = {
  modelName: "GPT-4.1",
  modelOrganization: "OpenAI",
  contactEmail: "team@example.com",
  submissionDate: "2025-06-02",
};
const base = () => TASKS;
const entry = (results: ResultsInput, label = "run.json"): SubmissionRun => ({
  domain: String((results.info.environment_info as { domain_name: string }).domain_name),
  results,
  label,
});

/** Write a prepared submission as `passk submit prepare` does, and return its directory. */
function writePrepared(inputs: SubmissionRun[], metadata: SubmissionMetadata = METADATA): string {
  const dir = mkdtempSync(path.join(tmpdir(), "passk-submission-"));
  const prepared = prepareSubmission(inputs, metadata, { baseTaskIds: base });
  mkdirSync(path.join(dir, "trajectories"));
  for (const t of prepared.trajectories)
    writeResultsFile(path.join(dir, "trajectories", t.fileName), t.results);
  writeFileSync(path.join(dir, "submission.json"), JSON.stringify(prepared.submission, null, 2));
  return dir;
}

function editSubmission(dir: string, edit: (json: Record<string, unknown>) => void): void {
  const file = path.join(dir, "submission.json");
  const json = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  edit(json);
  writeFileSync(file, JSON.stringify(json, null, 2));
}

describe("tau2Comparability's deviations", () => {
  const deviationsOf = (info: unknown, extra: Partial<Parameters<typeof tau2Comparability>[0]> = {}) =>
    tau2Comparability({ info, taskIds: TASKS, numTrials: 4, rewardInfos: [], ...extra }).deviations;

  it("sorts every way a run departs from the standard setup by its consequence for a submission", () => {
    const info = (cfg: RunConfig, agent = cfg.agent.model, extra: Record<string, unknown> = {}) => ({
      agent_info: { llm: agent },
      passk: { protocol: cfg.protocol, config: cfg, ...extra },
    });
    const cases: Array<[ReturnType<typeof deviationsOf>, string]> = [
      [deviationsOf(info(config(), "scripted:gold")), "scripted-demo"],
      [deviationsOf(info(config({ protocol: "passk" }))), "modified-prompts"],
      [deviationsOf(info(config({}, { model: "module:./agent.ts" }))), "modified-prompts"],
      [deviationsOf(info(config({ agentPromptTemplate: "p.json" }))), "modified-prompts"],
      [deviationsOf(info(config({ toolSpec: "tools.json" }))), "modified-prompts"],
      [
        deviationsOf(info(config(), undefined, { nested_model_descriptions: { airline: "missing" } }), {
          domain: "airline",
        }),
        "modified-prompts",
      ],
      [deviationsOf(info(config({ solo: true }))), "modified-protocol"],
      [deviationsOf(info(config({ maxSteps: 50 }))), "modified-protocol"],
      [deviationsOf(info(config({ maxErrors: 3 }))), "modified-protocol"],
      [deviationsOf(info(config({ numTasks: 2 }))), "task-subset"],
      [deviationsOf(info(config()), { baseTaskIds: [...TASKS, "3"] }), "task-subset"],
      [deviationsOf(info(config()), { baseTaskIds: ["0", "1"] }), "task-subset"],
      [deviationsOf(info(config()), { numTrials: 2 }), "trials"],
      [deviationsOf(info(config()), { numTrials: 1 }), "trials"],
      [
        deviationsOf(info(config()), { rewardInfos: [{ reward_breakdown: { NL_ASSERTION: null } }] }),
        "modified-protocol",
      ],
    ];
    for (const [deviations, kind] of cases) {
      expect(deviations, kind).toHaveLength(1);
      expect(deviations[0]!.kind, deviations[0]!.reason).toBe(kind);
    }
    // The same run with its nested descriptions complete, or judged for another domain, is standard.
    expect(
      deviationsOf(info(config(), undefined, { nested_model_descriptions: { airline: "complete" } }), {
        domain: "airline",
      }),
    ).toEqual([]);
  });
});

describe("scoreDomain", () => {
  it("gives pass^1…pass^4 in percent and the agent's average cost per trajectory, as the reference does", () => {
    const results = validateResults(
      run({ passes: { "0": 4, "1": 2, "2": 4 }, cost: { agent: 0.01, user: 0.002, judge: 0.001 } }),
      "r",
    ).results;
    const score = scoreDomain(results, "airline");
    // Task 1: pass^2 = C(2,2)/C(4,2) = 1/6, so (1 + 1/6 + 1) / 3.
    expect(score.pass.map((p) => p!.toFixed(2))).toEqual(["83.33", "72.22", "66.67", "66.67"]);
    expect(score.pass[0]).toBeCloseTo(250 / 3, 10);
    // τ²'s avg_agent_cost: the customer's and the judge's costs are not the agent's.
    expect(score.cost).toBeCloseTo(0.01, 12);
    expect(score).toMatchObject({ numTrials: 4, k: 4, unknownCosts: 0, nonEvaluable: 0 });
  });

  it("is null beyond the run's K, and null cost when any trajectory's agent cost is unknown", () => {
    const results = validateResults(run({ trials: 2, cost: { agent: null, user: 0.002 } }), "r").results;
    const score = scoreDomain(results, "airline");
    expect(score.pass).toEqual([100, 100, null, null]);
    expect(score.cost).toBeNull();
    expect(score.unknownCosts).toBe(6);
  });

  it("leaves infrastructure errors out of the scores and counts them", () => {
    const input = run({ trials: 1 });
    input.simulations[0]!.termination_reason = "infrastructure_error";
    const score = scoreDomain(validateResults(input, "r").results, "airline");
    expect(score).toMatchObject({ nonEvaluable: 1, evaluable: 2, pass: [100, null, null, null] });
  });
});

describe("names", () => {
  it("names trajectory files <model>_<domain>_default_<user>_<N>trials.json, lower-case and safe", () => {
    expect(trajectoryFileName("My Model/v1", "retail", "openai:gpt-4.1", 4)).toBe(
      "my-model-v1_retail_default_openai-gpt-4.1_4trials.json",
    );
    expect(trajectoryFileName("m_x", "banking_knowledge", "u", 2)).toBe(
      "m-x_banking_knowledge_default_u_2trials.json",
    );
  });

  it("names the leaderboard directory {model_name}_{model_organization}_{date} in [a-z0-9_-]", () => {
    expect(
      submissionDirectoryName({
        model_name: "GPT-4.1",
        model_organization: "Open AI",
        submission_date: "2025-01-15",
      }),
    ).toBe("gpt-4-1_open-ai_2025-01-15");
  });
});

describe("prepareSubmission", () => {
  it("a τ²-comparable run is standard: results in percent, trajectory files, methodology", () => {
    const { submission, trajectories } = prepareSubmission(
      [entry(run({ passes: { "1": 2 } })), entry(run({ domain: "retail" }))],
      { ...METADATA, references: ["https://github.com/example/agent"] },
      { baseTaskIds: base },
    );
    expect(SubmissionSchema.parse(submission)).toEqual(submission);
    expect(submission).toMatchObject({
      model_name: "GPT-4.1",
      submitting_organization: "OpenAI",
      submission_date: "2025-06-02",
      contact_info: { email: "team@example.com" },
      submission_type: "standard",
      trajectories_available: true,
      results: {
        airline: {
          pass_1: expect.closeTo(250 / 3, 10),
          pass_2: expect.closeTo(650 / 9, 10),
          pass_3: expect.closeTo(200 / 3, 10),
          pass_4: expect.closeTo(200 / 3, 10),
          cost: expect.closeTo(0.01, 12),
        },
        retail: { pass_1: 100, pass_4: 100 },
      },
      trajectory_files: {
        airline: "gpt-4.1_airline_default_openai-gpt-4.1_4trials.json",
        retail: "gpt-4.1_retail_default_openai-gpt-4.1_4trials.json",
      },
      references: [{ url: "https://github.com/example/agent", type: "github" }],
      methodology: {
        evaluation_date: "2025-06-01",
        tau2_bench_version: "passk 0.1.0",
        user_simulator: "openai:gpt-4.1",
        verification: { modified_prompts: false, omitted_questions: false },
      },
    });
    expect(submission.methodology?.notes).toMatch(/info\.git_commit/);
    expect(trajectories.map((t) => t.domain)).toEqual(["airline", "retail"]);
  });

  it("fewer than 4 trials stays standard, with pass^k beyond K null and a note", () => {
    const { submission } = prepareSubmission([entry(run({ trials: 2 }))], METADATA, { baseTaskIds: base });
    expect(submission.submission_type).toBe("standard");
    expect(submission.results.airline).toMatchObject({
      pass_1: 100,
      pass_2: 100,
      pass_3: null,
      pass_4: null,
    });
    expect(submission.methodology?.notes).toMatch(/airline has 2 trial\(s\) per task/);
  });

  it("passk's protocol, a custom prompt or a module agent make it custom, with modified_prompts and the reasons", () => {
    for (const cfg of [
      config({ protocol: "passk" }),
      config({ agentPromptTemplate: "prompt.json" }),
      config({}, { model: "module:./agent.ts" }),
    ]) {
      const { submission, deviations } = prepareSubmission([entry(run({ config: cfg }))], METADATA, {
        baseTaskIds: base,
      });
      expect(submission.submission_type).toBe("custom");
      expect(submission.methodology?.verification?.modified_prompts).toBe(true);
      expect(submission.methodology?.notes).toContain(deviations.airline![0]!.reason);
    }
  });

  it("a task subset is marked omitted_questions", () => {
    const { submission } = prepareSubmission([entry(run({ tasks: ["0"] }))], METADATA, { baseTaskIds: base });
    expect(submission.methodology?.verification?.omitted_questions).toBe(true);
    expect(submission.methodology?.notes).toMatch(/2 of 3 base-split tasks not run/);
  });

  it("a scripted demo prepares, and its notes say plainly that it is not a model's score", () => {
    const { submission } = prepareSubmission([entry(run({ agentLlm: "scripted:gold" }))], METADATA, {
      baseTaskIds: base,
    });
    expect(submission.methodology?.notes).toMatch(/^SCRIPTED DEMO: .*not a model's score/);
    expect(submission.submission_type).toBe("custom");
  });

  it("refuses two runs of one domain, a domain off the leaderboard, and bad metadata, naming them", () => {
    const twice = () => prepareSubmission([entry(run(), "a.json"), entry(run(), "b.json")], METADATA);
    expect(twice).toThrow(ConfigError);
    expect(twice).toThrow(/a\.json and b\.json are both airline runs/);
    expect(() => prepareSubmission([entry(run({ domain: "mock" }))], METADATA)).toThrow(
      /is a mock run, and the leaderboard ranks only/,
    );
    expect(() => prepareSubmission([entry(run())], { ...METADATA, contactEmail: "nope" })).toThrow(
      /contact_info\.email: expected an email address; fix --contact-email/,
    );
    expect(() => prepareSubmission([entry(run())], { ...METADATA, submissionDate: "June 2" })).toThrow(
      /fix --submission-date/,
    );
    expect(() => prepareSubmission([], METADATA)).toThrow(/no runs to submit/);
  });

  it("banking_knowledge needs its retrieval method, and gets it in its results", () => {
    const banking = entry(run({ domain: "banking_knowledge" }));
    expect(() => prepareSubmission([banking], METADATA)).toThrow(/--retrieval-config/);
    const { submission } = prepareSubmission([banking], { ...METADATA, retrievalConfig: "bm25" });
    expect(submission.results.banking_knowledge?.retrieval_config).toBe("bm25");
  });
});

describe("SubmissionSchema", () => {
  it("requires retrieval_config for banking_knowledge and release_date with an announcement_url", () => {
    const minimal = {
      model_name: "m",
      model_organization: "o",
      submitting_organization: "o",
      submission_date: "2025-01-15",
      contact_info: { email: "a@b.co" },
      results: { banking_knowledge: { pass_1: 10 } },
      model_release: { announcement_url: "https://example.com" },
    };
    const issues = SubmissionSchema.safeParse(minimal).error?.issues.map((i) => i.path.join("."));
    expect(issues).toEqual(["model_release.release_date", "results.banking_knowledge.retrieval_config"]);
    expect(
      SubmissionSchema.parse({ ...minimal, results: { retail: { pass_1: 10 } }, model_release: {} }),
    ).toMatchObject({
      submission_type: "standard",
      modality: "text",
      is_new: false,
      trajectories_available: false,
    });
  });
});

describe("validateSubmission", () => {
  it("accepts what prepareSubmission wrote", () => {
    const dir = writePrepared([entry(run()), entry(run({ domain: "retail" }))], {
      ...METADATA,
      modelName: "openai:gpt-4.1",
      references: ["https://example.com"],
    });
    const { errors, warnings } = validateSubmission(dir, { baseTaskIds: base });
    expect(errors).toEqual([]);
    expect(warnings).toEqual([
      "submission.json results cover retail, airline; the leaderboard recommends all text domains (retail, airline, telecom, banking_knowledge).",
    ]);
  });

  it("names a submitted number that the trajectories do not give", () => {
    const dir = writePrepared([entry(run())]);
    editSubmission(dir, (json) => {
      const results = json.results as Record<string, Record<string, number>>;
      results.airline!.pass_1 = 42;
      results.airline!.cost = 0.5;
    });
    const { errors } = validateSubmission(dir, { baseTaskIds: base });
    expect(errors).toEqual([
      expect.stringMatching(
        /^submission\.json results\.airline\.pass_1 is 42 but trajectories\/\S+ gives 100\.00/,
      ),
      expect.stringMatching(
        /^submission\.json results\.airline\.cost is 0\.5 but .* gives 0\.0(1|09+\d) USD/,
      ),
    ]);
  });

  it("tolerates 0.01 points of rounding, with the reference's warning that the value is not exact", () => {
    const dir = writePrepared([entry(run({ passes: { "1": 2 } }))]);
    editSubmission(dir, (json) => {
      (json.results as Record<string, Record<string, number>>).airline!.pass_1 = 83.34;
    });
    const { errors, warnings } = validateSubmission(dir, { baseTaskIds: base });
    expect(errors).toEqual([]);
    expect(warnings).toContainEqual(
      expect.stringMatching(
        /^submission\.json results\.airline\.pass_1 is 83\.34, not exactly the 83\.333\d* the reference computes/,
      ),
    );
  });

  describe("every warning of the reference's `tau2 submit validate`", () => {
    const reported = (edit?: (json: Record<string, unknown>) => void, modelName = "openai:gpt-4.1") => {
      const dir = writePrepared([entry(run())], { ...METADATA, modelName });
      if (edit) editSubmission(dir, edit);
      return validateSubmission(dir, { baseTaskIds: base }).warnings;
    };
    const COVERAGE = expect.stringMatching(
      /^submission\.json results cover airline; the leaderboard recommends/,
    );

    it("none beyond domain coverage on what prepare wrote with the trajectories' model name", () => {
      expect(reported()).toEqual([COVERAGE]);
    });

    it("the model name differs from the model of the trajectories", () => {
      expect(reported(undefined, "gpt-4.1")).toContain(
        "submission.json model_name is \"gpt-4.1\" but the trajectories' agent model is openai:gpt-4.1 (info.agent_info.llm); the reference's validation warns that they do not match — name the model as the trajectories record it.",
      );
    });

    it("the user simulator differs, or is not given", () => {
      const differs = reported((json) => {
        (json.methodology as Record<string, unknown>).user_simulator = "gpt-4.1";
      });
      expect(differs).toContainEqual(
        expect.stringMatching(
          /^submission\.json methodology\.user_simulator is "gpt-4\.1" but the trajectories' user simulator is openai:gpt-4\.1/,
        ),
      );
      const missing = reported((json) => {
        delete (json.methodology as Record<string, unknown>).user_simulator;
      });
      expect(missing).toContainEqual(
        expect.stringMatching(/user_simulator is not given but the trajectories'/),
      );
    });

    it("a domain's cost differs from the agent's average cost, or is missing", () => {
      const results = (json: Record<string, unknown>) =>
        (json.results as Record<string, Record<string, number>>).airline!;
      expect(reported((json) => void (results(json).cost = 0.010001))).toContainEqual(
        expect.stringMatching(
          /^submission\.json results\.airline\.cost is 0\.010001, not exactly the 0\.0(1|09+\d) USD/,
        ),
      );
      expect(reported((json) => void delete results(json).cost)).toContainEqual(
        expect.stringMatching(
          /^submission\.json results\.airline\.cost is not given though .* gives 0\.0(1|09+\d) USD/,
        ),
      );
    });

    it("a domain's pass^k is missing", () => {
      expect(
        reported(
          (json) => void delete (json.results as Record<string, Record<string, number>>).airline!.pass_2,
        ),
      ).toContainEqual(
        expect.stringMatching(/^submission\.json results\.airline\.pass_2 is not given though/),
      );
    });
  });

  it("a task subset is an error naming how many and which tasks are missing", () => {
    const dir = writePrepared([entry(run({ tasks: ["0"] }))]);
    const { errors } = validateSubmission(dir, { baseTaskIds: base });
    expect(errors).toEqual([
      expect.stringMatching(/\(airline\) is missing 2 of the 3 base-split tasks \(1, 2\)/),
    ]);
  });

  it("without the data, a subset is told by the run's recorded selection", () => {
    const cfg = config({ numTasks: 1 });
    const dir = writePrepared([entry(run({ tasks: ["0"], config: cfg }))]);
    expect(validateSubmission(dir).errors).toEqual([expect.stringMatching(/is a task subset/)]);
  });

  it("fewer than 4 trials is a warning, not an error", () => {
    const dir = writePrepared([entry(run({ trials: 2 }))]);
    const { errors, warnings } = validateSubmission(dir, { baseTaskIds: base });
    expect(errors).toEqual([]);
    expect(warnings).toContainEqual(
      expect.stringMatching(/has 2 trials per task; the leaderboard strongly prefers 4 or more/),
    );
  });

  it("submission_type standard is an error for a run under passk's protocol", () => {
    const dir = writePrepared([entry(run({ config: config({ protocol: "passk" }) }))]);
    editSubmission(dir, (json) => {
      json.submission_type = "standard";
      (json.methodology as { verification: { modified_prompts: boolean } }).verification.modified_prompts =
        false;
    });
    const { errors } = validateSubmission(dir, { baseTaskIds: base });
    expect(errors).toEqual([
      expect.stringMatching(
        /^submission\.json submission_type is "standard" but the runs changed.*passk's protocol/,
      ),
      expect.stringMatching(/^submission\.json methodology\.verification\.modified_prompts is not true/),
    ]);
  });

  it("a custom submission needs notes; references empty is a warning", () => {
    const dir = writePrepared([entry(run({ config: config({ protocol: "passk" }) }))]);
    editSubmission(dir, (json) => {
      (json.methodology as { notes: string }).notes = "";
    });
    const { errors, warnings } = validateSubmission(dir, { baseTaskIds: base });
    expect(errors).toEqual([expect.stringMatching(/methodology\.notes is empty/)]);
    expect(warnings).toContainEqual(expect.stringMatching(/references is empty/));
  });

  it("a scripted demo validates with a warning that it is not a model's score", () => {
    const dir = writePrepared([entry(run({ agentLlm: "scripted:gold" }))]);
    const { errors, warnings } = validateSubmission(dir, { baseTaskIds: base });
    expect(errors).toEqual([]);
    expect(warnings).toContainEqual(expect.stringMatching(/is a scripted demo .* not a model's score/));
  });

  it("trajectory files must match the mapping, name their domain, and use the same models", () => {
    const dir = writePrepared([
      entry(run()),
      entry(run({ domain: "retail", agentArgs: { temperature: 1 } })),
    ]);
    writeFileSync(path.join(dir, "trajectories", "stray.json"), "{}");
    const { errors } = validateSubmission(dir, { baseTaskIds: base });
    expect(errors).toEqual([
      expect.stringMatching(/^trajectories\/stray\.json is not listed in submission\.json trajectory_files/),
      expect.stringMatching(
        /^trajectories\/\S+retail\S+ has agent openai:gpt-4\.1 with llm_args \{"temperature":1\} but .* has openai:gpt-4\.1 with \{\}/,
      ),
    ]);

    const swapped = writePrepared([entry(run()), entry(run({ domain: "retail" }))]);
    editSubmission(swapped, (json) => {
      const files = json.trajectory_files as Record<string, string>;
      [files.airline, files.retail] = [files.retail!, files.airline!];
    });
    expect(validateSubmission(swapped, { baseTaskIds: base }).errors).toEqual([
      expect.stringMatching(
        /is a retail run \(info\.environment_info\.domain_name\) but is listed under trajectory_files\.airline/,
      ),
      expect.stringMatching(/is a airline run .* listed under trajectory_files\.retail/),
    ]);

    const missing = writePrepared([entry(run())]);
    editSubmission(missing, (json) => {
      (json.trajectory_files as Record<string, string>).airline = "gone.json";
    });
    expect(validateSubmission(missing).errors).toEqual([
      "submission.json trajectory_files.airline names trajectories/gone.json, which does not exist; add the file or fix the name.",
      expect.stringMatching(/^trajectories\/\S+ is not listed in submission\.json trajectory_files/),
    ]);
  });

  it("names schema problems by field, and a missing or unreadable submission.json", () => {
    const dir = writePrepared([entry(run())]);
    editSubmission(dir, (json) => {
      delete json.model_name;
      json.submission_date = "15/01/2025";
    });
    expect(validateSubmission(dir).errors).toEqual([
      expect.stringMatching(/^submission\.json \$\.model_name: /),
      "submission.json $.submission_date: expected a date YYYY-MM-DD.",
    ]);
    const empty = mkdtempSync(path.join(tmpdir(), "passk-submission-"));
    expect(validateSubmission(empty).errors).toEqual([
      `submission.json is missing from ${empty}; run passk submit prepare to write it.`,
    ]);
    writeFileSync(path.join(empty, "submission.json"), "{");
    expect(validateSubmission(empty).errors).toEqual([
      expect.stringMatching(/^submission\.json is not valid JSON/),
    ]);
  });

  it("a broken trajectory file is named", () => {
    const dir = writePrepared([entry(run())]);
    const [name] = Object.values(
      JSON.parse(readFileSync(path.join(dir, "submission.json"), "utf8")).trajectory_files as Record<
        string,
        string
      >,
    );
    writeFileSync(path.join(dir, "trajectories", name!), JSON.stringify({ info: {}, tasks: [] }));
    expect(validateSubmission(dir).errors).toEqual([
      expect.stringMatching(
        new RegExp(
          `^trajectories/${name!.replace(/\./g, "\\.")} is not a valid τ²-bench results file \\(1 problem, first \\$\\.simulations`,
        ),
      ),
    ]);
  });
});
