import path from "node:path";

/** Where the store lives when neither `--store` nor `PASSK_STORE` says otherwise. */
export const DEFAULT_STORE = path.join(".passk", "passk.db");

/**
 * The store file: `--store PATH`, else `PASSK_STORE`, else `.passk/passk.db` under the current
 * directory (a project's runs stay with the project).
 */
export function resolveStorePath(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): string {
  return path.resolve(cwd, flag ?? (env.PASSK_STORE || DEFAULT_STORE));
}
