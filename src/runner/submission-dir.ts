import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "../core/errors.js";
import { makeDirectory } from "../core/make-directory.js";
import { writeFileAtomic } from "../core/write-file-atomic.js";
import { isVoiceResultsDir } from "../formats/tau2/voice-results.js";
import { readResultsFile, writeResultsFile, type ResultsInput } from "../formats/tau2/results.js";
import type { GradingCoverage } from "../metrics/coverage.js";
import { stringifyKeepingPyFloats } from "../python/py-float.js";
import { runResults } from "../store/run-results.js";
import {
  LEADERBOARD_DOMAINS,
  prepareSubmission,
  submissionDirectoryName,
  type Submission,
  type SubmissionMetadata,
  type SubmissionProblems,
  type SubmissionRun,
  validateSubmission,
} from "./leaderboard-submission.js";
import { domainDataLoader, type DomainDataLoader, type DomainDataOptions } from "./run-report.js";
import { looksLikePath, withStoreSource, type StoreSource } from "./run-source.js";
import { RunConfigSchema } from "./run-spec.js";
import {
  prepareVoiceSubmission,
  validateAnySubmission,
  writeVoiceTrajectories,
  type VoiceSubmission,
} from "./voice-submission.js";

export interface SubmissionDirOptions extends DomainDataOptions {
  /** The submission directory to write: absent or empty, unless `force`. */
  output: string;
  metadata: SubmissionMetadata;
  /** Write into a non-empty directory, replacing its submission.json and the trajectories written. */
  force?: boolean;
  /** The voice track: every run must be a voice run directory (by default: when every run is one). */
  voice?: boolean;
  /** The store run ids are read from (by default `$PASSK_STORE`, else `.passk/passk.db`). */
  store?: StoreSource;
  /** The τ² data directory for base splits and policies (by default the one each run recorded). */
  dataDir?: string;
  /** Today, for the default submission date. */
  today?: Date;
}

/** A trajectory written into `trajectories/`: a results file (text) or a run folder (voice). */
export interface WrittenTrajectory {
  path: string;
  domain: string;
  simulations: number;
}

/** A submission directory written and validated: what `passk submit prepare` did. */
export interface PreparedSubmissionDir {
  modality: "text" | "voice";
  submission: Submission | VoiceSubmission;
  /** `submission_type: custom`: per domain, why the runs are not the standard setup. */
  customReasons: string[];
  /** Voice runs left out: the voice track ranks `regular` speech complexity only. */
  skipped: Array<{ dir: string; speechComplexity: string | null }>;
  trajectories: WrittenTrajectory[];
  submissionFile: string;
  /** The folder the leaderboard keeps it in (`web/leaderboard/public/submissions/<name>/`). */
  directoryName: string;
  /** Per domain, how many of its conversations the scores cover. */
  coverage: Record<string, GradingCoverage>;
  /** The written directory validated against the leaderboard's rules. */
  problems: SubmissionProblems;
}

/**
 * A τ²-bench leaderboard submission written into `output` — submission.json and trajectories/ — from one
 * run per domain (results files, stored run ids: a stored run gives each of its domains; or voice run
 * directories), then validated as `passk submit validate` does.
 */
export function prepareSubmissionDir(
  refs: readonly string[],
  options: SubmissionDirOptions,
): PreparedSubmissionDir {
  checkOutput(options.output, options.force === true);
  return isVoiceSubmission(refs, options.voice === true)
    ? prepareVoiceDir(refs, options)
    : prepareTextDir(refs, options);
}

/** Validate a submission directory of either track (base splits from `dataDir` when its data is at hand). */
export function validateSubmissionDir(
  dir: string,
  options: DomainDataOptions & { dataDir?: string } = {},
): SubmissionProblems {
  const load = domainDataLoader(options);
  return validateAnySubmission(dir, { baseTaskIds: (domain) => baseSplitOf(load, domain, options.dataDir) });
}

function checkOutput(output: string, force: boolean): void {
  if (!existsSync(output)) return;
  if (!statSync(output).isDirectory())
    throw new ConfigError(`--output ${output} is a file; pass a directory to write the submission into.`);
  if (readdirSync(output).length > 0 && !force)
    throw new ConfigError(
      `--output ${output} is not empty; pass an empty or new directory, or --force to replace its submission.json and trajectories.`,
    );
}

/**
 * Whether the runs to submit are voice runs: `voice`, or every argument a voice run directory (as the
 * reference detects a voice submission). A mix is a ConfigError.
 */
function isVoiceSubmission(refs: readonly string[], voice: boolean): boolean {
  const isVoice = refs.map((ref) => existsSync(ref) && statSync(ref).isDirectory() && isVoiceResultsDir(ref));
  if (voice) {
    const index = isVoice.indexOf(false);
    if (index >= 0)
      throw new ConfigError(
        `--voice: ${refs[index]} is not a voice run directory (results.json and simulations/ with ticks); pass the folders voice runs wrote.`,
      );
    return true;
  }
  if (isVoice.length > 0 && isVoice.every(Boolean)) return true;
  const index = isVoice.indexOf(true);
  if (index >= 0)
    throw new ConfigError(
      `${refs[index]} is a voice run but other runs are text runs; the leaderboard's voice and text tracks take separate submissions.`,
    );
  return false;
}

/** The voice track's submission from voice run directories. */
function prepareVoiceDir(refs: readonly string[], options: SubmissionDirOptions): PreparedSubmissionDir {
  const { output } = options;
  const prepared = prepareVoiceSubmission(refs, options.metadata, {
    ...(options.today ? { today: options.today } : {}),
  });
  const trajectoriesDir = path.join(output, "trajectories");
  if (options.force && existsSync(trajectoriesDir))
    for (const run of prepared.runs)
      rmSync(path.join(trajectoriesDir, run.name), { recursive: true, force: true });
  const trajectories = writeVoiceTrajectories(output, prepared.runs).map((folder, i) => ({
    path: folder,
    domain: prepared.runs[i]!.domain,
    simulations: prepared.runs[i]!.simulations.length,
  }));
  const submissionFile = path.join(output, "submission.json");
  writeFileAtomic(submissionFile, `${stringifyKeepingPyFloats(prepared.submission, 2)}\n`);
  return {
    modality: "voice",
    submission: prepared.submission,
    customReasons: [],
    skipped: prepared.skipped,
    trajectories,
    submissionFile,
    directoryName: submissionDirectoryName(prepared.submission),
    coverage: prepared.coverage,
    problems: validateAnySubmission(output),
  };
}

/** The text track: the runs' trajectories and submission.json written, then validated. */
function prepareTextDir(refs: readonly string[], options: SubmissionDirOptions): PreparedSubmissionDir {
  const { output } = options;
  const load = domainDataLoader(options);
  const { runs, dataDirs } = loadRuns(refs, options, load);
  const baseTaskIds = (domain: string) => baseSplitOf(load, domain, dataDirs.get(domain));
  const prepared = prepareSubmission(runs, options.metadata, {
    baseTaskIds,
    ...(options.today ? { today: options.today } : {}),
  });
  // Only what this writes is replaced: other files in the directory are the user's.
  const trajectoriesDir = path.join(output, "trajectories");
  if (options.force && existsSync(trajectoriesDir))
    for (const name of readdirSync(trajectoriesDir))
      if (name.endsWith(".json")) rmSync(path.join(trajectoriesDir, name));
  makeDirectory(trajectoriesDir, "--output");
  const trajectories = prepared.trajectories.map((trajectory) => {
    const file = path.join(trajectoriesDir, trajectory.fileName);
    writeResultsFile(file, trajectory.results);
    return { path: file, domain: trajectory.domain, simulations: trajectory.results.simulations.length };
  });
  const submissionFile = path.join(output, "submission.json");
  writeFileAtomic(submissionFile, `${JSON.stringify(prepared.submission, null, 2)}\n`);
  return {
    modality: "text",
    submission: prepared.submission,
    customReasons: Object.entries(prepared.deviations).flatMap(([domain, deviations]) =>
      deviations.filter((d) => d.kind !== "trials").map((d) => `${domain}: ${d.reason}`),
    ),
    skipped: [],
    trajectories,
    submissionFile,
    directoryName: submissionDirectoryName(prepared.submission),
    coverage: prepared.coverage,
    problems: validateSubmission(output, { baseTaskIds }),
  };
}

/**
 * The ids of a leaderboard domain's base split from its data (`dataDir`, else the default data dir), or
 * undefined when the data is not at hand. The leaderboard's domains are τ²'s own, so their data
 * directory layout is τ²'s; a domain passk does not know has no split to check.
 */
function baseSplitOf(load: DomainDataLoader, domain: string, dataDir: string | undefined) {
  if (!(LEADERBOARD_DOMAINS as readonly string[]).includes(domain)) return undefined;
  try {
    const data = load(domain, dataDir);
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

/** Each reference as one run per domain: a results file, or every domain of a stored run. */
function loadRuns(refs: readonly string[], options: SubmissionDirOptions, load: DomainDataLoader) {
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
      dataDirs.set(domain, options.dataDir ?? recordedDataDir(file.raw.info));
    } else if (looksLikePath(ref)) {
      throw new ConfigError(`${ref}: no such results file, and it is not a run id; check the path.`);
    } else {
      storeRefs.push(ref);
    }
  }
  if (storeRefs.length > 0)
    withStoreSource(options.store, (store) => {
      for (const ref of storeRefs) {
        const run = store.getRun(ref);
        if (run.domains.length === 0)
          throw new ConfigError(`run ${run.id} has no simulations yet; run it before submitting it.`);
        for (const domain of run.domains) {
          const results = withDomainEnvironment(runResults(store, run.id, { domain }), domain, run.id, {
            load,
            dataDir: options.dataDir,
          });
          runs.push({ domain, results, label: `run ${run.id} (${domain})` });
          dataDirs.set(domain, options.dataDir ?? recordedDataDir(results.info));
        }
      }
    });
  return { runs, dataDirs };
}

/**
 * The domain's results of a stored run. Runs over several domains keep each domain's environment
 * (`runResults` picks it); runs stored before they did have only the first domain's, so each other
 * domain's trajectory file gets its environment (name and policy) from the data.
 */
function withDomainEnvironment(
  results: ResultsInput,
  domain: string,
  runId: string,
  data: { load: DomainDataLoader; dataDir: string | undefined },
): ResultsInput {
  const environment = results.info.environment_info as { domain_name?: unknown } | null | undefined;
  if (environment?.domain_name === domain) return results;
  const config = RunConfigSchema.safeParse((results.info as { passk?: { config?: unknown } }).passk?.config);
  let policy: string;
  try {
    const domainData = data.load(domain, data.dataDir ?? recordedDataDir(results.info));
    policy =
      config.success && config.data.solo ? (domainData.soloPolicy ?? domainData.policy) : domainData.policy;
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
