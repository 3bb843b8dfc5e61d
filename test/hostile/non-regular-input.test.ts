import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
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

/** A data folder like the official one whose banking documents folder also holds `x.json`, made by `make`. */
function dataWithDocument(make: (file: string) => void): string {
  const real = tau2DataDir();
  const data = mkdtempSync(path.join(tmpdir(), "passk-data-"));
  for (const entry of readdirSync(real))
    if (entry !== "banking_knowledge") symlinkSync(path.join(real, entry), path.join(data, entry));
  mkdirSync(path.join(data, "banking_knowledge", "documents"), { recursive: true });
  for (const entry of readdirSync(path.join(real, "banking_knowledge")))
    if (entry !== "documents")
      symlinkSync(path.join(real, "banking_knowledge", entry), path.join(data, "banking_knowledge", entry));
  const documents = path.join(real, "banking_knowledge", "documents");
  for (const entry of readdirSync(documents))
    symlinkSync(path.join(documents, entry), path.join(data, "banking_knowledge", "documents", entry));
  make(path.join(data, "banking_knowledge", "documents", "x.json"));
  return data;
}

describe("a banking document that is not a regular file", () => {
  const kinds: [string, (file: string) => void, string][] = [
    ["a folder named x.json", (file) => mkdirSync(file), "is a folder, not a file"],
    ...(fifoSupported
      ? ([
          [
            "a FIFO named x.json",
            (file: string) => expect(spawnSync("mkfifo", [file]).status).toBe(0),
            "is not a regular file",
          ],
        ] as [string, (file: string) => void, string][])
      : []),
  ];

  it.each(kinds)(
    "%s: the run stops before any conversation, with a sentence naming it",
    (_, make, says) => {
      const data = dataWithDocument(make);
      const store = path.join(mkdtempSync(path.join(tmpdir(), "passk-store-")), "s.db");
      const result = passk([
        "run",
        "--domain",
        "banking_knowledge",
        "--data",
        data,
        "--retrieval-config",
        "grep_only",
        "--num-tasks",
        "2",
        "--agent-llm",
        "scripted:gold",
        "--user-llm",
        "scripted:gold",
        "--progress",
        "none",
        "--store",
        store,
      ]);
      expect(result.signal).toBeNull();
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(
        `${path.join(data, "banking_knowledge", "documents", "x.json")} is not valid`,
      );
      expect(result.stderr).toContain(says);
      expect(result.stderr).not.toContain("EISDIR");
      expect(result.stderr).not.toContain("    at ");
    },
    90_000,
  );

  it.each(kinds)(
    "%s: passk call answers the tool with the sentence, no hang",
    (_, make, says) => {
      const data = dataWithDocument(make);
      const result = passk([
        "call",
        "--domain",
        "banking_knowledge",
        "--data",
        data,
        "--retrieval-config",
        "grep_only",
        "--tool",
        "grep",
        "--args",
        '{"pattern":"card"}',
      ]);
      expect(result.signal).toBeNull();
      expect(result.stdout).toContain(says);
      expect(result.stdout).not.toContain("EISDIR");
    },
    90_000,
  );
});

describe("--prices that is not a regular file", () => {
  const gold = ["--agent-llm", "scripted:gold", "--user-llm", "scripted:gold", "--progress", "none"];
  it.each([
    ["a folder", (file: string) => mkdirSync(file), "is a folder, not a file"],
    ...(fifoSupported
      ? ([
          [
            "a FIFO",
            (file: string) => expect(spawnSync("mkfifo", [file]).status).toBe(0),
            "is not a regular file",
          ],
        ] as [string, (file: string) => void, string][])
      : []),
  ] as [string, (file: string) => void, string][])(
    "%s: refused with a sentence before the run",
    (_, make, says) => {
      const dir = mkdtempSync(path.join(tmpdir(), "passk-prices-"));
      const prices = path.join(dir, "prices.json");
      make(prices);
      const result = passk([
        "run",
        "--domain",
        "mock",
        ...gold,
        "--prices",
        prices,
        "--store",
        path.join(dir, "s.db"),
      ]);
      expect(result.signal).toBeNull();
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`error: ${prices} is not valid`);
      expect(result.stderr).toContain(says);
      expect(result.stderr).not.toContain("    at ");
    },
    90_000,
  );
});
