import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { REPO_ROOT, runCli } from "../helpers/run-cli.js";

// A results file is written whole or not at all: a full disk never leaves a truncated file that says
// "wrote", never replaces a good file with part of a new one, and never leaves its temporary file behind.

const env = { PASSK_DATA_DIR: tau2DataDir() };
const bin = `${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(REPO_ROOT, "bin", "passk.js"))}`;
const gold = "--agent-llm scripted:gold --user-llm scripted:gold --progress none";

/** Run `script` in a mount namespace of its own, where `$M` is a tmpfs of `size`. */
function onTinyDisk(size: string, script: string[]) {
  const mount = mkdtempSync(path.join(tmpdir(), "passk-tiny-"));
  const result = spawnSync(
    "unshare",
    ["-rm", "sh", "-c", [`M=${mount}`, `mount -t tmpfs -o size=${size} tmpfs $M`, ...script].join("\n")],
    { env: { ...process.env, ...env }, encoding: "utf8" },
  );
  return { out: result.stdout, err: result.stderr };
}

describe("a results file on a disk that fills up", () => {
  const namespaces = spawnSync("unshare", ["-rm", "true"]).status === 0;

  it.runIf(namespaces)("run --save-to: the disk-full sentence, exit 1, no file and no temporary file", () => {
    const store = path.join(mkdtempSync(path.join(tmpdir(), "passk-tiny-store-")), "s.db");
    const { out, err } = onTinyDisk("64k", [
      `${bin} run --domain airline --num-tasks 10 ${gold} --store ${store} --save-to $M/r.json 2>&1`,
      'echo "exit=$?"',
      "ls -a $M",
    ]);
    expect(out, err).toContain("exit=1");
    expect(out).toContain("error: the disk is full");
    expect(out).not.toContain("wrote ");
    expect(out).not.toContain("    at ");
    expect(out).not.toMatch(/r\.json|\.tmp/);
  });

  it.runIf(namespaces)(
    "run --save-to over a good file: the good file is kept byte for byte when the new one does not fit",
    () => {
      const dir = mkdtempSync(path.join(tmpdir(), "passk-tiny-store-"));
      const { out, err } = onTinyDisk("320k", [
        `${bin} run --domain airline --num-tasks 10 ${gold} --store ${dir}/a.db --save-to $M/r.json >/dev/null 2>&1`,
        "before=$(sha256sum < $M/r.json)",
        // Fill the disk until less than the file's size is left.
        "dd if=/dev/zero of=$M/filler bs=1k count=$(($(df -k --output=avail $M | tail -1) - 40)) 2>/dev/null",
        `${bin} run --domain airline --num-tasks 10 ${gold} --store ${dir}/b.db --save-to $M/r.json 2>&1`,
        'echo "exit=$?"',
        'after=$(sha256sum < $M/r.json); [ "$before" = "$after" ] && echo "kept=yes"',
        "ls -a $M",
      ]);
      expect(out, err).toContain("exit=1");
      expect(out).toContain("error: the disk is full");
      expect(out).toContain("kept=yes");
      expect(out).not.toContain(".tmp");
    },
  );

  it.runIf(namespaces)("export --output over a good file: kept, one sentence, no temporary file", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "passk-tiny-store-"));
    const { out, err } = onTinyDisk("320k", [
      `${bin} run --domain airline --num-tasks 10 ${gold} --store ${dir}/a.db --save-to $M/r.json >/dev/null 2>&1`,
      "before=$(sha256sum < $M/r.json)",
      "dd if=/dev/zero of=$M/filler bs=1k count=$(($(df -k --output=avail $M | tail -1) - 40)) 2>/dev/null",
      `id=$(${bin} runs list --store ${dir}/a.db | sed -n 3p | cut -d' ' -f1)`,
      `${bin} export "$id" --store ${dir}/a.db --output $M/r.json 2>&1`,
      'echo "exit=$?"',
      'after=$(sha256sum < $M/r.json); [ "$before" = "$after" ] && echo "kept=yes"',
      "ls -a $M",
    ]);
    expect(out, err).toContain("exit=1");
    expect(out).toContain("error: the disk is full");
    expect(out).not.toContain("    at ");
    expect(out).toContain("kept=yes");
    expect(out).not.toContain(".tmp");
  });
});

describe("an output path that is a folder", () => {
  // (`--save-to DIR` already says a folder without results.json is not a results file.)
  it.each(["--junit"])(
    "%s DIR: one sentence before anything runs, no temporary file beside the folder",
    async (flag) => {
      const parent = mkdtempSync(path.join(tmpdir(), "passk-outdir-"));
      const folder = path.join(parent, "out");
      const made = spawnSync("mkdir", [folder]);
      expect(made.status).toBe(0);
      const run = await runCli(
        ["run", "--domain", "mock", ...gold.split(" "), "--store", path.join(parent, "s.db"), flag, folder],
        { env },
      );
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`error: ${flag} ${folder} is a directory; give a file path`);
      expect(run.stderr).not.toContain("    at ");
      expect(readdirSync(parent).filter((name) => name.endsWith(".tmp"))).toEqual([]);
      expect(readdirSync(folder)).toEqual([]);
    },
  );
});

describe("an output path where no folder can be made", () => {
  // Node's recursive mkdir loops forever under /proc (ENOENT on every try): passk walked into it at
  // 100 % CPU and ignored SIGTERM. Each command now stops at once with one sentence.
  const cli = (args: string[]) =>
    spawnSync(process.execPath, [path.join(REPO_ROOT, "bin", "passk.js"), ...args], {
      env: { ...process.env, ...env },
      encoding: "utf8",
      timeout: 30_000,
      killSignal: "SIGKILL",
    });
  const missing = `/proc/passk-${process.pid}`;

  it.each([
    ["--save-to", `${missing}/r.json`],
    ["--junit", `${missing}/j.xml`],
  ])("run %s %s: one sentence before anything runs, exit 1", (flag, file) => {
    const parent = mkdtempSync(path.join(tmpdir(), "passk-outdir-"));
    const run = cli([
      "run",
      "--domain",
      "mock",
      ...gold.split(" "),
      "--store",
      path.join(parent, "s.db"),
      flag,
      file,
    ]);
    expect(run.signal, "the command had to be killed").toBeNull();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`error: cannot create the folder ${missing} for ${flag} ${file}`);
    expect(run.stderr).toContain("choose another path");
    expect(run.stderr).not.toContain("    at ");
    expect(run.stdout).not.toContain("wrote ");
  });

  it("run --save-to under a regular file: names the file standing in the way", () => {
    const parent = mkdtempSync(path.join(tmpdir(), "passk-outdir-"));
    const blocker = path.join(parent, "blocker");
    writeFileSync(blocker, "x");
    const file = path.join(blocker, "deeper", "r.json");
    const run = cli([
      "run",
      "--domain",
      "mock",
      ...gold.split(" "),
      "--store",
      path.join(parent, "s.db"),
      "--save-to",
      file,
    ]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${blocker} is a file, not a folder`);
    expect(run.stderr).not.toContain("    at ");
  });

  it("submit prepare --output under /proc: one sentence, exit 1", () => {
    const parent = mkdtempSync(path.join(tmpdir(), "passk-outdir-"));
    const results = path.join(parent, "r.json");
    const saved = cli([
      "run",
      "--domain",
      "airline",
      ...gold.split(" "),
      "--store",
      path.join(parent, "s.db"),
      "--save-to",
      results,
    ]);
    expect(saved.status, saved.stderr).toBe(0);
    const prepare = cli([
      "submit",
      "prepare",
      results,
      "--output",
      missing,
      "--model-name",
      "m",
      "--model-organization",
      "o",
      "--contact-email",
      "team@example.com",
    ]);
    expect(prepare.signal, "the command had to be killed").toBeNull();
    expect(prepare.status).toBe(1);
    expect(prepare.stderr).toContain(`error: cannot create the folder ${missing}`);
    expect(prepare.stderr).not.toContain("    at ");
  });
});
