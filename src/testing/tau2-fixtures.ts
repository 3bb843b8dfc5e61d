import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The τ²-bench reference material (official data and conformance fixtures): `PASSK_TAU2_DIR`, else
 * `../shared/tau2` beside the repository.
 */
export function tau2Dir(): string {
  const fromEnv = process.env.PASSK_TAU2_DIR;
  if (fromEnv) return path.resolve(fromEnv);
  const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
  return path.resolve(repoRoot, "..", "shared", "tau2");
}

export function tau2DataDir(): string {
  return path.join(tau2Dir(), "data");
}

export function hasTau2Fixtures(): boolean {
  return existsSync(path.join(tau2Dir(), "fixtures"));
}

/** Parse a JSON-lines fixture file. */
export function readJsonl<T = Record<string, unknown>>(relativePath: string): T[] {
  const text = readFileSync(path.join(tau2Dir(), relativePath), "utf8");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as T);
}

export function readFixtureJson<T = unknown>(relativePath: string): T {
  return JSON.parse(readFileSync(path.join(tau2Dir(), relativePath), "utf8")) as T;
}
