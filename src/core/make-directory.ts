import { mkdirSync, statSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "./errors.js";

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Create a folder and its missing parents, one level at a time. Node's `mkdir({ recursive: true })`
 * loops forever where a parent exists but refuses new entries with ENOENT (under /proc or /sys), so
 * `--save-to /proc/x/r.json` used to spin at 100 % CPU; this walk ends. `purpose` names the flag or
 * file the folder is for, in the sentence a refusal gives.
 */
export function makeDirectory(folder: string, purpose?: string): void {
  const forWhat = purpose ? ` for ${purpose}` : "";
  const missing: string[] = [];
  let current = path.resolve(folder);
  for (;;) {
    let isDirectory: boolean | undefined;
    try {
      isDirectory = statSync(current).isDirectory();
    } catch (error) {
      // ENOTDIR: a file further up; the walk reaches it and says so.
      if (errorCode(error) !== "ENOENT" && errorCode(error) !== "ENOTDIR") throw error;
    }
    if (isDirectory === false)
      throw new ConfigError(
        `cannot create the folder ${path.resolve(folder)}${forWhat}: ${current} is a file, not a folder; choose another path`,
      );
    if (isDirectory) break;
    missing.push(current);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const level of missing.reverse()) {
    try {
      mkdirSync(level);
    } catch (error) {
      if (errorCode(error) === "EEXIST" && statSync(level).isDirectory()) continue;
      if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR")
        throw new ConfigError(
          `cannot create the folder ${level}${forWhat}: ${path.dirname(level)} takes no new folders (${errorCode(error)}); choose another path`,
        );
      throw error;
    }
  }
}
