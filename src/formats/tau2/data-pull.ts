import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ConfigError, PasskError } from "../../core/errors.js";
import { OFFICIAL_COMMIT, OFFICIAL_FILES, UPSTREAM_FILES } from "./official-manifest.js";

export const DEFAULT_DATA_BASE_URL = "https://raw.githubusercontent.com/sierra-research/tau2-bench";

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

/** The files `passk data pull` fetches for a commit: the official data and the upstream source texts. */
export function pullFiles(ref: string = OFFICIAL_COMMIT): { data: PullFile[]; upstream: PullFile[] } {
  const pinned = ref === OFFICIAL_COMMIT;
  return {
    data: OFFICIAL_FILES.map((f) => ({
      remote: `data/tau2/${f.path}`,
      local: localPathOf(f.path),
      blob: pinned ? f.blob : null,
    })),
    upstream: UPSTREAM_FILES.map((f) => ({
      remote: f.path,
      local: path.join(UPSTREAM_FOLDER, f.path),
      blob: pinned ? f.blob : null,
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
}

export interface PullResult {
  downloaded: string[];
  upToDate: string[];
}

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
  const result: PullResult = { downloaded: [], upToDate: [] };
  if (options.upstreamDir !== undefined) {
    verifyUpstreamCopy(options.upstreamDir, files.upstream);
    result.upToDate.push(...files.upstream.map((f) => f.remote));
  }
  const wanted = options.upstreamDir === undefined ? [...files.data, ...files.upstream] : files.data;
  for (const file of wanted) {
    const target = path.join(options.dest, file.local);
    if (file.blob && existsSync(target) && gitBlobHash(readFileSync(target)) === file.blob) {
      result.upToDate.push(file.remote);
      options.onFile?.({ path: file.remote, status: "up-to-date" });
      continue;
    }
    const bytes = await download(`${base}/${ref}/${file.remote}`, options);
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
  }
  return result;
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

async function download(url: string, options: PullOptions): Promise<Uint8Array> {
  const doFetch = options.fetch ?? fetch;
  let response: Response;
  try {
    response = await doFetch(url, { signal: AbortSignal.timeout(options.timeoutMs ?? 60_000) });
  } catch (error) {
    // undici says only "fetch failed"; the reason (ENOTFOUND, ECONNREFUSED, "bad port") is in its cause.
    const inner = (error as { cause?: { code?: string; message?: string } }).cause;
    const cause = inner?.code ?? inner?.message ?? (error as Error).message;
    throw new ConfigError(
      `could not download ${url} (${cause}). Are you offline? Check the network, or point --data / PASSK_DATA_DIR at an existing copy of the data (e.g. ../shared/tau2/data) and PASSK_TAU2_UPSTREAM at a copy of the upstream source files.`,
      { cause: error },
    );
  }
  if (!response.ok) {
    throw new ConfigError(
      `downloading ${url} failed with HTTP ${response.status}; check --ref (a tau2-bench commit) and --base-url.`,
    );
  }
  return new Uint8Array(await response.arrayBuffer());
}

function writeAtomically(target: string, bytes: Uint8Array): void {
  mkdirSync(path.dirname(target), { recursive: true });
  const temporary = `${target}.partial-${process.pid}`;
  try {
    writeFileSync(temporary, bytes);
    renameSync(temporary, target);
  } finally {
    rmSync(temporary, { force: true });
  }
}
