import type { Command } from "commander";
import { ConfigError } from "../../core/errors.js";
import { partialCoverageLabel } from "../../metrics/coverage.js";
import type { SubmissionProblems } from "../../runner/leaderboard-submission.js";
import { prepareSubmissionDir, validateSubmissionDir } from "../../runner/submission-dir.js";
import { resolveStorePath } from "../../store/store-location.js";
import { println, withDataOption, type CliContext } from "../context.js";
import { domainDataOf } from "../domain-flags.js";
import { withStoreOption } from "./run-source.js";

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

/** A flag the command cannot do without, or a ConfigError saying what to pass. */
function required(value: string | undefined, flag: string, example: string): string {
  if (value === undefined || value.trim() === "")
    throw new ConfigError(`${flag} is required: the leaderboard lists it with the results; e.g. ${example}.`);
  return value.trim();
}

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

/** `passk submit prepare`: the flags checked, the directory written and validated, what was done printed. */
function prepare(context: CliContext, refs: readonly string[], flags: PrepareFlags): void {
  const prepared = prepareSubmissionDir(refs, {
    output: required(flags.output, "--output", "--output ./my_submission"),
    metadata: {
      modelName: required(flags.modelName, "--model-name", "--model-name gpt-4.1"),
      modelOrganization: required(
        flags.modelOrganization,
        "--model-organization",
        "--model-organization OpenAI",
      ),
      contactEmail: required(flags.contactEmail, "--contact-email", "--contact-email you@example.com"),
      ...(flags.submittingOrganization ? { submittingOrganization: flags.submittingOrganization } : {}),
      ...(flags.contactName ? { contactName: flags.contactName } : {}),
      ...(flags.submissionDate ? { submissionDate: flags.submissionDate } : {}),
      ...(flags.notes ? { notes: flags.notes } : {}),
      ...(flags.reference ? { references: flags.reference } : {}),
      ...(flags.retrievalConfig ? { retrievalConfig: flags.retrievalConfig } : {}),
    },
    ...(flags.force ? { force: true } : {}),
    ...(flags.voice ? { voice: true } : {}),
    store: resolveStorePath(flags.store, context.env),
    ...(flags.data !== undefined ? { dataDir: flags.data } : {}),
    domainData: domainDataOf(context),
  });
  const voice = prepared.modality === "voice";
  for (const skipped of prepared.skipped)
    println(
      context,
      `left out ${skipped.dir}: speech complexity ${skipped.speechComplexity ?? "(none)"} (the voice track ranks regular only)`,
    );
  for (const written of prepared.trajectories)
    println(
      context,
      `wrote ${written.path}${voice ? "/" : ""} (${written.domain}, ${written.simulations} simulations)`,
    );
  println(context, `wrote ${prepared.submissionFile}${voice ? " (modality voice)" : ""}`);
  if (!voice)
    println(
      context,
      prepared.submission.submission_type === "standard"
        ? "submission_type: standard (τ²'s protocol and texts, default agent and user simulator, every base-split task)"
        : `submission_type: custom (${prepared.customReasons.join("; ")})`,
    );
  println(
    context,
    `leaderboard directory: web/leaderboard/public/submissions/${prepared.directoryName}/ (submission.json only; share trajectories/ by link${voice ? "; add it to voice_submissions in manifest.json" : ""})`,
  );
  printVerdict(context, prepared.problems, prepared.coverage);
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
  ).action((refs: string[], flags: PrepareFlags) => prepare(context, refs, flags));

  withDataOption(
    submit
      .command("validate")
      .description(
        "Check a submission directory: submission.json against the schema, trajectories/ against it, and the leaderboard's rules",
      )
      .argument("<dir>", "the directory passk submit prepare wrote"),
  ).action((dir: string, flags: { data?: string }) => {
    const problems = validateSubmissionDir(dir, {
      ...(flags.data !== undefined ? { dataDir: flags.data } : {}),
      domainData: domainDataOf(context),
    });
    printProblems(context, problems);
    const summary = `${plural(problems.errors.length, "error")}, ${plural(problems.warnings.length, "warning")}${coverageNote(problems.coverage)}`;
    println(context, `${dir}: ${problems.errors.length > 0 ? "not valid" : "valid"} (${summary})`);
    if (problems.errors.length > 0) process.exitCode = 1;
  });
}
