import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/run-cli.js";

// F5-b: an input file that is not a regular file (a FIFO nobody writes to, an endless device) is
// refused with one sentence instead of blocking the command forever.

const fifoSupported = spawnSync("mkfifo", ["--version"]).status === 0;

function passk(args: string[]) {
  // A hang before the fix is killed after 60 s (the refusal takes about a second even under load).
  return spawnSync(process.execPath, [path.join(REPO_ROOT, "bin", "passk.js"), ...args], {
    encoding: "utf8",
    timeout: 60_000,
  });
}

describe("a results input that is not a regular file", () => {
  it.runIf(fifoSupported)(
    "report FIFO: refused with a sentence, no hang",
    () => {
      const fifo = path.join(mkdtempSync(path.join(tmpdir(), "passk-fifo-")), "results.json");
      expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
      const result = passk(["report", fifo]);
      expect(result.signal).toBeNull();
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`${fifo} is not valid`);
      expect(result.stderr).toContain("is not a regular file");
      expect(result.stderr).not.toContain("    at ");
    },
    90_000,
  );

  it("score /dev/zero: refused with a sentence, no endless read", () => {
    const result = passk(["score", "/dev/zero"]);
    expect(result.signal).toBeNull();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("/dev/zero is not valid");
    expect(result.stderr).toContain("is not a regular file");
  }, 90_000);
});
