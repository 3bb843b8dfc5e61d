import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ConfigError, PasskError } from "../../core/errors.js";
import { OFFICIAL_COMMIT, OFFICIAL_FILES } from "./official-manifest.js";

export const DEFAULT_DATA_BASE_URL = "https://raw.githubusercontent.com/sierra-research/tau2-bench";

/** Git's blob hash of some bytes (what `git hash-object` prints). */
export function gitBlobHash(bytes: Uint8Array): string {
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

/** Where a file of data/tau2/ lands in a passk data dir: `domains/x/f` → `x/f`. */
export function localPathOf(officialPath: string): string {
  return officialPath.startsWith("domains/") ? officialPath.slice("domains/".length) : officialPath;
}

export interface PullOptions {
  dest: string;
  ref?: string;
  baseUrl?: string;
  /** Expected blob hashes; defaults to the manifest of the pinned commit (only valid for that ref). */
  files?: ReadonlyArray<{ path: string; blob: string | null; size?: number }>;
  fetch?: typeof fetch;
  timeoutMs?: number;
  onFile?: (event: { path: string; status: "downloaded" | "up-to-date" }) => void;
}

export interface PullResult {
  downloaded: string[];
  upToDate: string[];
}

/**
 * Download the official data files of an upstream tau2-bench commit into `dest`, verifying each
 * file's git blob hash and writing each one atomically (temp file + rename). Files already present with
 * the right hash are kept. Any failure stops with a clear error; nothing unverified is written.
 */
export async function pullOfficialData(options: PullOptions): Promise<PullResult> {
  const ref = options.ref ?? OFFICIAL_COMMIT;
  const base = (options.baseUrl ?? DEFAULT_DATA_BASE_URL).replace(/\/+$/, "");
  const doFetch = options.fetch ?? fetch;
  const files =
    options.files ??
    (ref === OFFICIAL_COMMIT ? OFFICIAL_FILES : OFFICIAL_FILES.map((f) => ({ path: f.path, blob: null })));
  const result: PullResult = { downloaded: [], upToDate: [] };
  for (const file of files) {
    const target = path.join(options.dest, localPathOf(file.path));
    if (file.blob && existsSync(target) && gitBlobHash(readFileSync(target)) === file.blob) {
      result.upToDate.push(file.path);
      options.onFile?.({ path: file.path, status: "up-to-date" });
      continue;
    }
    const url = `${base}/${ref}/data/tau2/${file.path}`;
    let response: Response;
    try {
      response = await doFetch(url, { signal: AbortSignal.timeout(options.timeoutMs ?? 60_000) });
    } catch (error) {
      // undici says only "fetch failed"; the reason (ENOTFOUND, ECONNREFUSED, "bad port") is in its cause.
      const inner = (error as { cause?: { code?: string; message?: string } }).cause;
      const cause = inner?.code ?? inner?.message ?? (error as Error).message;
      throw new ConfigError(
        `could not download ${url} (${cause}). Are you offline? Check the network, or point --data / PASSK_DATA_DIR at an existing copy of the data (e.g. ../shared/tau2/data).`,
        { cause: error },
      );
    }
    if (!response.ok) {
      throw new ConfigError(
        `downloading ${url} failed with HTTP ${response.status}; check --ref (a tau2-bench commit) and --base-url.`,
      );
    }
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (file.blob) {
      const actual = gitBlobHash(bytes);
      if (actual !== file.blob) {
        throw new PasskError(
          "data_verification_failed",
          `${file.path} from ${url} has git blob hash ${actual}, expected ${file.blob}; the file was not written. The download may be corrupt or the upstream file changed: retry, or pass --ref for another commit.`,
        );
      }
    }
    mkdirSync(path.dirname(target), { recursive: true });
    const temporary = `${target}.partial-${process.pid}`;
    try {
      writeFileSync(temporary, bytes);
      renameSync(temporary, target);
    } finally {
      rmSync(temporary, { force: true });
    }
    result.downloaded.push(file.path);
    options.onFile?.({ path: file.path, status: "downloaded" });
  }
  return result;
}
