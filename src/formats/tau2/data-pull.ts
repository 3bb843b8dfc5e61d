import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ConfigError, PasskError } from "../../core/errors.js";
import {
  DATA_MODEL_MODULES,
  OFFICIAL_COMMIT,
  OFFICIAL_FILES,
  UPSTREAM_FILES,
  VOICE_DATA_FILES,
  VOICE_FILES,
  type DataModelModule,
} from "./official-manifest.js";
import { BANKING_KNOWLEDGE_FILES } from "./banking-knowledge-files.js";
import { checkDataModelSource } from "./upstream/data-models.js";
import { makeDirectory } from "../../core/make-directory.js";

export const DEFAULT_DATA_BASE_URL = "https://raw.githubusercontent.com/sierra-research/tau2-bench";

/** Downloads at once during a pull. */
const PULL_CONCURRENCY = 8;

/** A repository path as a URL path: each segment percent-encoded (document names hold `+`). */
function urlPath(remote: string): string {
  return remote.split("/").map(encodeURIComponent).join("/");
}

/** Git's blob hash of some bytes (what `git hash-object` prints). */
export function gitBlobHash(bytes: Uint8Array): string {
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

/** Where a file of data/tau2/ lands in a passk data dir: `domains/x/f` → `x/f`. */
export function localPathOf(officialPath: string): string {
  return officialPath.startsWith("domains/") ? officialPath.slice("domains/".length) : officialPath;
}

/** One file to fetch: where it is in the upstream repository, where it goes, and its git blob hash. */
export interface PullFile {
  /** Path inside the repository at the commit (`data/tau2/domains/airline/db.json`). */
  remote: string;
  /** Path inside the destination folder (`airline/db.json`). */
  local: string;
  /** Expected git blob hash; null when unknown (a commit other than the pinned one). */
  blob: string | null;
}

/** Where the upstream source files live in a data dir: `<data dir>/upstream/<path>`. */
export const UPSTREAM_FOLDER = "upstream";

/** Where the τ-voice golden set lives in a data dir: `<data dir>/voice/<path>`. */
export const VOICE_FOLDER = "voice";

/** An optional upstream data-model module: verified by the digest of what passk reads from it. */
export interface PullModelFile {
  remote: string;
  local: string;
  module: DataModelModule;
}

/**
 * The files `passk data pull` fetches for a commit: the official data, the upstream source texts, the
 * τ-voice golden set, settings and noise recordings (`voice`; `optionalVoice`: those a pull may go
 * without), and the optional data-model modules.
 */
export function pullFiles(ref: string = OFFICIAL_COMMIT): {
  data: PullFile[];
  upstream: PullFile[];
  voice: PullFile[];
  optionalVoice: PullFile[];
  models: PullModelFile[];
} {
  const pinned = ref === OFFICIAL_COMMIT;
  return {
    data: [...OFFICIAL_FILES, ...BANKING_KNOWLEDGE_FILES].map((f) => ({
      remote: `data/tau2/${f.path}`,
      local: localPathOf(f.path),
      blob: pinned ? f.blob : null,
    })),
    upstream: UPSTREAM_FILES.map((f) => ({
      remote: f.path,
      local: path.join(UPSTREAM_FOLDER, f.path),
      blob: pinned ? f.blob : null,
    })),
    voice: [
      ...VOICE_FILES.map((f) => ({
        remote: f.path,
        local: path.join(VOICE_FOLDER, f.path),
        blob: pinned ? f.blob : null,
      })),
      ...VOICE_DATA_FILES.filter((f) => !f.optional).map((f) => ({
        remote: f.remote,
        local: f.local,
        blob: pinned ? f.blob : null,
      })),
    ],
    optionalVoice: VOICE_DATA_FILES.filter((f) => f.optional).map((f) => ({
      remote: f.remote,
      local: f.local,
      blob: pinned ? f.blob : null,
    })),
    models: DATA_MODEL_MODULES.map((module) => ({
      remote: module.path,
      local: path.join(UPSTREAM_FOLDER, module.path),
      module,
    })),
  };
}

export interface PullOptions {
  dest: string;
  ref?: string;
  baseUrl?: string;
  /**
   * A folder that already holds the upstream source files in the repository's layout
   * (`PASSK_TAU2_UPSTREAM`): they are verified there instead of downloaded into `dest`.
   */
  upstreamDir?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  onFile?: (event: { path: string; status: "downloaded" | "up-to-date" }) => void;
  /** A one-line warning about an optional file (default: written to stderr). */
  onWarning?: (message: string) => void;
}

export interface PullResult {
  downloaded: string[];
  upToDate: string[];
  /** Optional τ-voice files and data-model modules that are not in place (each also reported through `onWarning`). */
  missingOptional: string[];
}

/** What a missing data-model module means for a run, appended to every warning about one. */
export const MISSING_MODEL_CONSEQUENCE =
  "tool schemas will carry the nested models without their descriptions; everything else is exact";

/**
 * Download the official data files of an upstream tau2-bench commit into `dest`, and the upstream source
 * files whose texts passk shows models under the τ² protocol into `dest/upstream/`, verifying each
 * file's git blob hash and writing each one atomically (temp file + rename). Files already present with
 * the right hash are kept, so a second pull reads the disk only and works offline. Any failure stops
 * with a clear error; nothing unverified is written.
 */
export async function pullOfficialData(options: PullOptions): Promise<PullResult> {
  const ref = options.ref ?? OFFICIAL_COMMIT;
  const base = (options.baseUrl ?? DEFAULT_DATA_BASE_URL).replace(/\/+$/, "");
  const files = pullFiles(ref);
  const result: PullResult = { downloaded: [], upToDate: [], missingOptional: [] };
  if (options.upstreamDir !== undefined) {
    verifyUpstreamCopy(options.upstreamDir, files.upstream);
    result.upToDate.push(...files.upstream.map((f) => f.remote));
  }
  const wanted = [
    ...files.data,
    ...(options.upstreamDir === undefined ? files.upstream : []),
    ...files.voice,
  ];
  const pullOne = async (file: PullFile): Promise<void> => {
    const target = path.join(options.dest, file.local);
    if (file.blob && existsSync(target) && gitBlobHash(readFileSync(target)) === file.blob) {
      result.upToDate.push(file.remote);
      options.onFile?.({ path: file.remote, status: "up-to-date" });
      return;
    }
    const bytes = await download(`${base}/${ref}/${urlPath(file.remote)}`, options);
    if (file.blob) {
      const actual = gitBlobHash(bytes);
      if (actual !== file.blob) {
        throw new PasskError(
          "data_verification_failed",
          `${file.remote} from ${base}/${ref} has git blob hash ${actual}, expected ${file.blob}; the file was not written. The download may be corrupt or the upstream file changed: retry, or pass --ref for another commit.`,
        );
      }
    }
    writeAtomically(target, bytes);
    result.downloaded.push(file.remote);
    options.onFile?.({ path: file.remote, status: "downloaded" });
  };
  // banking_knowledge alone is 814 files: a few downloads at a time, stopping at the first failure.
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < wanted.length) {
      const file = wanted[next++]!;
      try {
        await pullOne(file);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const workers = Array.from({ length: Math.min(PULL_CONCURRENCY, wanted.length) }, worker);
  const settled = await Promise.allSettled(workers);
  const rejection = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (rejection) throw rejection.reason;
  await pullOptionalVoice(files.optionalVoice, { ...options, ref, base }, result);
  await pullDataModels(files.models, { ...options, ref, base }, result);
  return result;
}

/** What going without an optional τ-voice file means, appended to the warning about it. */
export function missingVoiceConsequence(remote: string): string {
  if (remote.endsWith("/tasks_voice.json"))
    return `voice runs on ${path.basename(path.dirname(remote))} cannot read their voice settings`;
  return `voice runs whose settings name ${path.basename(remote)} need it, or another recording in its place`;
}

/**
 * The optional τ-voice files (known blob hashes, not in every copy of the reference material). One in
 * place with the right hash is up to date; otherwise it is fetched when this pull downloaded something
 * else or no `.unavailable` marker says an earlier pull at this ref already failed (as for the data-model
 * modules). One that cannot be fetched or verified is not written: a one-line warning, and success.
 */
async function pullOptionalVoice(
  files: readonly PullFile[],
  options: PullOptions & { ref: string; base: string },
  result: PullResult,
): Promise<void> {
  const warn = options.onWarning ?? ((message: string) => void process.stderr.write(`${message}\n`));
  const networkUsed = result.downloaded.length > 0;
  for (const file of files) {
    const target = path.join(options.dest, file.local);
    if (existsSync(target) && (file.blob === null || gitBlobHash(readFileSync(target)) === file.blob)) {
      result.upToDate.push(file.remote);
      options.onFile?.({ path: file.remote, status: "up-to-date" });
      continue;
    }
    const marker = unavailableMarker(target);
    const missing = (why: string) => {
      result.missingOptional.push(file.remote);
      warn(`warning: optional τ-voice file ${file.remote} ${why}: ${missingVoiceConsequence(file.remote)}.`);
    };
    if (!networkUsed && markerRef(marker) === options.ref) {
      missing(`was not fetched: an earlier pull could not get it (see ${marker}; delete it to try again)`);
      continue;
    }
    const url = `${options.base}/${options.ref}/${urlPath(file.remote)}`;
    const fetched = await tryDownload(url, options);
    let failure: string;
    if ("failure" in fetched) failure = `could not be downloaded (${fetched.failure})`;
    else if (file.blob !== null && gitBlobHash(fetched.bytes) !== file.blob)
      failure = `has git blob hash ${gitBlobHash(fetched.bytes)}, expected ${file.blob}, so it was not written`;
    else {
      writeAtomically(target, fetched.bytes);
      rmSync(marker, { force: true });
      result.downloaded.push(file.remote);
      options.onFile?.({ path: file.remote, status: "downloaded" });
      continue;
    }
    makeDirectory(path.dirname(marker));
    writeFileSync(marker, `${JSON.stringify({ ref: options.ref, url, reason: failure })}\n`);
    missing(failure);
  }
}

/** The marker a pull leaves beside an optional file it could not fetch: `<file>.unavailable`. */
export function unavailableMarker(target: string): string {
  return `${target}.unavailable`;
}

/**
 * The optional data-model modules. Each one is verified by the digest of the `$defs` entries read from
 * it, never by blob hash (passk does not know those); one that cannot be fetched, read or verified is not
 * written, gets a one-line warning, and the pull still succeeds.
 *
 * When to fetch (so that a pull that finds everything in place stays offline): a module already on disk
 * that verifies is up to date. Otherwise it is fetched only when this pull downloaded some other file
 * (the network is evidently there and in use), or when no `<module>.unavailable` marker says that an
 * earlier pull at this ref already tried and failed. A failed attempt leaves that marker; a later success
 * removes it. So a first pull tries once, a repeated pull with everything else up to date makes no
 * request, and a pull that fetches new data retries.
 *
 * With `upstreamDir` (PASSK_TAU2_UPSTREAM) nothing is fetched: an absent module is fine, a present one is
 * verified in place.
 */
async function pullDataModels(
  models: readonly PullModelFile[],
  options: PullOptions & { ref: string; base: string },
  result: PullResult,
): Promise<void> {
  const warn = options.onWarning ?? ((message: string) => void process.stderr.write(`${message}\n`));
  const missing = (remote: string, why: string) => {
    result.missingOptional.push(remote);
    const line = `warning: optional upstream data model ${remote} ${why}: ${MISSING_MODEL_CONSEQUENCE}.`;
    warn(line.replace(/\s*\n\s*/g, " "));
  };
  const verifies = (model: PullModelFile, bytes: Uint8Array) =>
    checkDataModelSource(model.module, Buffer.from(bytes).toString("utf8"));

  if (options.upstreamDir !== undefined) {
    for (const model of models) {
      const full = path.join(options.upstreamDir, model.remote);
      if (!existsSync(full)) continue;
      const check = verifies(model, readFileSync(full));
      if (check.status === "verified") result.upToDate.push(model.remote);
      else missing(model.remote, `in ${options.upstreamDir} is not usable (${check.reason})`);
    }
    return;
  }

  const networkUsed = result.downloaded.length > 0;
  for (const model of models) {
    const target = path.join(options.dest, model.local);
    const marker = unavailableMarker(target);
    const onDisk = existsSync(target) ? verifies(model, readFileSync(target)) : undefined;
    if (onDisk?.status === "verified") {
      result.upToDate.push(model.remote);
      options.onFile?.({ path: model.remote, status: "up-to-date" });
      continue;
    }
    if (!networkUsed && markerRef(marker) === options.ref) {
      missing(
        model.remote,
        `was not fetched: an earlier pull could not get it (see ${marker}; delete it to try again)`,
      );
      continue;
    }
    const url = `${options.base}/${options.ref}/${model.remote}`;
    const fetched = await tryDownload(url, options);
    let failure: string;
    if ("failure" in fetched) {
      failure = `could not be downloaded (${fetched.failure})`;
    } else {
      const check = verifies(model, fetched.bytes);
      if (check.status === "verified") {
        writeAtomically(target, fetched.bytes);
        rmSync(marker, { force: true });
        result.downloaded.push(model.remote);
        options.onFile?.({ path: model.remote, status: "downloaded" });
        continue;
      }
      failure =
        check.status === "mismatch"
          ? `does not give the expected schemas (${check.reason}), so it was not written`
          : `could not be read (${check.reason}), so it was not written`;
    }
    makeDirectory(path.dirname(marker));
    writeFileSync(marker, `${JSON.stringify({ ref: options.ref, url, reason: failure })}\n`);
    missing(model.remote, failure);
  }
}

/** The ref an `.unavailable` marker was written for, if there is a readable one. */
function markerRef(marker: string): string | undefined {
  if (!existsSync(marker)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(marker, "utf8")) as { ref?: unknown };
    return typeof parsed.ref === "string" ? parsed.ref : undefined;
  } catch {
    return undefined;
  }
}

/** A copy of the upstream files named by `PASSK_TAU2_UPSTREAM` must be complete and exact. */
function verifyUpstreamCopy(dir: string, files: readonly PullFile[]): void {
  const problems: string[] = [];
  for (const file of files) {
    const relative = path.relative(UPSTREAM_FOLDER, file.local);
    const full = path.join(dir, relative);
    if (!existsSync(full)) problems.push(`${relative} is missing`);
    else if (file.blob && gitBlobHash(readFileSync(full)) !== file.blob)
      problems.push(`${relative} differs from the pinned commit (git blob hash is not ${file.blob})`);
  }
  if (problems.length > 0) {
    throw new ConfigError(
      `the upstream source files at ${dir} (PASSK_TAU2_UPSTREAM) are not usable: ${problems.join("; ")}. ` +
        "Unset PASSK_TAU2_UPSTREAM to download them with `passk data pull`, or point it at a complete copy.",
    );
  }
}

type Fetched = { bytes: Uint8Array } | { failure: string; http?: number; error?: unknown };

/** One GET: the bytes, or a short reason (the network error's code, or the HTTP status). */
async function tryDownload(url: string, options: PullOptions): Promise<Fetched> {
  const doFetch = options.fetch ?? fetch;
  let response: Response;
  try {
    response = await doFetch(url, { signal: AbortSignal.timeout(options.timeoutMs ?? 60_000) });
    if (!response.ok) return { failure: `HTTP ${response.status}`, http: response.status };
    return { bytes: new Uint8Array(await response.arrayBuffer()) };
  } catch (error) {
    // undici says only "fetch failed"; the reason (ENOTFOUND, ECONNREFUSED, "bad port") is in its cause.
    const inner = (error as { cause?: { code?: string; message?: string } }).cause;
    return { failure: inner?.code ?? inner?.message ?? (error as Error).message, error };
  }
}

async function download(url: string, options: PullOptions): Promise<Uint8Array> {
  const fetched = await tryDownload(url, options);
  if ("bytes" in fetched) return fetched.bytes;
  if (fetched.http !== undefined) {
    throw new ConfigError(
      `downloading ${url} failed with HTTP ${fetched.http}; check --ref (a tau2-bench commit) and --base-url.`,
    );
  }
  throw new ConfigError(
    `could not download ${url} (${fetched.failure}). Are you offline? Check the network, or point --data / PASSK_DATA_DIR at an existing copy of the data (what \`passk data pull\` writes, copied from a machine with network) and PASSK_TAU2_UPSTREAM at a copy of the upstream source files.`,
    { cause: fetched.error },
  );
}

function writeAtomically(target: string, bytes: Uint8Array): void {
  makeDirectory(path.dirname(target), "the data folder");
  const temporary = `${target}.partial-${process.pid}`;
  try {
    writeFileSync(temporary, bytes);
    renameSync(temporary, target);
  } finally {
    rmSync(temporary, { force: true });
  }
}
