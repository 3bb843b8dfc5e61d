import { copyFileSync, cpSync, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { ConfigError, PasskError } from "../core/errors.js";
import { makeDirectory } from "../core/make-directory.js";
import { readVoiceResultsDir, type VoiceSimulation } from "../formats/tau2/voice-results.js";
import { jsonPath } from "../core/zod-problems.js";
import type { GradingCoverage } from "../metrics/coverage.js";
import {
  INTERACTION_METRIC_FIELDS,
  type InteractionMetricCounts,
  type InteractionMetricsConfig,
} from "../metrics/interaction-metrics.js";
import { computeMetrics, scoredSimulations } from "../metrics/run-metrics.js";
import { NON_EVALUABLE_TERMINATIONS } from "../core/simulation.js";
import { markPyFloat } from "../python/py-float.js";
import { VoiceRunInfoSchema, type VoiceRunInfo } from "../voice/results-dir.js";
import {
  canonicalJson,
  firstLine,
  LEADERBOARD_DOMAINS,
  LEADERBOARD_TRIALS,
  localDate,
  referenceOf,
  SubmissionSchema,
  validateSubmission,
  type DomainResult,
  type LeaderboardDomain,
  type SubmissionMetadata,
  type SubmissionProblems,
  type ValidateOptions,
} from "./leaderboard-submission.js";
import { voiceRunInteractionMetrics } from "./voice-interaction-metrics.js";

// The τ-voice track of the leaderboard: a submission of voice runs in the reference's directory format.
// submission.json has `modality: "voice"`, a `voice_config` block (the speech-to-speech provider and
// model, the tick, the caller's speech model) and an `interaction_metrics` block (per domain and
// overall: response and yield latency and rate, agent interruptions, selectivity), as the reference's
// submission code writes them; `trajectories/<experiment>/` holds each domain's run directory
// (results.json, simulations/, and the audio of each task's last simulation under artifacts/).

/** The voice user simulator version the reference's voice submissions state (`voice-user-sim-v1.0`). */
export const VOICE_USER_SIMULATOR_VERSION = "v1.0";

/** The speech complexity the voice track ranks. */
export const VOICE_TRACK_COMPLEXITY = "regular";

export const VoicePipelineSchema = z.strictObject({
  asr: z.string().optional(),
  llm: z.string().optional(),
  tts: z.string().optional(),
});

/** The reference's `VoiceConfig`. */
export const VoiceConfigSchema = z.strictObject({
  provider: z.string().min(1),
  model: z.string().min(1),
  tick_duration_seconds: z.number().positive().optional(),
  max_steps_seconds: z.number().positive().optional(),
  user_tts_provider: z.string().optional(),
  pipeline: VoicePipelineSchema.optional(),
});
export type VoiceConfig = z.infer<typeof VoiceConfigSchema>;

const Rate = z.number().min(0);
export const InteractionMetricsCountsSchema = z.strictObject({
  n_simulations: z.number().int().nonnegative().optional(),
  response_total: z.number().int().nonnegative().optional(),
  yield_total: z.number().int().nonnegative().optional(),
  backchannel_total: z.number().int().nonnegative().optional(),
  vocal_tic_total: z.number().int().nonnegative().optional(),
  non_directed_total: z.number().int().nonnegative().optional(),
  agent_interrupts_count: z.number().int().nonnegative().optional(),
});

/** One domain's (or the overall) panel: latencies in seconds, rates in [0, 1] (interruptions may pass 1). */
export const InteractionMetricsPanelSchema = z.strictObject({
  response_latency_mean: z.number().optional(),
  yield_latency_mean: z.number().optional(),
  response_rate: Rate.max(1).optional(),
  yield_rate: Rate.max(1).optional(),
  agent_interruption_rate: Rate.optional(),
  selectivity_backchannel: Rate.max(1).optional(),
  selectivity_vocal_tic: Rate.max(1).optional(),
  selectivity_non_directed: Rate.max(1).optional(),
  counts: InteractionMetricsCountsSchema.optional(),
});
export type InteractionMetricsPanel = z.infer<typeof InteractionMetricsPanelSchema>;

/** The reference's `InteractionMetrics` block. */
export const InteractionMetricsBlockSchema = z.strictObject({
  version: z.string().optional(),
  config: z.record(z.string(), z.number()).optional(),
  domains: z.partialRecord(z.enum(LEADERBOARD_DOMAINS), InteractionMetricsPanelSchema).optional(),
  overall: InteractionMetricsPanelSchema.optional(),
});
export type InteractionMetricsBlock = z.infer<typeof InteractionMetricsBlockSchema>;

/** submission.json of the voice track: the text track's fields, modality "voice" and the two voice blocks. */
export const VoiceSubmissionSchema = z
  .object({
    ...SubmissionSchema.shape,
    modality: z.literal("voice", { error: 'a voice submission has modality "voice"' }),
    voice_config: VoiceConfigSchema,
    interaction_metrics: InteractionMetricsBlockSchema,
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
export type VoiceSubmission = z.infer<typeof VoiceSubmissionSchema>;

const COUNT_FIELDS: ReadonlyArray<keyof InteractionMetricCounts> = [
  "n_simulations",
  "response_total",
  "yield_total",
  "backchannel_total",
  "vocal_tic_total",
  "non_directed_total",
  "agent_interrupts_count",
];

// ---------------------------------------------------------------------------------------------
// A voice run as the submission reads it.

/** A voice run directory, read for a submission. */
export interface VoiceRun {
  dir: string;
  /** The name of its folder, which names it in trajectories/. */
  name: string;
  domain: string;
  info: VoiceRunInfo;
  speechComplexity: string | null;
  simulations: VoiceSimulation[];
}

/** Read a voice run directory (index checked), or a ConfigError naming what is wrong with it. */
export function readVoiceRun(dir: string, label = dir): VoiceRun {
  if (!existsSync(path.join(dir, "results.json")))
    throw new ConfigError(
      `${label} is not a voice run directory (no results.json); pass the folder a voice run wrote.`,
    );
  const run = readVoiceResultsDir(dir);
  const info = VoiceRunInfoSchema.safeParse(
    (JSON.parse(readFileSync(path.join(dir, "results.json"), "utf8")) as { info?: unknown }).info,
  );
  if (!info.success) {
    const issue = info.error.issues[0]!;
    throw new ConfigError(
      `${label}/results.json info${jsonPath(issue.path).slice(1)}: ${issue.message}; a voice run records its agent, user, domain and audio_native_config there.`,
    );
  }
  return {
    dir,
    name: path.basename(path.resolve(dir)),
    domain: run.meta.info.environment_info.domain_name,
    info: info.data,
    speechComplexity: run.meta.info.speech_complexity ?? null,
    simulations: run.simulations,
  };
}

/** The `voice_config` block of a run, as the reference extracts it from `info`. */
export function voiceConfigOf(info: VoiceRunInfo): VoiceConfig {
  const audio = info.audio_native_config as Record<string, unknown> & { provider: string; model: string };
  const synthesis = (info.user_info.voice_settings as { synthesis_config?: unknown } | null | undefined)
    ?.synthesis_config as
    { provider?: unknown; provider_config?: { model_id?: unknown } | null } | null | undefined;
  let userTts: string | undefined;
  if (synthesis && typeof synthesis.provider === "string") {
    const modelId = synthesis.provider_config?.model_id;
    userTts =
      typeof modelId === "string" && modelId !== "" ? `${synthesis.provider}/${modelId}` : synthesis.provider;
  }
  const config: VoiceConfig = {
    provider: audio.provider,
    model: audio.model,
    ...(typeof audio.tick_duration_seconds === "number"
      ? { tick_duration_seconds: audio.tick_duration_seconds }
      : {}),
    ...(typeof audio.max_steps_seconds === "number" ? { max_steps_seconds: audio.max_steps_seconds } : {}),
    ...(userTts ? { user_tts_provider: userTts } : {}),
  };
  // Floats in the reference's model: written 0.2 and 1200.0.
  markPyFloat(config, "tick_duration_seconds");
  markPyFloat(config, "max_steps_seconds");
  return config;
}

/** What a domain's voice run gives on the leaderboard: pass^k in percent and the agent's average cost. */
export interface VoiceDomainScore {
  result: DomainResult;
  k: number;
  numTrials: number;
  evaluable: number;
  nonEvaluable: number;
}

export function scoreVoiceRun(run: VoiceRun): VoiceDomainScore {
  const unscored = run.simulations.filter((s) => typeof s.termination_reason !== "string");
  if (unscored.length > 0)
    throw new ConfigError(
      `${run.dir}: simulations/${unscored[0]!.id}.json has no termination_reason, so it cannot be scored; finish or rerun it.`,
    );
  const simulations = scoredSimulations(
    run.simulations.map((s) => ({
      task_id: s.task_id,
      trial: s.trial ?? null,
      termination_reason: s.termination_reason!,
      reward_info: s.reward_info ?? null,
      agent_cost: s.agent_cost ?? null,
      user_cost: s.user_cost ?? null,
      duration: s.duration ?? null,
    })),
    run.domain,
  );
  const metrics = computeMetrics(simulations, {
    numTrials: run.info.num_trials,
    bootstrap: { resamples: 0 },
  });
  const pass = [1, 2, 3, 4].map((i) => {
    const value = metrics.pass_hat_ks[i];
    return value === undefined ? null : value * 100;
  });
  const evaluable = simulations.filter((s) => !NON_EVALUABLE_TERMINATIONS.has(s.termination_reason)).length;
  const cost =
    metrics.unknown_agent_costs > 0 || metrics.avg_agent_cost === null || Number.isNaN(metrics.avg_agent_cost)
      ? null
      : metrics.avg_agent_cost;
  return {
    result: { pass_1: pass[0]!, pass_2: pass[1]!, pass_3: pass[2]!, pass_4: pass[3]!, cost },
    k: Object.keys(metrics.pass_hat_ks).length,
    numTrials: run.info.num_trials,
    evaluable,
    nonEvaluable: simulations.length - evaluable,
  };
}

/** A domain's results as the reference dumps them: pass^k as floats (percent), values it lacks left out. */
function submittedResult(result: DomainResult): DomainResult {
  const out: Record<string, number> = {};
  for (const field of ["pass_1", "pass_2", "pass_3", "pass_4", "cost"] as const) {
    const value = result[field];
    if (typeof value === "number") {
      out[field] = value;
      markPyFloat(out, field);
    }
  }
  return out as DomainResult;
}

/** A panel as the reference dumps it: metrics without a value left out, counts in the model's order. */
function panelOf(
  metrics: Record<string, unknown> & { counts?: Partial<InteractionMetricCounts> },
): InteractionMetricsPanel {
  const panel: Record<string, unknown> = {};
  for (const field of INTERACTION_METRIC_FIELDS) {
    const value = metrics[field];
    if (typeof value === "number") {
      panel[field] = value;
      markPyFloat(panel, field);
    }
  }
  const counts: Record<string, number> = {};
  for (const field of COUNT_FIELDS) {
    const value = metrics.counts?.[field];
    if (typeof value === "number") counts[field] = value;
  }
  panel.counts = counts;
  return panel as InteractionMetricsPanel;
}

/**
 * The `interaction_metrics` block of a set of voice runs (one per domain), as the reference's
 * submission code assembles it: the metric code's version, its windows with the tick the runs used,
 * each domain's panel, and the overall panel (each metric's mean over the domains that have it, counts
 * summed).
 */
export function interactionMetricsBlock(runDirs: readonly string[]): InteractionMetricsBlock {
  const computed = runDirs.map((dir) => voiceRunInteractionMetrics(dir));
  const domains: Record<string, InteractionMetricsPanel> = {};
  for (const c of computed) {
    if (domains[c.domain])
      throw new ConfigError(`two voice runs are of domain ${c.domain}; give one run per domain.`);
    domains[c.domain] = panelOf(c.interaction_metrics as unknown as Record<string, unknown>);
  }
  const sorted = Object.fromEntries(Object.entries(domains).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  // The windows recorded: the defaults with the runs' tick, when they all used the same one.
  const first = computed[0];
  const ticks = new Set(computed.map((c) => c.config.tick_duration_sec));
  const config: Record<string, number> = first ? { ...first.config } : {};
  if (first && ticks.size > 1) config.tick_duration_sec = 0.2;
  for (const key of Object.keys(config)) markPyFloat(config, key);
  const panels = Object.values(sorted);
  const overall: Record<string, unknown> = {};
  for (const field of INTERACTION_METRIC_FIELDS) {
    const values = panels.map((p) => p[field]).filter((v): v is number => typeof v === "number");
    if (values.length > 0) overall[field] = values.reduce((a, b) => a + b, 0) / values.length;
  }
  const counts: Partial<InteractionMetricCounts> = {};
  for (const field of COUNT_FIELDS) counts[field] = panels.reduce((n, p) => n + (p.counts?.[field] ?? 0), 0);
  overall.counts = counts;
  return {
    version: first?.version ?? "",
    config: config as InteractionMetricsConfig & Record<string, number>,
    domains: sorted,
    ...(panels.length > 0 ? { overall: panelOf(overall) } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Prepare.

export interface VoiceSubmissionMetadata extends SubmissionMetadata {
  /** `methodology.user_simulator`; default the reference's voice user simulator version. */
  userSimulator?: string;
  reasoningEffort?: string;
}

export interface PreparedVoiceSubmission {
  submission: VoiceSubmission;
  /** The runs to copy into trajectories/<name>/, by domain. */
  runs: VoiceRun[];
  /** Runs left out because the voice track ranks only `regular` speech complexity. */
  skipped: Array<{ dir: string; speechComplexity: string | null }>;
  coverage: Record<string, GradingCoverage>;
}

const isScripted = (info: VoiceRunInfo) =>
  [info.agent_info.llm, info.agent_info.implementation].some(
    (v) => typeof v === "string" && (v.startsWith("scripted:") || v.startsWith("mock")),
  );

/**
 * A voice-track submission from one voice run directory per domain. Runs of another speech complexity
 * than `regular` are left out (as the reference does); none left is a ConfigError.
 */
export function prepareVoiceSubmission(
  runDirs: readonly string[],
  metadata: VoiceSubmissionMetadata,
  options: { today?: Date } = {},
): PreparedVoiceSubmission {
  if (runDirs.length === 0)
    throw new ConfigError("no voice runs to submit: pass one voice run directory per domain.");
  const all = runDirs.map((dir) => readVoiceRun(dir));
  const skipped = all
    .filter((r) => r.speechComplexity !== VOICE_TRACK_COMPLEXITY)
    .map((r) => ({ dir: r.dir, speechComplexity: r.speechComplexity }));
  const runs = all.filter((r) => r.speechComplexity === VOICE_TRACK_COMPLEXITY);
  if (runs.length === 0)
    throw new ConfigError(
      `none of the runs has speech complexity "regular" (${skipped.map((s) => `${s.dir}: ${s.speechComplexity ?? "none"}`).join("; ")}); the voice track ranks runs with --speech-complexity regular.`,
    );
  const byDomain = new Map<string, VoiceRun>();
  const names = new Map<string, VoiceRun>();
  for (const run of runs) {
    if (!(LEADERBOARD_DOMAINS as readonly string[]).includes(run.domain))
      throw new ConfigError(
        `${run.dir} is a ${run.domain} run, and the leaderboard ranks only ${LEADERBOARD_DOMAINS.join(", ")}; leave it out.`,
      );
    const earlier = byDomain.get(run.domain);
    if (earlier)
      throw new ConfigError(
        `${earlier.dir} and ${run.dir} are both ${run.domain} runs, and the leaderboard takes one result per domain; pass only one of them.`,
      );
    byDomain.set(run.domain, run);
    const sameName = names.get(run.name);
    if (sameName)
      throw new ConfigError(
        `${sameName.dir} and ${run.dir} have the same folder name (${run.name}), which names them in trajectories/; rename one.`,
      );
    names.set(run.name, run);
  }
  const [first, ...rest] = runs as [VoiceRun, ...VoiceRun[]];
  for (const other of rest)
    for (const side of ["agent_info", "user_info"] as const) {
      const a = first.info[side];
      const b = other.info[side];
      if (a.llm !== b.llm || canonicalJson(a.llm_args ?? null) !== canonicalJson(b.llm_args ?? null))
        throw new ConfigError(
          `${other.dir} has ${side === "agent_info" ? "agent" : "user simulator"} ${b.llm ?? b.implementation} (${canonicalJson(b.llm_args ?? null)}) but ${first.dir} has ${a.llm ?? a.implementation} (${canonicalJson(a.llm_args ?? null)}); the leaderboard needs the same in every domain.`,
        );
    }

  const results: Partial<Record<LeaderboardDomain, DomainResult>> = {};
  const trajectoryFiles: Partial<Record<LeaderboardDomain, string>> = {};
  const coverage: Record<string, GradingCoverage> = {};
  const notes: string[] = [];
  const trialNotes: string[] = [];
  for (const run of runs) {
    const domain = run.domain as LeaderboardDomain;
    const score = scoreVoiceRun(run);
    if (score.evaluable === 0)
      throw new ConfigError(`${run.dir} has no evaluable simulations; finish the run before submitting it.`);
    coverage[domain] = { graded: score.evaluable, total: score.evaluable + score.nonEvaluable };
    const retrieval = run.info.retrieval_config;
    const retrievalConfig =
      metadata.retrievalConfig ?? (typeof retrieval === "string" ? retrieval : undefined);
    if (domain === "banking_knowledge" && !retrievalConfig)
      throw new ConfigError(
        "banking_knowledge results need the retrieval method the run used; pass --retrieval-config NAME.",
      );
    // Built in place: a spread would drop the float marks.
    const result = submittedResult(score.result);
    if (domain === "banking_knowledge") result.retrieval_config = retrievalConfig;
    results[domain] = result;
    trajectoryFiles[domain] = run.name;
    if (score.numTrials < LEADERBOARD_TRIALS)
      trialNotes.push(`${domain} has ${score.numTrials} trial(s) per task`);
  }
  const voiceConfig = voiceConfigOf(first.info);
  const interactionMetrics = interactionMetricsBlock(runs.map((r) => r.dir));
  const scripted = runs.some((r) => isScripted(r.info));

  if (metadata.notes?.trim()) notes.push(metadata.notes.trim());
  if (scripted)
    notes.push(
      "SCRIPTED DEMO: a mock or scripted voice agent played the calls; these numbers show the harness works and are not a model's score.",
    );
  notes.push(
    `Evaluated with passk ${String(first.info.git_commit)}, a TypeScript re-implementation of τ-voice (full-duplex ticks of ${voiceConfig.tick_duration_seconds ?? "?"} s, speech complexity regular); interaction metrics computed by passk's implementation of the reference's definitions.`,
  );
  if (trialNotes.length > 0)
    notes.push(
      `Fewer than ${LEADERBOARD_TRIALS} trials: ${trialNotes.join("; ")}; pass^k beyond that is null.`,
    );

  const date = metadata.submissionDate ?? localDate(options.today ?? new Date());
  // The reference's field order.
  const candidate = {
    model_name: metadata.modelName,
    model_organization: metadata.modelOrganization,
    submitting_organization: metadata.submittingOrganization ?? metadata.modelOrganization,
    submission_date: date,
    submission_type: scripted ? "custom" : "standard",
    modality: "voice",
    contact_info: {
      email: metadata.contactEmail,
      ...(metadata.contactName ? { name: metadata.contactName } : {}),
    },
    results,
    is_new: true,
    trajectories_available: true,
    trajectory_files: trajectoryFiles,
    ...(metadata.references && metadata.references.length > 0
      ? { references: metadata.references.map(referenceOf) }
      : {}),
    methodology: {
      evaluation_date: date,
      tau2_bench_version: String(first.info.git_commit),
      user_simulator: metadata.userSimulator ?? VOICE_USER_SIMULATOR_VERSION,
      notes: notes.join(" "),
      verification: { modified_prompts: false, omitted_questions: false },
    },
    voice_config: voiceConfig,
    interaction_metrics: interactionMetrics,
    ...(metadata.reasoningEffort ? { reasoning_effort: metadata.reasoningEffort } : {}),
  };
  const parsed = VoiceSubmissionSchema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(
      `the submission's ${jsonPath(issue.path).slice(2) || "metadata"} is not valid: ${issue.message}.`,
    );
  }
  // The candidate is written, not the parse (which would drop the float marks of the blocks).
  return { submission: candidate as VoiceSubmission, runs, skipped, coverage };
}

/** The simulation whose audio a task keeps: its last one in file order, as the reference picks it. */
function canonicalSimulations(run: VoiceRun): Map<string, string> {
  const byTask = new Map<string, string>();
  for (const s of run.simulations) byTask.set(s.task_id, s.id);
  return byTask;
}

/**
 * Copy each run into `output/trajectories/<name>/`: results.json, every simulation file, and the audio
 * of each task's canonical simulation (artifacts/task_<id>/sim_<id>/audio/). Returns the folders written.
 */
export function writeVoiceTrajectories(output: string, runs: readonly VoiceRun[]): string[] {
  const written: string[] = [];
  for (const run of runs) {
    const target = path.join(output, "trajectories", run.name);
    makeDirectory(path.join(target, "simulations"), "--output");
    copyFileSync(path.join(run.dir, "results.json"), path.join(target, "results.json"));
    for (const s of run.simulations)
      copyFileSync(
        path.join(run.dir, "simulations", `${s.id}.json`),
        path.join(target, "simulations", `${s.id}.json`),
      );
    for (const [taskId, simId] of canonicalSimulations(run)) {
      const audio = path.join(run.dir, "artifacts", `task_${taskId}`, `sim_${simId}`, "audio");
      if (existsSync(audio))
        cpSync(audio, path.join(target, "artifacts", `task_${taskId}`, `sim_${simId}`, "audio"), {
          recursive: true,
        });
    }
    written.push(target);
  }
  return written;
}

// ---------------------------------------------------------------------------------------------
// Validate.

/** Absolute tolerance between a submitted interaction metric and the trajectories' (floating-point noise). */
const METRIC_TOLERANCE = 1e-9;
const PASS_TOLERANCE = 0.01;
const COST_TOLERANCE = 0.00001;

/** Compare a submitted panel with the computed one, one sentence per difference. */
function comparePanel(
  where: string,
  submitted: InteractionMetricsPanel | undefined,
  computed: InteractionMetricsPanel,
  source: string,
  errors: string[],
): void {
  if (!submitted) {
    errors.push(`${where} is missing; ${source} gives it (prepare the submission again).`);
    return;
  }
  for (const field of INTERACTION_METRIC_FIELDS) {
    const a = submitted[field];
    const b = computed[field];
    if (a === undefined && b === undefined) continue;
    if (a === undefined)
      errors.push(
        `${where}.${field} is missing but ${source} gives ${b}; add it (prepare the submission again).`,
      );
    else if (b === undefined)
      errors.push(`${where}.${field} is ${a} but ${source} has no event to compute it from; remove it.`);
    else if (Math.abs(a - b) > METRIC_TOLERANCE)
      errors.push(
        `${where}.${field} is ${a} but ${source} gives ${b}; the leaderboard recomputes it from the ticks (prepare the submission again).`,
      );
  }
  for (const field of COUNT_FIELDS) {
    const a = submitted.counts?.[field];
    const b = computed.counts?.[field];
    if (a !== b)
      errors.push(
        `${where}.counts.${field} is ${a ?? "missing"} but ${source} counts ${b ?? "none"}; prepare the submission again.`,
      );
  }
}

/**
 * Check a voice-track submission directory as the leaderboard's maintainers would: submission.json
 * against the schema, each `trajectory_files` entry against its run directory in trajectories/ (index
 * intact, its domain, speech complexity regular), the same agent and user everywhere, and the
 * submitted pass^k, cost, voice_config and interaction_metrics against what the trajectories give.
 */
export function validateVoiceSubmission(
  dir: string,
  raw: unknown,
  options: ValidateOptions = {},
): SubmissionProblems {
  const errors: string[] = [];
  const warnings: string[] = [];
  const coverage: Record<string, GradingCoverage> = {};
  const parsed = VoiceSubmissionSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      errors.push(`submission.json ${jsonPath(issue.path)}: ${issue.message}.`);
    return { errors, warnings, coverage };
  }
  const submission = parsed.data;
  const trajectoriesDir = path.join(dir, "trajectories");
  const present = existsSync(trajectoriesDir)
    ? readdirSync(trajectoriesDir).filter((name) => statSync(path.join(trajectoriesDir, name)).isDirectory())
    : [];
  const mapping = Object.entries(submission.trajectory_files ?? {}) as Array<[LeaderboardDomain, string]>;
  if (mapping.length === 0)
    errors.push(
      "submission.json has no trajectory_files; map each domain to its run folder in trajectories/.",
    );
  const runs: Array<{ domain: LeaderboardDomain; where: string; run: VoiceRun }> = [];
  for (const [domain, name] of mapping) {
    const field = `submission.json trajectory_files.${domain}`;
    if (name !== path.basename(name) || name.startsWith(".")) {
      errors.push(`${field} ("${name}") must be a plain folder name inside trajectories/.`);
      continue;
    }
    const where = `trajectories/${name}`;
    if (!present.includes(name)) {
      errors.push(`${field} names ${where}/, which does not exist; add the run folder or fix the name.`);
      continue;
    }
    let run: VoiceRun;
    try {
      run = readVoiceRun(path.join(trajectoriesDir, name), where);
    } catch (error) {
      if (!PasskError.isInstance(error) && !(error instanceof SyntaxError)) throw error;
      errors.push(`${where} is not a valid voice run directory (${firstLine(error)}); copy the run again.`);
      continue;
    }
    if (run.domain !== domain) {
      errors.push(
        `${where} is a ${run.domain} run (info.environment_info.domain_name) but is listed under trajectory_files.${domain}; list it under its own domain.`,
      );
      continue;
    }
    if (run.speechComplexity !== VOICE_TRACK_COMPLEXITY)
      errors.push(
        `${where} ran with speech complexity ${run.speechComplexity ?? "(none)"} (info.speech_complexity); the voice track ranks "regular" only.`,
      );
    if (!run.simulations.some((s) => (s.ticks ?? []).length > 0))
      errors.push(`${where} has no simulation with ticks: it is not a full-duplex (voice) run.`);
    runs.push({ domain, where, run });
  }
  for (const name of present)
    if (!mapping.some(([, n]) => n === name))
      errors.push(
        `trajectories/${name}/ is not listed in submission.json trajectory_files; list it under its domain or remove it.`,
      );
  for (const [domain] of mapping)
    if (!submission.results[domain])
      errors.push(
        `submission.json trajectory_files.${domain} has no results.${domain}; add its results or drop the folder.`,
      );
  for (const domain of Object.keys(submission.results) as LeaderboardDomain[])
    if (submission.results[domain] && !submission.trajectory_files?.[domain])
      errors.push(
        `submission.json results.${domain} has no run folder (trajectory_files.${domain}); add the ${domain} trajectories.`,
      );

  const [first, ...rest] = runs;
  if (first) {
    for (const other of rest)
      for (const side of ["agent_info", "user_info"] as const) {
        const a = first.run.info[side];
        const b = other.run.info[side];
        if (a.llm !== b.llm || canonicalJson(a.llm_args ?? null) !== canonicalJson(b.llm_args ?? null))
          errors.push(
            `${other.where} has ${side === "agent_info" ? "agent" : "user simulator"} ${b.llm ?? b.implementation} but ${first.where} has ${a.llm ?? a.implementation} (or other llm_args); the leaderboard needs the same in every domain.`,
          );
      }
    const expected = voiceConfigOf(first.run.info);
    for (const other of rest)
      if (canonicalJson(voiceConfigOf(other.run.info)) !== canonicalJson(expected))
        errors.push(
          `${other.where} ran with voice config ${canonicalJson(voiceConfigOf(other.run.info))} but ${first.where} with ${canonicalJson(expected)}; every domain needs the same voice setup.`,
        );
    const submittedConfig = submission.voice_config as Record<string, unknown>;
    for (const key of new Set([...Object.keys(expected), ...Object.keys(submittedConfig)])) {
      if (key === "pipeline") continue;
      const a = submittedConfig[key];
      const b = (expected as Record<string, unknown>)[key];
      if (canonicalJson(a ?? null) !== canonicalJson(b ?? null))
        errors.push(
          `submission.json voice_config.${key} is ${JSON.stringify(a ?? null)} but ${first.where} ran with ${JSON.stringify(b ?? null)} (info.audio_native_config / user_info.voice_settings); fix it (or prepare the submission again).`,
        );
    }
    const agentModel = first.run.info.agent_info.llm ?? first.run.info.agent_info.implementation;
    if (submission.model_name !== agentModel && submission.model_name !== expected.model)
      warnings.push(
        `submission.json model_name is "${submission.model_name}" but the trajectories' agent is ${agentModel} (model ${expected.model}); name the model as the trajectories record it.`,
      );
    const stated = submission.methodology?.user_simulator;
    if (stated !== VOICE_USER_SIMULATOR_VERSION)
      warnings.push(
        `submission.json methodology.user_simulator is ${stated ? `"${stated}"` : "not given"}; voice submissions state the voice user simulator version (${VOICE_USER_SIMULATOR_VERSION}).`,
      );
  }

  for (const { domain, where, run } of runs) {
    let score: VoiceDomainScore;
    try {
      score = scoreVoiceRun(run);
    } catch (error) {
      errors.push(firstLine(error));
      continue;
    }
    coverage[domain] = { graded: score.evaluable, total: score.evaluable + score.nonEvaluable };
    if (score.numTrials < LEADERBOARD_TRIALS)
      warnings.push(
        `${where} (${domain}) has ${score.numTrials} trial${score.numTrials === 1 ? "" : "s"} per task; the leaderboard strongly prefers ${LEADERBOARD_TRIALS} or more.`,
      );
    const base = options.baseTaskIds?.(domain);
    if (base) {
      const ran = new Set(run.simulations.map((s) => s.task_id));
      const missing = base.filter((id) => !ran.has(id));
      if (missing.length > 0)
        warnings.push(
          `${where} (${domain}) covers ${base.length - missing.length} of the ${base.length} base-split tasks; say so in methodology.verification.omitted_questions if tasks were left out.`,
        );
    }
    const submitted = submission.results[domain];
    if (!submitted) continue;
    (["pass_1", "pass_2", "pass_3", "pass_4"] as const).forEach((field) => {
      const computed = score.result[field] ?? null;
      const value = submitted[field];
      const at = `submission.json results.${domain}.${field}`;
      if (computed === null) {
        if (typeof value === "number")
          errors.push(`${at} is ${value} but ${where} only gives pass^1…pass^${score.k}; set it to null.`);
      } else if (typeof value !== "number")
        warnings.push(`${at} is not given though ${where} gives ${computed.toFixed(2)}.`);
      else if (Math.abs(value - computed) > PASS_TOLERANCE + 1e-9)
        errors.push(
          `${at} is ${value} but ${where} gives ${computed.toFixed(2)}; fix the value (or prepare the submission again).`,
        );
    });
    const cost = submitted.cost;
    const computedCost = score.result.cost ?? null;
    if (
      typeof cost === "number" &&
      computedCost !== null &&
      Math.abs(cost - computedCost) > COST_TOLERANCE + 1e-12
    )
      errors.push(
        `submission.json results.${domain}.cost is ${cost} but ${where} gives ${computedCost} USD per trajectory; fix the value (or prepare the submission again).`,
      );
  }

  // The interaction metrics, recomputed from the ticks as the maintainers do.
  if (runs.length > 0 && errors.length === 0) {
    let computed: InteractionMetricsBlock | undefined;
    try {
      computed = interactionMetricsBlock(runs.map((r) => r.run.dir));
    } catch (error) {
      errors.push(`the interaction metrics could not be computed from trajectories/ (${firstLine(error)}).`);
    }
    if (computed) {
      const im = submission.interaction_metrics;
      if (im.version !== computed.version)
        errors.push(
          `submission.json interaction_metrics.version is ${JSON.stringify(im.version ?? null)} but the metrics are computed by version ${computed.version}; prepare the submission again.`,
        );
      for (const [key, value] of Object.entries(computed.config ?? {}))
        if (im.config?.[key] !== value)
          errors.push(
            `submission.json interaction_metrics.config.${key} is ${im.config?.[key] ?? "missing"} but the runs were measured with ${value}; prepare the submission again.`,
          );
      for (const { domain, where } of runs)
        comparePanel(
          `submission.json interaction_metrics.domains.${domain}`,
          im.domains?.[domain],
          computed.domains![domain]!,
          where,
          errors,
        );
      for (const domain of Object.keys(im.domains ?? {}))
        if (!computed.domains?.[domain as LeaderboardDomain])
          errors.push(
            `submission.json interaction_metrics.domains.${domain} has no run in trajectories/; remove it.`,
          );
      if (computed.overall)
        comparePanel(
          "submission.json interaction_metrics.overall",
          im.overall,
          computed.overall,
          "trajectories/ (every run)",
          errors,
        );
    }
  }
  return { errors, warnings, coverage };
}

/**
 * Validate a submission directory of either track: a voice submission (`modality: "voice"`) with
 * `validateVoiceSubmission`, any other with the text track's checks.
 */
export function validateAnySubmission(dir: string, options: ValidateOptions = {}): SubmissionProblems {
  const file = path.join(dir, "submission.json");
  if (existsSync(file)) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, "utf8"));
    } catch {
      return validateSubmission(dir, options);
    }
    if (typeof raw === "object" && raw !== null && (raw as { modality?: unknown }).modality === "voice")
      return validateVoiceSubmission(dir, raw, options);
  }
  return validateSubmission(dir, options);
}
