import { spawnSync } from "node:child_process";
import { chmodSync, closeSync, copyFileSync, cpSync, mkdtempSync, openSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { describeError, systemFailure } from "../../src/cli/context.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { REPO_ROOT, runCli } from "../helpers/run-cli.js";
import { runCliInProcess } from "../helpers/run-cli-in-process.js";

// What the machine throws at passk — a damaged store, a full disk, a refused permission, an input too
// large to hold — reaches the user as one sentence with the fix, never a stack trace.

const dir = mkdtempSync(path.join(tmpdir(), "passk-hostile-cli-"));
const env = { PASSK_DATA_DIR: tau2DataDir() };

const errno = (code: string, message: string, file?: string) =>
  Object.assign(new Error(message), { code, ...(file ? { path: file } : {}) });

describe("the CLI's error boundary", () => {
  it.each([
    [
      errno("ENOSPC", "no space left on device", "/data/.passk/passk.db-wal"),
      /^error: the disk is full \(\/data.*--resume/,
    ],
    [errno("SQLITE_FULL", "database or disk is full"), /^error: the disk is full: nothing was lost/],
    [
      errno("EACCES", "permission denied", "/data/airline/db.json"),
      /^error: permission denied \(\/data\/airline\/db\.json\)/,
    ],
    [
      errno("SQLITE_READONLY", "attempt to write a readonly database"),
      /^error: the store or file is read-only/,
    ],
    [
      errno("SQLITE_CORRUPT", "database disk image is malformed"),
      /^error: the store is damaged \(database disk image is malformed\)/,
    ],
    [
      errno("ERR_STRING_TOO_LONG", "Cannot create a string longer than 0x1fffffe8 characters"),
      /too large to read into memory/,
    ],
    [new RangeError("Invalid array length"), /too large to hold in memory/],
  ])("%s → one sentence, no stack", (error, expected) => {
    const text = describeError(error);
    expect(text).toMatch(expected);
    expect(text).not.toContain("    at ");
  });

  it("keeps the stack only for failures nobody foresaw (a bug to report)", () => {
    expect(systemFailure(new TypeError("x is undefined"))).toBeUndefined();
    expect(describeError(new TypeError("x is undefined"))).toContain("TypeError: x is undefined\n    at ");
  });

  it("a damaged store is said to be damaged by `runs list` too, not only by the command that trips on it", async () => {
    const store = path.join(dir, "damaged.db");
    const made = await runCliInProcess(
      ["run", "--domain", "mock", "--agent-llm", "scripted:gold", "--store", store, "--progress", "none"],
      env,
    );
    expect(made.code, made.stderr).toBe(0);
    // Overwrite pages in the middle of the file.
    copyFileSync(store, `${store}.bak`);
    const fd = openSync(store, "r+");
    writeSync(fd, Buffer.alloc(3000, 0x5a), 0, 3000, 4096 * 2);
    closeSync(fd);
    const listed = await runCliInProcess(["runs", "list", "--store", store], env);
    expect(listed.code).toBe(1);
    expect(listed.stderr).toMatch(/^error: .*damaged\.db is damaged \(.*\): restore it from a backup/);
    expect(listed.stderr).not.toContain("    at ");
  });
});

describe("what a user without permissions sees", () => {
  // As root (CI), the CLI runs as `nobody`; as anyone else, as that user: either way, one without rights.
  const uid = process.getuid?.() === 0 ? 65534 : undefined;
  // `nobody` must be able to run passk from this checkout at all (a checkout under a private home
  // folder would not let it); the cases are skipped, saying so, where it cannot.
  const runnable =
    uid === undefined ||
    spawnSync(
      process.execPath,
      ["-e", `require("fs").accessSync(${JSON.stringify(path.join(REPO_ROOT, "dist", "cli", "main.js"))})`],
      {
        uid,
        gid: uid,
      },
    ).status === 0;

  it.runIf(runnable)(
    "a store in a read-only folder: a sentence saying so, not 'not a passk store'",
    async () => {
      const folder = mkdtempSync(path.join(tmpdir(), "passk-readonly-"));
      const store = path.join(folder, "passk.db");
      const run = await runCliInProcess(
        ["run", "--domain", "mock", "--agent-llm", "scripted:gold", "--num-tasks", "1", "--store", store],
        env,
      );
      expect(run.code, run.stderr).toBe(0);
      chmodSync(store, 0o444);
      chmodSync(folder, 0o555);
      try {
        const listed = await runCli(["runs", "list", "--store", store], {
          env,
          ...(uid !== undefined ? { uid } : {}),
        });
        expect(listed.code).toBe(1);
        expect(listed.stderr).toContain(
          `error: cannot use the store ${store}: it or its folder is read-only`,
        );
        expect(listed.stderr).not.toContain("not a passk store");
      } finally {
        chmodSync(folder, 0o755);
      }
    },
  );

  it.runIf(runnable)("a data file it may not read: permission denied, with the fix", async () => {
    const data = mkdtempSync(path.join(tmpdir(), "passk-unreadable-"));
    cpSync(path.join(tau2DataDir(), "mock"), path.join(data, "mock"), { recursive: true });
    chmodSync(data, 0o755);
    chmodSync(path.join(data, "mock"), 0o755);
    chmodSync(path.join(data, "mock", "db.json"), 0o000);
    const listed = await runCli(["tasks", "list", "--domain", "mock"], {
      env: { PASSK_DATA_DIR: data },
      ...(uid !== undefined ? { uid } : {}),
    });
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain("permission denied: this user may not read it");
    expect(listed.stderr).toContain("fix the file's permissions");
  });
});

describe("a disk that fills up during a run", () => {
  // A real full disk: a tiny tmpfs in a mount namespace of our own (no root needed where user
  // namespaces are allowed; skipped, saying so, where they are not).
  const namespaces = spawnSync("unshare", ["-rm", "true"]).status === 0;

  it.runIf(namespaces)(
    "stops with a sentence naming the run to resume; once there is room, the resume completes it",
    () => {
      const bin = `${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(REPO_ROOT, "bin", "passk.js"))}`;
      const mount = mkdtempSync(path.join(tmpdir(), "passk-full-"));
      const script = [
        "set -u",
        `mount -t tmpfs -o size=400k tmpfs ${mount}`,
        `${bin} run --domain mock --agent-llm scripted:gold --num-trials 100 --store ${mount}/passk.db --progress none 2>${mount}/first.err`,
        'echo "first-exit=$?"',
        `cat ${mount}/first.err`,
        `id=$(sed -n 's/.*--resume \\([0-9-]*[0-9a-f]\\{4\\}\\).*/\\1/p' ${mount}/first.err | head -1)`,
        `mount -o remount,size=64m ${mount}`,
        `${bin} run --resume "$id" --store ${mount}/passk.db --progress none >/dev/null 2>${mount}/second.err`,
        'echo "second-exit=$?"',
        `${bin} runs list --store ${mount}/passk.db`,
      ].join("\n");
      const result = spawnSync("unshare", ["-rm", "sh", "-c", script], {
        env: { ...process.env, PASSK_DATA_DIR: tau2DataDir() },
        encoding: "utf8",
      });
      const out = result.stdout;
      expect(out, result.stderr).toContain("first-exit=1");
      expect(out).toMatch(
        /error: the disk is full: nothing was lost that was already stored; free some space and run the command again\. Run (\d{8}-\d{6}-[0-9a-f]{4}) keeps every conversation stored so far: continue it with `passk run --resume \1`\./,
      );
      expect(out).not.toContain("    at ");
      expect(out).toContain("second-exit=0");
      // Every (task, trial) exactly once after the resume.
      expect(out).toMatch(/completed\s+mock\s+scripted:gold\s+100\s+1000\s/);
    },
  );
});
