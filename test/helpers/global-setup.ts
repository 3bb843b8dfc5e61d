import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { defaultDataDir } from "../../src/formats/tau2/data-dir.js";

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/** CLI tests run the built `passk`; rebuild when the sources are newer than dist/. */
export default function setup(): void {
  const root = path.resolve(import.meta.dirname, "..", "..");
  // Say once, before hundreds of tests fail on it, where the official data should be.
  const dataDir = process.env.PASSK_DATA_DIR ?? defaultDataDir();
  if (!existsSync(path.join(dataDir, "airline", "tasks.json")))
    throw new Error(
      `the tests need the official τ² data, not found in ${dataDir}: run \`npx passk data pull\` ` +
        "(README command 1), or set PASSK_DATA_DIR to a copy of it.",
    );
  const built = path.join(root, "dist", "cli", "main.js");
  if (existsSync(built) && statSync(built).mtimeMs >= newestMtime(path.join(root, "src"))) return;
  try {
    execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
  } catch {
    // `npm test` builds before testing; here a broken work-in-progress file only makes dist/ stale.
    console.warn("passk: rebuilding dist/ failed; CLI tests run against the previous build");
  }
}
