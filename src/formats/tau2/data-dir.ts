import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { ConfigError } from "../../core/errors.js";

/** Per-user location of the official data that `passk data pull` fills. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_DATA_HOME || path.join(homedir(), ".local", "share");
  return path.join(base, "passk", "tau2-data");
}

/** Where τ² data is read from: `--data DIR`, else `PASSK_DATA_DIR`, else the per-user data dir. */
export function resolveDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = flag ?? env.PASSK_DATA_DIR ?? defaultDataDir(env);
  const source = flag ? "--data" : env.PASSK_DATA_DIR ? "PASSK_DATA_DIR" : "the default data directory";
  const resolved = path.resolve(chosen);
  if (!existsSync(resolved) || !statSync(resolved).isDirectory()) {
    throw new ConfigError(
      `no τ² data directory at ${resolved} (from ${source}). Run \`passk data pull\` to download the official data, ` +
        `or point --data / PASSK_DATA_DIR at a folder holding airline/, retail/, telecom/… (a copy of what \`passk data pull\` writes, from a machine with network).`,
    );
  }
  return resolved;
}
