import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { ConfigError } from "../../core/errors.js";
import { readResultsFile, writeResultsFile, type ResultsInput } from "../../formats/tau2/results.js";
import {
  LEADERBOARD_DOMAINS,
  prepareSubmission,
  submissionDirectoryName,
  validateSubmission,
  type SubmissionProblems,
  type SubmissionRun,
} from "../../runner/leaderboard-submission.js";
import { partialCoverageLabel } from "../../metrics/coverage.js";
import { RunConfigSchema } from "../../runner/run-spec.js";
import { writeFileAtomic } from "../../core/write-file-atomic.js";
import { stringifyKeepingPyFloats } from "../../python/py-float.js";
import { runResults } from "../../store/run-results.js";
import { println, withDataOption, type CliContext } from "../context.js";
import { loadDomain } from "../domain-flags.js";
import { withStore, withStoreOption } from "./run-source.js";
import { makeDirectory } from "../../core/make-directory.js";
import { isVoiceResultsDir } from "../../formats/tau2/voice-results.js";
import {
  prepareVoiceSubmission,
  validateAnySubmission,
  writeVoiceTrajectories,
} from "../../runner/voice-submission.js";

interface PrepareFlags {
  output?: string;
  modelName?: string;
  modelOrganization?: string;
  submittingOrganization?: string;
  contactEmail?: string;
  contactName?: string;
  submissionDate?: string;
  notes?: string;
  reference?: string[];
  retrievalConfig?: string;
  store?: string;
  data?: string;
  force?: boolean;
  voice?: boolean;
}

const looksLikePath = (ref: string) => /[\\/]|\.json$/i.test(ref);

/** A flag the command cannot do without, or a ConfigError saying what to pass. */
function required(value: string | undefined, flag: string, example: string): string {
  if (value === undefined || value.trim() === "")
    throw new ConfigError(`${flag} is required: the leaderboard lists it with the results; e.g. ${example}.`);
  return value.trim();
}

/**
 * The ids of a leaderboard domain's base split from its data (`dataDir`, else --data's defaults), or
 * undefined when the data is not at hand. The leaderboard's domains are τ²'s own, so their data
 * directory layout is τ²'s; a domain passk does not know has no split to check.
 */
function baseSplitOf(context: CliContext, domain: string, dataDir: string | undefined) {
  if (!(LEADERBOARD_DOMAINS as readonly string[]).includes(domain) || !context.domains.has(domain))
    return undefined;
  try {
    const data = loadDomain(context, domain, dataDir !== undefined ? { data: dataDir } : {});
    return data.splits?.base ?? data.tasks.map((t) => t.id);
  } catch {
    return undefined;
  }
}

/** The data directory a run recorded (`info.passk.config.data`), if it still exists here. */
function recordedDataDir(info: unknown): string | undefined {
  const config = RunConfigSchema.safeParse((info as { passk?: { config?: unknown } } | null)?.passk?.config);
  return config.success && existsSync(config.data.dataDir) ? config.data.dataDir : undefined;
}

/**
 * The domain's results of a stored run. Runs over several domains keep each domain's environment
 * (`runResults` picks it); runs stored before they did have only the first domain's, so each other
 * domain's trajectory file gets its environment (name and policy) from the data.
 */
function storedDomainResults(
  context: CliContext,
  results: ResultsInput,
  domain: string,
  runId: string,
  dataFlag: string | undefined,
): ResultsInput {
  const environment = results.info.environment_info as { domain_name?: unknown } | null | undefined;
  if (environment?.domain_name === domain) return results;
  const config = RunConfigSchema.safeParse((results.info as { passk?: { config?: unknown } }).passk?.config);
  const dataDir = dataFlag ?? recordedDataDir(results.info);
  let policy: string;
  try {
    const data = loadDomain(context, domain, dataDir !== undefined ? { data: dataDir } : {});
    policy = config.success && config.data.solo ? (data.soloPolicy ?? data.policy) : data.policy;
  } catch (error) {
    throw new ConfigError(
      `run ${runId}: its ${domain} trajectories need ${domain}'s policy from the τ² data, which could not be read (${(error as Error).message.split("\n")[0]}); pass --data DIR.`,
      { cause: error },
    );
  }
  return {
    ...results,
    info: { ...results.info, environment_info: { domain_name: domain, policy, tool_defs: null } },
  };
}

/** Each argument as one run per domain: a results file, or every domain of a stored run. */
function loadRuns(context: CliContext, refs: readonly string[], flags: PrepareFlags) {
  const runs: SubmissionRun[] = [];
  const dataDirs = new Map<string, string | undefined>();
  const storeRefs: string[] = [];
  for (const ref of refs) {
    if (existsSync(ref)) {
      const file = readResultsFile(ref);
      const domain = (file.raw.info.environment_info as { domain_name?: unknown } | null | undefined)
        ?.domain_name;
      if (typeof domain !== "string" || domain === "")
        throw new ConfigError(
          `${ref} does not name its domain (info.environment_info.domain_name), which the leaderboard needs; re-export it with passk export.`,
        );
      runs.push({ domain, results: file.raw, label: ref });
      dataDirs.set(domain, flags.data ?? recordedDataDir(file.raw.info));
    } else if (looksLikePath(ref)) {
      throw new ConfigError(`${ref}: no such results file, and it is not a run id; check the path.`);
    } else {
      storeRefs.push(ref);
    }
  }
  if (storeRefs.length > 0) {
    withStore(context, flags.store, { create: false }, (store) => {
      for (const ref of storeRefs) {
        const run = store.getRun(ref);
        if (run.domains.length === 0)
          throw new ConfigError(`run ${run.id} has no simulations yet; run it before submitting it.`);
        for (const domain of run.domains) {
          const results = storedDomainResults(
            context,
            runResults(store, run.id, { domain }),
            domain,
            run.id,
            flags.data,
          );
          runs.push({ domain, results, label: `run ${run.id} (${domain})` });
          dataDirs.set(domain, flags.data ?? recordedDataDir(results.info));
        }
      }
    });
  }
  return { runs, dataDirs };
}

/** Print validation problems as `error: …` / `warning: …` lines. */
/** A prepared submission's problems, then its verdict (exit code 1 when it breaks the leaderboard's rules). */
function printVerdict(
  context: CliContext,
  problems: SubmissionProblems,
  coverage: SubmissionProblems["coverage"],
): void {
  printProblems(context, problems);
  if (problems.errors.length > 0) {
    println(
      context,
      `the submission does not meet the leaderboard's rules (${plural(problems.errors.length, "error")}${coverageNote(coverage)}); fix the runs and prepare it again`,
    );
    process.exitCode = 1;
  } else {
    println(context, `valid (${plural(problems.warnings.length, "warning")}${coverageNote(coverage)})`);
  }
}

function printProblems(context: CliContext, problems: SubmissionProblems): void {
  for (const error of problems.errors) println(context, `error: ${error}`);
  for (const warning of problems.warnings) println(context, `warning: ${warning}`);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * "; airline graded 8 of 40" for each domain whose scores cover only part of its conversations, so that
 * a headline never reads a score of the graded few as the run's.
 */
function coverageNote(coverage: SubmissionProblems["coverage"]): string {
  const partial = Object.entries(coverage).flatMap(([domain, c]) => {
    const label = partialCoverageLabel(c);
    return label === undefined ? [] : [`${domain} ${label}`];
  });
  return partial.length > 0 ? `; ${partial.join(", ")}` : "";
}

/**
 * Whether the runs to submit are voice runs: `--voice`, or every argument a voice run directory (as the
 * reference detects a voice submission). A mix is a ConfigError.
 */
function isVoiceSubmission(refs: readonly string[], flags: PrepareFlags): boolean {
  const voice = refs.map((ref) => existsSync(ref) && statSync(ref).isDirectory() && isVoiceResultsDir(ref));
  if (flags.voice) {
    const index = voice.indexOf(false);
    if (index >= 0)
      throw new ConfigError(
        `--voice: ${refs[index]} is not a voice run directory (results.json and simulations/ with ticks); pass the folders voice runs wrote.`,
      );
    return true;
  }
  if (voice.length > 0 && voice.every(Boolean)) return true;
  const index = voice.indexOf(true);
  if (index >= 0)
    throw new ConfigError(
      `${refs[index]} is a voice run but other runs are text runs; the leaderboard's voice and text tracks take separate submissions.`,
    );
  return false;
}

/** Who submits which model, and where the submission is written. */
interface SubmissionMetadata {
  output: string;
  modelName: string;
  modelOrganization: string;
  contactEmail: string;
}

/** `passk submit prepare --voice`: the voice track's submission from voice run directories. */
function prepareVoice(
  context: CliContext,
  refs: readonly string[],
  flags: PrepareFlags,
  metadata: SubmissionMetadata,
): void {
  const prepared = prepareVoiceSubmission(refs, {
    modelName: metadata.modelName,
    modelOrganization: metadata.modelOrganization,
    contactEmail: metadata.contactEmail,
    ...(flags.submittingOrganization ? { submittingOrganization: flags.submittingOrganization } : {}),
    ...(flags.contactName ? { contactName: flags.contactName } : {}),
    ...(flags.submissionDate ? { submissionDate: flags.submissionDate } : {}),
    ...(flags.notes ? { notes: flags.notes } : {}),
    ...(flags.reference ? { references: flags.reference } : {}),
    ...(flags.retrievalConfig ? { retrievalConfig: flags.retrievalConfig } : {}),
  });
  for (const skipped of prepared.skipped)
    println(
      context,
      `left out ${skipped.dir}: speech complexity ${skipped.speechComplexity ?? "(none)"} (the voice track ranks regular only)`,
    );
  const trajectoriesDir = path.join(metadata.output, "trajectories");
  if (flags.force && existsSync(trajectoriesDir))
    for (const run of prepared.runs)
      rmSync(path.join(trajectoriesDir, run.name), { recursive: true, force: true });
  for (const [i, folder] of writeVoiceTrajectories(metadata.output, prepared.runs).entries())
    println(
      context,
      `wrote ${folder}/ (${prepared.runs[i]!.domain}, ${prepared.runs[i]!.simulations.length} simulations)`,
    );
  const submissionFile = path.join(metadata.output, "submission.json");
  writeFileAtomic(submissionFile, `${stringifyKeepingPyFloats(prepared.submission, 2)}\n`);
  println(context, `wrote ${submissionFile} (modality voice)`);
  println(
    context,
    `leaderboard directory: web/leaderboard/public/submissions/${submissionDirectoryName(prepared.submission)}/ (submission.json only; share trajectories/ by link; add it to voice_submissions in manifest.json)`,
  );
  const problems = validateAnySubmission(metadata.output);
  printVerdict(context, problems, prepared.coverage);
}

/** `prepare`'s required metadata and its output directory, checked before anything is read. */
function submissionMetadata(flags: PrepareFlags): SubmissionMetadata {
  const output = required(flags.output, "--output", "--output ./my_submission");
  const modelName = required(flags.modelName, "--model-name", "--model-name gpt-4.1");
  const modelOrganization = required(
    flags.modelOrganization,
    "--model-organization",
    "--model-organization OpenAI",
  );
  const contactEmail = required(flags.contactEmail, "--contact-email", "--contact-email you@example.com");
  if (existsSync(output)) {
    if (!statSync(output).isDirectory())
      throw new ConfigError(`--output ${output} is a file; pass a directory to write the submission into.`);
    if (readdirSync(output).length > 0 && !flags.force)
      throw new ConfigError(
        `--output ${output} is not empty; pass an empty or new directory, or --force to replace its submission.json and trajectories.`,
      );
  }
  return { output, modelName, modelOrganization, contactEmail };
}

/** `prepare` for the text track: the runs' trajectories and submission.json written, then validated. */
function prepareText(
  context: CliContext,
  refs: readonly string[],
  flags: PrepareFlags,
  metadata: SubmissionMetadata,
): void {
  const { output, modelName, modelOrganization, contactEmail } = metadata;
  const { runs, dataDirs } = loadRuns(context, refs, flags);
  const prepared = prepareSubmission(
    runs,
    {
      modelName,
      modelOrganization,
      contactEmail,
      ...(flags.submittingOrganization ? { submittingOrganization: flags.submittingOrganization } : {}),
      ...(flags.contactName ? { contactName: flags.contactName } : {}),
      ...(flags.submissionDate ? { submissionDate: flags.submissionDate } : {}),
      ...(flags.notes ? { notes: flags.notes } : {}),
      ...(flags.reference ? { references: flags.reference } : {}),
      ...(flags.retrievalConfig ? { retrievalConfig: flags.retrievalConfig } : {}),
    },
    { baseTaskIds: (domain) => baseSplitOf(context, domain, dataDirs.get(domain)) },
  );

  // Only what this command writes is replaced: other files in DIR are the user's.
  const trajectoriesDir = path.join(output, "trajectories");
  if (flags.force && existsSync(trajectoriesDir))
    for (const name of readdirSync(trajectoriesDir))
      if (name.endsWith(".json")) rmSync(path.join(trajectoriesDir, name));
  makeDirectory(trajectoriesDir, "--output");
  for (const trajectory of prepared.trajectories) {
    const file = path.join(trajectoriesDir, trajectory.fileName);
    writeResultsFile(file, trajectory.results);
    println(
      context,
      `wrote ${file} (${trajectory.domain}, ${trajectory.results.simulations.length} simulations)`,
    );
  }
  const submissionFile = path.join(output, "submission.json");
  writeFileAtomic(submissionFile, `${JSON.stringify(prepared.submission, null, 2)}\n`);
  println(context, `wrote ${submissionFile}`);

  const { submission } = prepared;
  const why = Object.entries(prepared.deviations).flatMap(([domain, deviations]) =>
    deviations.filter((d) => d.kind !== "trials").map((d) => `${domain}: ${d.reason}`),
  );
  println(
    context,
    submission.submission_type === "standard"
      ? "submission_type: standard (τ²'s protocol and texts, default agent and user simulator, every base-split task)"
      : `submission_type: custom (${why.join("; ")})`,
  );
  println(
    context,
    `leaderboard directory: web/leaderboard/public/submissions/${submissionDirectoryName(submission)}/ (submission.json only; share trajectories/ by link)`,
  );

  const problems = validateSubmission(output, {
    baseTaskIds: (domain) => baseSplitOf(context, domain, dataDirs.get(domain)),
  });
  printVerdict(context, problems, prepared.coverage);
}

/** `passk submit prepare|validate`: a τ²-bench leaderboard submission (text or voice track). */
export function registerSubmit(program: Command, context: CliContext): void {
  const submit = program
    .command("submit")
    .description("Prepare and validate a τ²-bench leaderboard submission (text or voice track)");

  withDataOption(
    withStoreOption(
      submit
        .command("prepare")
        .description(
          "Write DIR/submission.json and DIR/trajectories/ from one run per domain (results files or stored run ids), then validate them",
        )
        .argument(
          "<runs...>",
          "results JSON files or run ids in the store (a stored run gives each of its domains); with --voice, voice run directories",
        )
        .option("-o, --output <dir>", "the submission directory to write (must be empty or absent)")
        .option("--model-name <name>", "the model evaluated, e.g. gpt-4.1")
        .option("--model-organization <org>", "the organization that made the model")
        .option("--submitting-organization <org>", "who ran the evaluation (default: the model organization)")
        .option("--contact-email <email>", "contact address for the leaderboard maintainers")
        .option("--contact-name <name>", "contact name")
        .option("--submission-date <date>", "YYYY-MM-DD (default: today)")
        .option("--notes <text>", "your methodology notes (passk adds its own after them)")
        .option("--reference <url...>", "links to the model, paper or implementation")
        .option("--retrieval-config <name>", "banking_knowledge: the retrieval method used (alltools, bm25…)")
        .option(
          "--voice",
          "the voice track: runs are voice run directories (results.json + simulations/), speech complexity regular",
        )
        .option(
          "--force",
          "write into a non-empty DIR, replacing its submission.json and trajectories/*.json",
        ),
    ),
  ).action((refs: string[], flags: PrepareFlags) => {
    const metadata = submissionMetadata(flags);
    if (isVoiceSubmission(refs, flags)) prepareVoice(context, refs, flags, metadata);
    else prepareText(context, refs, flags, metadata);
  });

  withDataOption(
    submit
      .command("validate")
      .description(
        "Check a submission directory: submission.json against the schema, trajectories/ against it, and the leaderboard's rules",
      )
      .argument("<dir>", "the directory passk submit prepare wrote"),
  ).action((dir: string, flags: { data?: string }) => {
    const problems = validateAnySubmission(dir, {
      baseTaskIds: (domain) => baseSplitOf(context, domain, flags.data),
    });
    printProblems(context, problems);
    const summary = `${plural(problems.errors.length, "error")}, ${plural(problems.warnings.length, "warning")}${coverageNote(problems.coverage)}`;
    if (problems.errors.length > 0) {
      println(context, `${dir}: not valid (${summary})`);
      process.exitCode = 1;
    } else {
      println(context, `${dir}: valid (${summary})`);
    }
  });
}
