import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { resolveDataDir } from "../formats/tau2/data-dir.js";
import { resolveUpstreamDir } from "../formats/tau2/upstream/reference-texts.js";
import { getDomain } from "../domains/registry.js";
import { DomainCatalog } from "../formats/tau2/domain-catalog.js";
import type { DomainData } from "../formats/tau2/domain-data.js";

// What the tests compare passk with comes from two places, never from a folder beside the checkout:
// - the official data and the upstream source files, where `passk data pull` put them (`PASSK_DATA_DIR`
//   or the per-user data directory; `PASSK_TAU2_UPSTREAM` or `<data dir>/upstream`);
// - facts recorded by replaying the reference (outputs, hashes, outcomes, retrieval results), kept in
//   the repository compressed under test/fixtures/tau2/ (the reference's tool lists with every
//   description removed), and the reference's texts (prompts, tool descriptions) kept only as SHA-256
//   digests under test/fixtures/tau2/reference-digests/.

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const factsDir = path.join(repoRoot, "test", "fixtures", "tau2");
const digestsDir = path.join(factsDir, "reference-digests");

/** The official τ² data, where `passk data pull` put it (or `PASSK_DATA_DIR`). */
export function tau2DataDir(): string {
  return resolveDataDir(undefined);
}

/** The upstream source files: `PASSK_TAU2_UPSTREAM`, else `<data dir>/upstream` (as `passk data pull` lays them out). */
export function tau2UpstreamDir(): string {
  const dir = resolveUpstreamDir(undefined, process.env, tau2DataDir());
  if (dir === undefined)
    throw new Error(
      `no upstream source files in ${path.join(tau2DataDir(), "upstream")}: run \`npx passk data pull\` ` +
        "(README command 1), or set PASSK_TAU2_UPSTREAM to a copy of them.",
    );
  return dir;
}

/**
 * The reference's golden set for the τ-voice interaction metrics (`experiment/` in its directory format and
 * `expected_metrics.json`), where `passk data pull` put it: `<data dir>/voice/tests/…/testdata`.
 */
export function tau2VoiceGoldenDir(): string {
  const dir = path.join(
    tau2DataDir(),
    "voice",
    "tests",
    "test_voice",
    "test_interaction_metrics",
    "testdata",
  );
  if (!existsSync(path.join(dir, "expected_metrics.json")))
    throw new Error(
      `no τ-voice golden set in ${dir}: run \`npx passk data pull\` (README command 1) to fetch it.`,
    );
  return dir;
}

/** The reference's eight recorded utterances (16 kHz mono WAV), by name: each says the words of its name. */
export const RECORDED_UTTERANCES = [
  "check_order_12345",
  "hello",
  "help_me",
  "hi_how_are_you",
  "no",
  "order_status",
  "thank_you",
  "yes",
] as const;

export type RecordedUtterance = (typeof RECORDED_UTTERANCES)[number];

/**
 * One of the reference's recorded utterances, where `passk data pull` put it
 * (`<data dir>/voice/tests/test_voice/test_audio_native/testdata/<name>.wav`). `check_order_12345` says
 * "Can you check the status of my order number 12345?"; the others say their name.
 */
export function tau2RecordedUtterance(name: RecordedUtterance): string {
  const file = path.join(
    tau2DataDir(),
    "voice",
    "tests",
    "test_voice",
    "test_audio_native",
    "testdata",
    `${name}.wav`,
  );
  if (!existsSync(file))
    throw new Error(
      `no recorded utterance ${file}: run \`npx passk data pull\` (README command 1) to fetch it.`,
    );
  return file;
}

/**
 * A data directory like the one `passk data pull` fills, but without the upstream source files: the
 * domains' folders linked (read only) into a temporary folder.
 */
export function dataDirWithoutUpstream(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "passk-data-no-upstream-"));
  const data = tau2DataDir();
  for (const entry of readdirSync(data))
    if (entry !== "upstream") symlinkSync(path.join(data, entry), path.join(dir, entry));
  return dir;
}

/** A fact file recorded from the reference, e.g. `fixtures/gold_replay/airline.jsonl`. */
function readFact(relativePath: string): string {
  const file = path.join(factsDir, `${relativePath.replace(/^fixtures\//, "")}.gz`);
  return gunzipSync(readFileSync(file)).toString("utf8");
}

/** Whether the repository holds that fact file. */
export function hasFact(relativePath: string): boolean {
  return existsSync(path.join(factsDir, `${relativePath.replace(/^fixtures\//, "")}.gz`));
}

/** Parse a JSON-lines fact file. */
export function readJsonl<T = Record<string, unknown>>(relativePath: string): T[] {
  return readFact(relativePath)
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as T);
}

export function readFixtureJson<T = unknown>(relativePath: string): T {
  return JSON.parse(readFact(relativePath)) as T;
}

export const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");

/** JSON with object keys sorted: equal values give equal text whatever their key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

/** The reference's recorded fixtures, readable only where a maintainer re-records the digests. */
export interface ReferenceFixtures {
  text(relativePath: string): string;
  json<T = unknown>(relativePath: string): T;
}

/**
 * Set to a copy of the reference material (a folder holding `fixtures/`) to re-record the digests: each
 * check then compares with the reference's own text (showing the difference) and writes its digest.
 */
const recordFrom = process.env.PASSK_RECORD_REFERENCE_DIGESTS;

const digestFile = (key: string) => path.join(digestsDir, `${key.replace(/[^\w.-]+/g, "_")}.sha256`);

/** The recorded digest of a reference text; throws with the way to record it when there is none. */
export function referenceDigest(key: string): string {
  const file = digestFile(key);
  if (!existsSync(file))
    throw new Error(
      `no recorded digest ${path.relative(repoRoot, file)}: record it with ` +
        "PASSK_RECORD_REFERENCE_DIGESTS=<reference material> npx vitest run <this test>",
    );
  return readFileSync(file, "utf8").trim();
}

/**
 * The text passk produced must be the reference's, known here by its digest `key`; `expected` derives
 * the reference's text from its fixtures and runs only when re-recording.
 */
export function referenceTextMatches(
  actual: string,
  key: string,
  expected: (fixtures: ReferenceFixtures) => string,
): { equal: boolean; message: string } {
  if (recordFrom !== undefined) {
    const root = path.resolve(recordFrom);
    const fixtures: ReferenceFixtures = {
      text: (relative) => readFileSync(path.join(root, relative), "utf8"),
      json: <T>(relative: string) => JSON.parse(readFileSync(path.join(root, relative), "utf8")) as T,
    };
    const reference = expected(fixtures);
    mkdirSync(digestsDir, { recursive: true });
    writeFileSync(digestFile(key), `${sha256(reference)}\n`);
    return {
      equal: actual === reference,
      message: `differs from the reference's ${key}:\n--- passk\n${actual}\n--- reference\n${reference}`,
    };
  }
  const want = referenceDigest(key);
  const got = sha256(actual);
  return {
    equal: got === want,
    message:
      `differs from the reference's ${key} (sha256 ${got}, recorded ${want}); re-run this test with ` +
      "PASSK_RECORD_REFERENCE_DIGESTS=<reference material> to see the difference",
  };
}

const fixtureCatalog = new DomainCatalog();

/** A built-in domain's data from the test data directory, parsed once per test process. */
export function fixtureDomainData(name: string): DomainData {
  return fixtureCatalog.load(getDomain(name), { dataDir: tau2DataDir() });
}
