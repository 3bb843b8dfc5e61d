import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { ConfigError, InvalidInputFileError, PasskError } from "../core/errors.js";
import type { Results } from "../core/simulation.js";
import { jsonPath } from "../core/zod-problems.js";
import { readResultsFile, validateResults, type ResultsInput } from "../formats/tau2/results.js";
import {
  computeMetrics,
  scoredSimulations,
  taskOutcomes,
  type ScoredSimulation,
} from "../metrics/run-metrics.js";
import { NON_EVALUABLE_TERMINATIONS } from "../core/simulation.js";
import type { GradingCoverage } from "../metrics/coverage.js";
import { tau2Comparability, type Deviation, type DeviationKind } from "./tau2-comparability.js";

export type { Deviation, DeviationKind };

// The τ²-bench leaderboard's submission format (its docs/leaderboard-submission.md, text track) and
// the checks its maintainers run on a submission: what `passk submit prepare` writes and
// `passk submit validate` checks.

/** The text-track domains the leaderboard ranks. */
export const LEADERBOARD_DOMAINS = ["retail", "airline", "telecom", "banking_knowledge"] as const;
export type LeaderboardDomain = (typeof LEADERBOARD_DOMAINS)[number];

/** Trials per task the leaderboard asks for ("strongly preferred"). */
export const LEADERBOARD_TRIALS = 4;

const isLeaderboardDomain = (name: string): name is LeaderboardDomain =>
  (LEADERBOARD_DOMAINS as readonly string[]).includes(name);

const DateSchema = z.iso.date({ error: "expected a date YYYY-MM-DD" });
const PercentSchema = z
  .number({ error: "expected a percentage (0–100) or null" })
  .min(0, { error: "a percentage is at least 0" })
  .max(100, { error: "a percentage is at most 100 (pass^k is given in percent)" })
  .nullable();

export const DomainResultSchema = z.strictObject({
  pass_1: PercentSchema.optional(),
  pass_2: PercentSchema.optional(),
  pass_3: PercentSchema.optional(),
  pass_4: PercentSchema.optional(),
  cost: z
    .number({ error: "expected the average cost per trajectory in USD, or null" })
    .min(0, { error: "a cost is not negative" })
    .nullable()
    .optional(),
  retrieval_config: z.string().min(1).optional(),
});
export type DomainResult = z.infer<typeof DomainResultSchema>;

export const ReferenceSchema = z.object({
  title: z.string().min(1),
  url: z.url({ error: "expected a URL" }),
  type: z
    .enum(["paper", "blog_post", "documentation", "model_card", "github", "huggingface", "other"])
    .optional(),
});
export type Reference = z.infer<typeof ReferenceSchema>;

/** `submission.json` as the leaderboard's schema reference describes it (text modality). */
export const SubmissionSchema = z
  .object({
    model_name: z.string().min(1),
    model_organization: z.string().min(1),
    submitting_organization: z.string().min(1),
    submission_date: DateSchema,
    contact_info: z
      .object({
        email: z.email({ error: "expected an email address" }).optional(),
        name: z.string().min(1).optional(),
        github: z.string().min(1).optional(),
      })
      .refine((c) => c.email !== undefined || c.name !== undefined || c.github !== undefined, {
        error: "give at least one of email, name, github",
      }),
    results: z
      .strictObject({
        retail: DomainResultSchema.optional(),
        airline: DomainResultSchema.optional(),
        telecom: DomainResultSchema.optional(),
        banking_knowledge: DomainResultSchema.optional(),
      })
      .refine((r) => Object.values(r).some((v) => v !== undefined), {
        error: `give the results of at least one domain (${LEADERBOARD_DOMAINS.join(", ")})`,
      }),
    submission_type: z.enum(["standard", "custom"]).default("standard"),
    modality: z
      .literal("text", { error: 'passk prepares and validates text submissions only (modality "text")' })
      .default("text"),
    is_new: z.boolean().default(false),
    trajectories_available: z.boolean().default(false),
    trajectory_files: z.partialRecord(z.enum(LEADERBOARD_DOMAINS), z.string().min(1)).optional(),
    references: z.array(ReferenceSchema).optional(),
    methodology: z
      .object({
        evaluation_date: DateSchema.optional(),
        tau2_bench_version: z.string().optional(),
        user_simulator: z.string().nullable().optional(),
        notes: z.string().optional(),
        verification: z
          .object({
            modified_prompts: z.boolean().nullable().optional(),
            omitted_questions: z.boolean().nullable().optional(),
            details: z.string().optional(),
          })
          .optional(),
      })
      .optional(),
    model_release: z
      .object({
        release_date: DateSchema.optional(),
        announcement_url: z.url().optional(),
        announcement_title: z.string().optional(),
      })
      .refine((m) => m.announcement_url === undefined || m.release_date !== undefined, {
        error: "release_date is required when announcement_url is given",
        path: ["release_date"],
      })
      .optional(),
    reasoning_effort: z.string().optional(),
  })
  .superRefine((submission, ctx) => {
    const banking = submission.results.banking_knowledge;
    if (banking && banking.retrieval_config === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["results", "banking_knowledge", "retrieval_config"],
        message: "banking_knowledge results need the retrieval method used (e.g. alltools, bm25)",
      });
  });
export type Submission = z.infer<typeof SubmissionSchema>;
export type SubmissionInput = z.input<typeof SubmissionSchema>;

const KNOWN_FIELDS = new Set([
  ...Object.keys(SubmissionSchema.shape),
  // Voice-track fields: known to the leaderboard, not checked here (text only).
  "voice_config",
  "interaction_metrics",
]);

// ---------------------------------------------------------------------------------------------
// What a run shows about the leaderboard's conditions.

interface InfoView {
  git_commit?: unknown;
  num_trials?: unknown;
  agent_info?: { llm?: unknown; implementation?: unknown; llm_args?: unknown } | null;
  user_info?: { llm?: unknown; implementation?: unknown; llm_args?: unknown } | null;
  environment_info?: { domain_name?: unknown } | null;
  passk?: { scripted_demo?: unknown; upstream_commit?: unknown } | null;
}

const infoOf = (results: Results | ResultsInput): InfoView => (results.info ?? {}) as InfoView;
const text = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined;

/** Whether scripted participants (`scripted:gold`) played the run: a harness demo, not a model. */
export function isScriptedDemoResults(results: Results | ResultsInput): boolean {
  const info = infoOf(results);
  const agent = info.agent_info;
  return (
    info.passk?.scripted_demo === true ||
    [agent?.llm, agent?.implementation].some((v) => typeof v === "string" && v.startsWith("scripted:"))
  );
}

/** What a domain's trajectories give on the leaderboard: pass^1…pass^4 in percent, average cost. */
export interface DomainScore {
  /** pass^1…pass^4 in percent, unrounded as the reference computes them; null beyond the run's K. */
  pass: [number | null, number | null, number | null, number | null];
  /** The agent's average cost per trajectory in USD (τ²'s `avg_agent_cost`); null when a price is unknown. */
  cost: number | null;
  /** Trials per task the run asked for (else the most any task has). */
  numTrials: number;
  /** τ²'s K: trials per task the pass^k are computed over. */
  k: number;
  /** Evaluable trajectories whose agent cost is unknown (a model without a price). */
  unknownCosts: number;
  /** Simulations that ended in an infrastructure error (left out of every score). */
  nonEvaluable: number;
  evaluable: number;
}

const scored = (results: Results, domain: string): ScoredSimulation[] =>
  scoredSimulations(results.simulations, domain);

/** The leaderboard's numbers of one domain's results, as the trajectories give them. */
export function scoreDomain(results: Results, domain: string): DomainScore {
  const simulations = scored(results, domain);
  const recorded = results.info.num_trials ?? null;
  const metrics = computeMetrics(simulations, { numTrials: recorded, bootstrap: { resamples: 0 } });
  const outcomes = taskOutcomes(simulations);
  const k = Object.keys(metrics.pass_hat_ks).length;
  // Exactly the reference's figures (`tau2 submit validate` compares them for equality): pass^k in
  // percent unrounded, and τ²'s average agent cost.
  const pass = [1, 2, 3, 4].map((i) => {
    const value = metrics.pass_hat_ks[i];
    return value === undefined ? null : value * 100;
  }) as DomainScore["pass"];
  const evaluable = results.simulations.filter((s) => !NON_EVALUABLE_TERMINATIONS.has(s.termination_reason));
  const unknownCosts = metrics.unknown_agent_costs;
  // An average that skipped unpriced trajectories would undercount: any unknown cost makes it unknown.
  const cost =
    unknownCosts > 0 || metrics.avg_agent_cost === null || Number.isNaN(metrics.avg_agent_cost)
      ? null
      : metrics.avg_agent_cost;
  return {
    pass,
    cost,
    numTrials: recorded ?? Math.max(0, ...outcomes.map((o) => o.trials)),
    k,
    unknownCosts,
    nonEvaluable: results.simulations.length - evaluable.length,
    evaluable: evaluable.length,
  };
}

/** The ways a domain's run departs from the leaderboard's standard setup (empty: standard). */
export function runDeviations(results: Results, baseTaskIds?: readonly string[]): Deviation[] {
  const environment = results.info.environment_info as { domain_name?: unknown } | null | undefined;
  const comparability = tau2Comparability({
    ...(typeof environment?.domain_name === "string" ? { domain: environment.domain_name } : {}),
    info: results.info,
    taskIds: results.simulations.map((s) => s.task_id),
    numTrials: results.info.num_trials ?? null,
    rewardInfos: results.simulations.map((s) => s.reward_info),
    ...(baseTaskIds ? { baseTaskIds } : {}),
  });
  const deviations = [...comparability.deviations];
  if (isScriptedDemoResults(results) && !deviations.some((d) => d.kind === "scripted-demo"))
    deviations.unshift({ kind: "scripted-demo", reason: "a scripted demo (scripted:gold), not a model" });
  return deviations;
}

/** Whether deviations of this kind make a submission custom (trials and subsets have their own rules). */
const makesCustom = (kind: DeviationKind) =>
  kind === "modified-prompts" || kind === "modified-protocol" || kind === "scripted-demo";

// ---------------------------------------------------------------------------------------------
// Prepare.

/** One domain's run to submit: a τ² results value and a name for it in messages. */
export interface SubmissionRun {
  domain: string;
  results: ResultsInput;
  /** e.g. the file name or `run <id> (airline)`. */
  label: string;
}

export interface SubmissionMetadata {
  modelName: string;
  modelOrganization: string;
  /** Default: the model organization. */
  submittingOrganization?: string;
  contactEmail: string;
  contactName?: string;
  /** YYYY-MM-DD; default today. */
  submissionDate?: string;
  /** Your notes, put before the ones passk writes. */
  notes?: string;
  /** Links to the model, paper or implementation (a URL, or a full reference). */
  references?: ReadonlyArray<string | Reference>;
  /** banking_knowledge only: the retrieval method (`alltools`, `bm25`…). */
  retrievalConfig?: string;
}

export interface PrepareOptions {
  /** The ids of a domain's base split, when its data is at hand (to tell a subset exactly). */
  baseTaskIds?: (domain: string) => readonly string[] | undefined;
  /** Today, for the default submission date. */
  today?: Date;
}

export interface PreparedTrajectory {
  domain: LeaderboardDomain;
  fileName: string;
  results: ResultsInput;
}

export interface PreparedSubmission {
  submission: Submission;
  trajectories: PreparedTrajectory[];
  /** Per domain, why the run is not the standard setup (empty when it is). */
  deviations: Record<string, Deviation[]>;
  /** Per domain, how many of its conversations the scores cover (infrastructure errors are not graded). */
  coverage: Record<string, GradingCoverage>;
}

/**
 * A name part of lower-case letters, digits and `keep`, anything else `-` (no runs, no `-` or `.` at
 * its ends: a model name like `../../x` must not make a hidden file the validator then refuses).
 */
function safePart(value: string, keep: RegExp): string {
  const safe = [...value.toLowerCase()]
    .map((c) => (keep.test(c) ? c : "-"))
    .join("")
    .replace(/-{2,}/g, "-")
    .replace(/^[-.]+|[-.]+$/g, "");
  return safe === "" ? "unnamed" : safe;
}

/** `<model>_<domain>_default_<user-model>_<N>trials.json`, as the guide's examples name them. */
export function trajectoryFileName(modelName: string, domain: string, userModel: string, trials: number) {
  // `_` separates the parts, so it is kept only in the domain (banking_knowledge).
  const part = (value: string) => safePart(value, /[a-z0-9.-]/);
  return `${part(modelName)}_${safePart(domain, /[a-z0-9_-]/)}_default_${part(userModel)}_${trials}trials.json`;
}

/** The leaderboard directory name `{model_name}_{model_organization}_{date}` ([a-z0-9_-] only). */
export function submissionDirectoryName(
  submission: Pick<Submission, "model_name" | "model_organization" | "submission_date">,
) {
  const part = (value: string) => safePart(value, /[a-z0-9-]/);
  return `${part(submission.model_name)}_${part(submission.model_organization)}_${submission.submission_date}`;
}

export function localDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

export function referenceOf(value: string | Reference): Reference {
  if (typeof value !== "string") return value;
  let host = "";
  try {
    host = new URL(value).hostname.replace(/^www\./, "");
  } catch {
    // Not a URL: the schema check below names it.
  }
  const type: Reference["type"] =
    host === "github.com"
      ? "github"
      : host === "huggingface.co"
        ? "huggingface"
        : host === "arxiv.org"
          ? "paper"
          : "other";
  return { title: value.replace(/^https?:\/\//, "").replace(/\/$/, ""), url: value, type };
}

/** The flag that sets a submission.json field, to name in errors about the metadata. */
const FLAG_OF_FIELD: Record<string, string> = {
  model_name: "--model-name",
  model_organization: "--model-organization",
  submitting_organization: "--submitting-organization",
  submission_date: "--submission-date",
  "contact_info.email": "--contact-email",
  "contact_info.name": "--contact-name",
  references: "--reference",
};

function flagOf(issuePath: readonly PropertyKey[]): string | undefined {
  const dotted = issuePath.filter((p) => typeof p === "string").join(".");
  if (dotted.endsWith("retrieval_config")) return "--retrieval-config";
  return FLAG_OF_FIELD[dotted] ?? (dotted.startsWith("references") ? "--reference" : undefined);
}

const list = (items: readonly string[]) => items.join("; ");

/**
 * Build a leaderboard submission from one run per domain: submission.json (results, trajectory file
 * names, methodology) and the trajectory files to write beside it. Throws a ConfigError for inputs it
 * cannot submit at all (two runs of one domain, a domain the leaderboard does not rank, bad metadata);
 * runs that break the leaderboard's rules (a task subset, few trials) still prepare, and say so in
 * methodology, for `validateSubmission` to report.
 */
/** The retrieval config a passk run recorded in its results (`info.passk.retrieval_config`). */
function recordedRetrievalConfig(results: ResultsInput): string | undefined {
  const passk = (results.info as { passk?: { retrieval_config?: unknown } } | undefined)?.passk;
  return typeof passk?.retrieval_config === "string" ? passk.retrieval_config : undefined;
}

export function prepareSubmission(
  inputs: readonly SubmissionRun[],
  metadata: SubmissionMetadata,
  options: PrepareOptions = {},
): PreparedSubmission {
  if (inputs.length === 0)
    throw new ConfigError("no runs to submit: pass one results file or run id per domain.");
  const byDomain = new Map<string, SubmissionRun>();
  for (const input of inputs) {
    if (!isLeaderboardDomain(input.domain))
      throw new ConfigError(
        `${input.label} is a ${input.domain} run, and the leaderboard ranks only ${LEADERBOARD_DOMAINS.join(", ")}; leave it out.`,
      );
    const earlier = byDomain.get(input.domain);
    if (earlier)
      throw new ConfigError(
        `${earlier.label} and ${input.label} are both ${input.domain} runs, and the leaderboard takes one result per domain; pass only one of them.`,
      );
    byDomain.set(input.domain, input);
  }
  // The retrieval config a passk run recorded; --retrieval-config may only repeat it.
  const banking = byDomain.get("banking_knowledge");
  const recorded = banking ? recordedRetrievalConfig(banking.results) : undefined;
  if (banking && recorded && metadata.retrievalConfig && metadata.retrievalConfig !== recorded)
    throw new ConfigError(
      `${banking.label} ran with retrieval config ${recorded}, not ${metadata.retrievalConfig}; leave --retrieval-config out (the run's is used) or pass ${recorded}.`,
    );
  const retrievalConfig = metadata.retrievalConfig ?? recorded;
  if (banking && !retrievalConfig)
    throw new ConfigError(
      "banking_knowledge results need the retrieval method the run used; pass --retrieval-config NAME (e.g. alltools, bm25).",
    );

  const results: Partial<Record<LeaderboardDomain, DomainResult>> = {};
  const trajectoryFiles: Partial<Record<LeaderboardDomain, string>> = {};
  const trajectories: PreparedTrajectory[] = [];
  const deviations: Record<string, Deviation[]> = {};
  const coverage: Record<string, GradingCoverage> = {};
  const versions = new Set<string>();
  const upstreamCommits = new Set<string>();
  const userModels = new Set<string>();
  const dates: string[] = [];
  const trialNotes: string[] = [];
  const costNotes: string[] = [];
  let scriptedDemo = false;

  for (const [name, input] of byDomain) {
    const domain = name as LeaderboardDomain;
    const recordedDomain = text(infoOf(input.results).environment_info?.domain_name);
    if (recordedDomain !== undefined && recordedDomain !== domain)
      throw new ConfigError(
        `${input.label} records domain ${recordedDomain} (info.environment_info.domain_name) but was given as ${domain}; pass the ${domain} results.`,
      );
    const validated = validateResults(input.results, input.label).results;
    const score = scoreDomain(validated, domain);
    if (score.evaluable === 0)
      throw new ConfigError(
        `${input.label} has no evaluable simulations (none, or only infrastructure errors); finish the run (passk run --resume) before submitting it.`,
      );
    coverage[domain] = { graded: score.evaluable, total: score.evaluable + score.nonEvaluable };
    const info = infoOf(validated);
    const base = options.baseTaskIds?.(domain);
    deviations[domain] = runDeviations(validated, base);
    if (isScriptedDemoResults(validated)) scriptedDemo = true;

    const userModel = text(info.user_info?.llm) ?? text(info.user_info?.implementation) ?? "unknown-user";
    userModels.add(userModel);
    const version = text(info.git_commit);
    if (version) versions.add(version);
    const upstream = text(info.passk?.upstream_commit);
    if (upstream) upstreamCommits.add(upstream);
    const date = /^\d{4}-\d{2}-\d{2}/.exec(validated.timestamp ?? "")?.[0];
    if (date) dates.push(date);
    if (score.numTrials < LEADERBOARD_TRIALS)
      trialNotes.push(`${domain} has ${score.numTrials} trial(s) per task`);
    if (score.cost === null)
      costNotes.push(
        `${domain}: cost unknown (${score.unknownCosts} of ${score.evaluable} trajectories have no price)`,
      );

    const [pass_1, pass_2, pass_3, pass_4] = score.pass;
    results[domain] = {
      pass_1,
      pass_2,
      pass_3,
      pass_4,
      cost: score.cost,
      ...(domain === "banking_knowledge" ? { retrieval_config: retrievalConfig } : {}),
    };
    const fileName = trajectoryFileName(metadata.modelName, domain, userModel, score.numTrials);
    trajectoryFiles[domain] = fileName;
    // The file must name its domain: validation (ours and the maintainers') matches it to its key.
    const environment = { ...(input.results.info.environment_info ?? {}), domain_name: domain };
    trajectories.push({
      domain,
      fileName,
      results: { ...input.results, info: { ...input.results.info, environment_info: environment } },
    });
  }

  const all = Object.entries(deviations).flatMap(([domain, ds]) => ds.map((d) => ({ domain, ...d })));
  const custom = all.filter((d) => makesCustom(d.kind));
  const modifiedPrompts = all.some((d) => d.kind === "modified-prompts");
  const omitted = all.some((d) => d.kind === "task-subset");
  const submissionType = custom.length > 0 ? "custom" : "standard";

  const describe = (items: typeof all) => list(items.map((d) => `${d.domain}: ${d.reason}`));
  const notes: string[] = [];
  if (metadata.notes?.trim()) notes.push(metadata.notes.trim());
  if (scriptedDemo)
    notes.push(
      "SCRIPTED DEMO: scripted:gold played the tasks' gold actions, so these numbers show that the harness works and are not a model's score; do not submit them to the leaderboard.",
    );
  const versionText = [...versions].join(", ") || "passk (version not recorded)";
  const upstreamText =
    upstreamCommits.size > 0 ? ` with the texts of τ²-bench commit ${[...upstreamCommits].join(", ")}` : "";
  notes.push(
    `Evaluated with ${versionText}, a TypeScript re-implementation of τ²-bench${upstreamText}; ` +
      "tau2_bench_version holds that version (the results' info.git_commit), not a τ²-bench release, which is not known.",
  );
  if (custom.length > 0) notes.push(`Custom setup: ${describe(custom)}.`);
  if (omitted) notes.push(`Task subset: ${describe(all.filter((d) => d.kind === "task-subset"))}.`);
  if (trialNotes.length > 0)
    notes.push(`Fewer than ${LEADERBOARD_TRIALS} trials: ${list(trialNotes)}; pass^k beyond that is null.`);
  notes.push(
    costNotes.length > 0
      ? `Cost is the average per trajectory of agent + user (+ NL judge) cost in USD from passk's price table; ${list(costNotes)}.`
      : "Cost is the average per trajectory of agent + user (+ NL judge) cost in USD, from passk's price table.",
  );

  const details =
    custom.length === 0 && !omitted
      ? `Every task of each domain's base split under τ²'s protocol and texts, default agent and user simulator${
          trialNotes.length > 0 ? ` (${list(trialNotes)})` : ""
        }.`
      : `Not the standard setup: ${describe(all.filter((d) => d.kind !== "trials"))}.`;

  const candidate: SubmissionInput = {
    model_name: metadata.modelName,
    model_organization: metadata.modelOrganization,
    submitting_organization: metadata.submittingOrganization ?? metadata.modelOrganization,
    submission_date: metadata.submissionDate ?? localDate(options.today ?? new Date()),
    contact_info: {
      email: metadata.contactEmail,
      ...(metadata.contactName ? { name: metadata.contactName } : {}),
    },
    results,
    submission_type: submissionType,
    modality: "text",
    is_new: true,
    trajectories_available: true,
    trajectory_files: trajectoryFiles,
    ...(metadata.references && metadata.references.length > 0
      ? { references: metadata.references.map(referenceOf) }
      : {}),
    methodology: {
      ...(dates.length > 0 ? { evaluation_date: dates.sort().at(-1)! } : {}),
      tau2_bench_version: versionText,
      user_simulator: [...userModels].join(", "),
      notes: notes.join(" "),
      verification: {
        modified_prompts: modifiedPrompts,
        omitted_questions: omitted,
        details,
      },
    },
  };
  const parsed = SubmissionSchema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const flag = flagOf(issue.path);
    throw new ConfigError(
      `submission.json would be invalid at ${jsonPath(issue.path)}: ${issue.message}${flag ? `; fix ${flag}` : ""}.`,
    );
  }
  return { submission: parsed.data, trajectories, deviations, coverage };
}

// ---------------------------------------------------------------------------------------------
// Validate.

export interface ValidateOptions {
  /** The ids of a domain's base split when its data is at hand; without it, coverage is judged from the run's recorded task selection. */
  baseTaskIds?: (domain: string) => readonly string[] | undefined;
}

export interface SubmissionProblems {
  errors: string[];
  warnings: string[];
  /** Per domain whose trajectories could be read: how many of its conversations the scores cover. */
  coverage: Record<string, GradingCoverage>;
}

const PASS_FIELDS = ["pass_1", "pass_2", "pass_3", "pass_4"] as const;

/** Tolerance (percentage points) between a submitted pass^k and the trajectories'. */
const PASS_TOLERANCE = 0.01;
/** Tolerance (USD) between a submitted cost and the trajectories': the 5-decimal rounding. */
const COST_TOLERANCE = 0.00001;

/** JSON with object keys sorted, to compare model arguments regardless of key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(value ?? null);
}

export function firstLine(error: unknown): string {
  if (error instanceof InvalidInputFileError) {
    const first = error.problems[0];
    const count = error.problems.length;
    return `${count} problem${count === 1 ? "" : "s"}${first ? `, first ${first.path}: ${first.message}` : ""}`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0]!;
}

const sample = (ids: readonly string[], n = 10) =>
  ids.slice(0, n).join(", ") + (ids.length > n ? `, … ${ids.length - n} more` : "");

const formatPercent = (value: number) => value.toFixed(2);

interface LoadedTrajectory {
  domain: LeaderboardDomain;
  file: string;
  results: Results;
}

/**
 * Check a prepared submission directory as the leaderboard's maintainers would: `DIR/submission.json`
 * against the schema, `DIR/trajectories/*.json` against its `trajectory_files`, each trajectory against
 * the leaderboard's rules (domain, every base-split task, trials, same models everywhere) and the
 * submitted numbers against what the trajectories compute. Each problem is one sentence naming its file
 * and field.
 */
export function validateSubmission(dir: string, options: ValidateOptions = {}): SubmissionProblems {
  const errors: string[] = [];
  const warnings: string[] = [];
  const coverage: Record<string, GradingCoverage> = {};
  const submissionFile = path.join(dir, "submission.json");
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    errors.push(`${dir} is not a directory; pass the folder passk submit prepare wrote.`);
    return { errors, warnings, coverage };
  }
  if (!existsSync(submissionFile)) {
    errors.push(`submission.json is missing from ${dir}; run passk submit prepare to write it.`);
    return { errors, warnings, coverage };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(submissionFile, "utf8"));
  } catch (error) {
    errors.push(`submission.json is not valid JSON (${firstLine(error)}); fix it or prepare it again.`);
    return { errors, warnings, coverage };
  }
  const parsed = SubmissionSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      errors.push(`submission.json ${jsonPath(issue.path)}: ${issue.message}.`);
    return { errors, warnings, coverage };
  }
  const submission = parsed.data;
  if (typeof raw === "object" && raw !== null)
    for (const key of Object.keys(raw))
      if (!KNOWN_FIELDS.has(key))
        warnings.push(
          `submission.json has a field the leaderboard does not know (${key}); check its spelling.`,
        );

  // Trajectory files ↔ the mapping.
  const trajectoriesDir = path.join(dir, "trajectories");
  const present = existsSync(trajectoriesDir)
    ? readdirSync(trajectoriesDir).filter((name) => name.endsWith(".json"))
    : [];
  const mapping = Object.entries(submission.trajectory_files ?? {}) as Array<[LeaderboardDomain, string]>;
  if (!submission.trajectories_available)
    warnings.push(
      "submission.json trajectories_available is false: the leaderboard will mark the submission unverified.",
    );
  if (mapping.length === 0)
    errors.push(
      "submission.json has no trajectory_files; map each domain to its file in trajectories/ so the results can be verified.",
    );
  const mapped = new Set<string>();
  const loaded: LoadedTrajectory[] = [];
  for (const [domain, fileName] of mapping) {
    const field = `submission.json trajectory_files.${domain}`;
    if (fileName !== path.basename(fileName) || fileName.startsWith(".")) {
      errors.push(`${field} ("${fileName}") must be a plain file name inside trajectories/.`);
      continue;
    }
    if (mapped.has(fileName)) {
      errors.push(
        `${field} names ${fileName}, which another domain already uses; give each domain its own file.`,
      );
      continue;
    }
    mapped.add(fileName);
    if (!present.includes(fileName)) {
      errors.push(
        `${field} names trajectories/${fileName}, which does not exist; add the file or fix the name.`,
      );
      continue;
    }
    const file = `trajectories/${fileName}`;
    let results: Results;
    try {
      results = readResultsFile(path.join(trajectoriesDir, fileName)).results;
    } catch (error) {
      if (!PasskError.isInstance(error) && !(error instanceof SyntaxError)) throw error;
      errors.push(`${file} is not a valid τ²-bench results file (${firstLine(error)}); export it again.`);
      continue;
    }
    const recorded = text((results.info.environment_info as { domain_name?: unknown } | null)?.domain_name);
    if (recorded !== domain) {
      errors.push(
        `${file} is ${recorded === undefined ? "a run that does not name its domain" : `a ${recorded} run`} (info.environment_info.domain_name) but is listed under trajectory_files.${domain}; list it under its own domain.`,
      );
      continue;
    }
    loaded.push({ domain, file, results });
  }
  for (const name of present)
    if (!mapped.has(name))
      errors.push(
        `trajectories/${name} is not listed in submission.json trajectory_files; list it under its domain or remove it (one result per domain).`,
      );
  for (const domain of Object.keys(submission.results) as LeaderboardDomain[]) {
    if (submission.results[domain] && !submission.trajectory_files?.[domain] && mapping.length > 0)
      errors.push(
        `submission.json results.${domain} has no trajectory file (trajectory_files.${domain}); add the ${domain} trajectories.`,
      );
  }
  for (const [domain] of mapping)
    if (!submission.results[domain])
      errors.push(
        `submission.json trajectory_files.${domain} has no results.${domain}; add its results or drop the file.`,
      );

  // Same agent and user simulator, with the same arguments, in every domain.
  const [first, ...rest] = loaded;
  if (first) {
    const participant = (t: LoadedTrajectory, side: "agent_info" | "user_info") => {
      const part = infoOf(t.results)[side];
      return {
        model: text(part?.llm) ?? text(part?.implementation) ?? "(none)",
        args: canonicalJson(part?.llm_args ?? {}),
      };
    };
    for (const other of rest)
      for (const [side, name] of [
        ["agent_info", "agent"],
        ["user_info", "user simulator"],
      ] as const) {
        const a = participant(first, side);
        const b = participant(other, side);
        if (a.model !== b.model || a.args !== b.args)
          errors.push(
            `${other.file} has ${name} ${b.model} with llm_args ${b.args} but ${first.file} has ${a.model} with ${a.args}; the leaderboard needs the same ${name} and arguments in every domain.`,
          );
      }
    // The reference's `tau2 submit validate` warns when these differ from the first trajectories' llm.
    const agentModel = text(infoOf(first.results).agent_info?.llm) ?? "(none)";
    if (submission.model_name !== agentModel)
      warnings.push(
        `submission.json model_name is "${submission.model_name}" but the trajectories' agent model is ${agentModel} (info.agent_info.llm); the reference's validation warns that they do not match — name the model as the trajectories record it.`,
      );
    const userModel = text(infoOf(first.results).user_info?.llm) ?? "(none)";
    const stated = submission.methodology?.user_simulator;
    if (submission.methodology && stated !== userModel)
      warnings.push(
        `submission.json methodology.user_simulator is ${stated === undefined || stated === null ? "not given" : `"${stated}"`} but the trajectories' user simulator is ${userModel}; make them agree.`,
      );
  }

  const custom: string[] = [];
  const promptChanges: string[] = [];
  for (const trajectory of loaded) {
    const { domain, file, results } = trajectory;
    const base = options.baseTaskIds?.(domain);
    const deviations = runDeviations(results, base);

    // Every task of the base split.
    const ran = new Set(results.simulations.map((s) => s.task_id));
    if (base) {
      const baseSet = new Set(base);
      const missing = base.filter((id) => !ran.has(id));
      const extra = [...ran].filter((id) => !baseSet.has(id));
      if (missing.length > 0)
        errors.push(
          `${file} (${domain}) is missing ${missing.length} of the ${base.length} base-split tasks (${sample(missing)}); run every task (no --task-ids or --num-tasks).`,
        );
      if (extra.length > 0)
        errors.push(
          `${file} (${domain}) has ${extra.length} task(s) outside the base split (${sample(extra)}); submit a run of the base split.`,
        );
    } else {
      const subset = deviations.filter((d) => d.kind === "task-subset");
      for (const d of subset)
        errors.push(`${file} (${domain}) is ${d.reason}; run every task of the base split.`);
      if (subset.length === 0 && (results.info as InfoView).passk === undefined)
        warnings.push(
          `${file} (${domain}): could not check that every base-split task was run (the domain's data is not at hand); pass --data DIR.`,
        );
    }

    // Trials.
    const score = scoreDomain(results, domain);
    coverage[domain] = { graded: score.evaluable, total: score.evaluable + score.nonEvaluable };
    if (score.numTrials < LEADERBOARD_TRIALS)
      warnings.push(
        `${file} (${domain}) has ${score.numTrials} trial${score.numTrials === 1 ? "" : "s"} per task; the leaderboard strongly prefers ${LEADERBOARD_TRIALS} or more.`,
      );
    if (score.nonEvaluable > 0)
      warnings.push(
        `${file} (${domain}) has ${score.nonEvaluable} simulation(s) that ended in an infrastructure error (left out of the scores); resume the run to complete them.`,
      );

    // The submitted numbers against the trajectories'.
    const submitted = submission.results[domain];
    if (submitted) {
      score.pass.forEach((computed, i) => {
        const field = PASS_FIELDS[i]!;
        const value = submitted[field];
        const where = `submission.json results.${domain}.${field}`;
        if (computed === null) {
          if (typeof value === "number")
            errors.push(
              `${where} is ${value} but ${file} only gives pass^1…pass^${score.k} (${score.k} trial(s) per task); set it to null.`,
            );
        } else if (value === null || value === undefined) {
          warnings.push(`${where} is not given though ${file} gives ${formatPercent(computed)}.`);
        } else if (Math.abs(value - computed) > PASS_TOLERANCE + 1e-9) {
          errors.push(
            `${where} is ${value} but ${file} gives ${formatPercent(computed)}; fix the value (or prepare the submission again).`,
          );
        } else if (value !== computed) {
          warnings.push(
            `${where} is ${value}, not exactly the ${computed} the reference computes from ${file}; its validation warns of any difference (prepare the submission again).`,
          );
        }
      });
      const cost = submitted.cost;
      if (typeof cost === "number") {
        if (score.cost === null)
          warnings.push(
            `submission.json results.${domain}.cost is ${cost} but ${file} does not record the cost of every trajectory, so it cannot be checked.`,
          );
        else if (Math.abs(cost - score.cost) > COST_TOLERANCE + 1e-12)
          errors.push(
            `submission.json results.${domain}.cost is ${cost} but ${file} gives ${score.cost} USD per trajectory (the agent's cost); fix the value (or prepare the submission again).`,
          );
        else if (cost !== score.cost)
          warnings.push(
            `submission.json results.${domain}.cost is ${cost}, not exactly the ${score.cost} USD the reference computes from ${file} (the agent's average cost); its validation warns of any difference.`,
          );
      } else if (score.cost !== null)
        warnings.push(
          `submission.json results.${domain}.cost is not given though ${file} gives ${score.cost} USD per trajectory (the agent's average cost); the reference's validation warns that they do not match.`,
        );
    }

    for (const d of deviations) {
      if (d.kind === "scripted-demo")
        warnings.push(
          `${file} (${domain}) is a scripted demo (scripted:gold plays the gold actions): its numbers show the harness works and are not a model's score.`,
        );
      if (makesCustom(d.kind)) custom.push(`${file}: ${d.reason}`);
      if (d.kind === "modified-prompts") promptChanges.push(`${file}: ${d.reason}`);
    }
  }

  // Submission type and its documentation.
  if (custom.length > 0 && submission.submission_type !== "custom")
    errors.push(
      `submission.json submission_type is "${submission.submission_type}" but the runs changed the benchmark's setup (${list(custom)}); set it to "custom" and describe the changes in methodology.notes.`,
    );
  if (promptChanges.length > 0 && submission.methodology?.verification?.modified_prompts !== true)
    errors.push(
      `submission.json methodology.verification.modified_prompts is not true but the models were not shown τ²'s own texts (${list(promptChanges)}); set it to true.`,
    );
  if (submission.submission_type === "custom") {
    if (!submission.methodology?.notes?.trim())
      errors.push(
        "submission.json methodology.notes is empty but a custom submission must explain what was changed and why; describe the changes there.",
      );
    if ((submission.references ?? []).length === 0)
      warnings.push(
        "submission.json references is empty: a custom submission should link to its implementation (pass --reference URL).",
      );
  }
  const covered = LEADERBOARD_DOMAINS.filter((d) => submission.results[d]);
  if (covered.length < LEADERBOARD_DOMAINS.length)
    warnings.push(
      `submission.json results cover ${covered.join(", ")}; the leaderboard recommends all text domains (${LEADERBOARD_DOMAINS.join(", ")}).`,
    );
  return { errors, warnings, coverage };
}
