import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createKnowledgeBase } from "../src/knowledge/knowledge-base.js";
import {
  escapePattern,
  removeStaleSandboxes,
  sandboxFileName,
  ShellSandbox,
} from "../src/knowledge/shell-sandbox.js";
import { defaultRetrievalNote, parseRetrievalConfigKwargs } from "../src/knowledge/configs.js";
import { readJsonl, tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { runCli } from "./helpers/run-cli.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";

// banking_knowledge's shell tool (terminal_use, terminal_use_write, alltools) against what the reference's
// own shell tool answered in its sandbox, and the sandbox's containment. Each command starts a sandbox
// (about a second), so the calls are few: one conversation per config.

interface ShellLine {
  config: string;
  command: string;
  output: string;
}

/**
 * The lines of an output comparable byte for byte and those comparable only as a set: an unsorted
 * recursive grep or find follows the directory listing, and `ls -la`'s `total` counts filesystem blocks.
 */
function comparable(line: ShellLine): { exact: string; asSet: string[] } {
  const unordered = /grep -r|find /.test(line.command) && !line.command.includes("sort");
  const lines = line.output.split("\n");
  if (unordered) return { exact: "", asSet: lines.sort() };
  if (line.command.startsWith("ls -la"))
    return { exact: lines.filter((l) => !l.startsWith("total ")).join("\n"), asSet: [] };
  return { exact: line.output, asSet: [] };
}

describe("banking_knowledge's shell tool", () => {
  it("answers every fixture command as the reference did, one conversation per config, none left behind", async () => {
    const fixture = readJsonl<ShellLine>("fixtures/shell/banking_knowledge.jsonl");
    const configs = [...new Set(fixture.map((line) => line.config))];
    expect(configs).toEqual(["terminal_use", "terminal_use_write", "alltools"]);
    const tmp = mkdtempSync(path.join(tmpdir(), "passk-shell-test-"));
    const runs = await Promise.all(
      configs.map((config) => {
        const batch = fixture
          .filter((line) => line.config === config)
          .map((line) => JSON.stringify({ name: "shell", arguments: { command: line.command } }))
          .join("\n");
        // Spawned: each sandbox is the process's (its TMPDIR, its clean-up when the process ends).
        return runCli(
          [
            "call",
            "--domain",
            "banking_knowledge",
            "--retrieval-config",
            config,
            "--batch",
            "-",
            "--one-conversation",
          ],
          { env: { PASSK_DATA_DIR: tau2DataDir(), TMPDIR: tmp }, input: batch },
        );
      }),
    );
    for (const [i, config] of configs.entries()) {
      const run = runs[i]!;
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      const outputs = run.stdout
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as { output: string }).output);
      const expected = fixture.filter((line) => line.config === config);
      expect(outputs).toHaveLength(expected.length);
      for (const [j, line] of expected.entries()) {
        const got = comparable({ ...line, output: outputs[j]! });
        expect({ command: line.command, ...got }).toEqual({ command: line.command, ...comparable(line) });
      }
    }
    // Every conversation's sandbox is removed when the process ends.
    expect(readdirSync(path.join(tmp, "passk-shell"))).toEqual([]);
  }, 180_000);

  it("refuses escape patterns before running anything, outside quotes only", () => {
    expect(escapePattern("cat ../../etc/hostname")).toBe("..");
    expect(escapePattern("ls ~")).toBe("~");
    expect(escapePattern("cat /etc/passwd")).toBe("absolute path: /etc/passwd");
    expect(escapePattern("ls; cat $HOME/x")).toBe("$HOME");
    expect(escapePattern("grep -r '../' .")).toBeUndefined();
    expect(escapePattern("grep -ri 'overdraft' . | head")).toBeUndefined();
    expect(sandboxFileName("a/b c..d")).toBe("a_b_c_d");
  });

  it("removes the sandboxes of processes that are gone (kill -9) and keeps live ones", () => {
    const root = mkdtempSync(path.join(tmpdir(), "passk-shell-stale-"));
    const dead = spawnSync(process.execPath, [
      "-e",
      "process.stdout.write(String(process.pid))",
    ]).stdout.toString();
    for (const name of [`${dead}-aaaa0000`, `${process.pid}-bbbb0000`, "not-a-sandbox"]) {
      mkdirSync(path.join(root, name, "knowledge_base"), { recursive: true });
      writeFileSync(path.join(root, name, "knowledge_base", "INDEX.md"), "x");
    }
    expect(removeStaleSandboxes(root)).toBe(1);
    expect(readdirSync(root).sort()).toEqual([`${process.pid}-bbbb0000`, "not-a-sandbox"]);
  });

  it("contains writes, symlinks and $(…) tricks in a writable sandbox, and forbids the network", async () => {
    const root = mkdtempSync(path.join(tmpdir(), "passk-shell-escape-"));
    const outside = mkdtempSync(path.join(tmpdir(), "passk-shell-outside-"));
    const kb = createKnowledgeBase([{ id: "fees", title: "Fees", content: "Overdraft fee: $35" }]);
    const sandbox = new ShellSandbox(kb, { allowWrites: true, root });
    try {
      const slash = "$(printf '\\057')";
      const target = outside.slice(1);
      // A path built at run time passes the pattern check: the sandbox stops the write itself.
      const direct = await sandbox.run(`echo x > "${slash}${target}/direct.txt"`);
      expect(direct).toMatch(/^Error \(exit code 1\): .*Read-only file system/);
      // A symlink inside the folder pointing outside: writing through it is refused too.
      const viaLink = await sandbox.run(`ln -s "${slash}${target}" out && echo x > out/linked.txt`);
      expect(viaLink).toMatch(/Read-only file system|Permission denied/);
      expect(readdirSync(outside)).toEqual([]);
      // Inside the folder, writes work and stay.
      expect(await sandbox.run("echo hi > new.txt && cat new.txt fees.md")).toBe(
        "hi\n# Fees\n\nOverdraft fee: $35",
      );
      expect(await sandbox.run("curl -s --max-time 5 http://127.0.0.1:1 || echo no-network")).toBe(
        "no-network\n",
      );
    } finally {
      sandbox.close();
    }
    expect(existsSync(sandbox.dir)).toBe(false);
  }, 60_000);

  it("is on by default (alltools) when the embeddings key is set, else bm25 with a sentence why", async () => {
    const list = async (env: Record<string, string | undefined>) => {
      // Spawned: banking_knowledge reads OPENAI_API_KEY from process.env, not from the command's env.
      const run = await runCli(["tools", "--domain", "banking_knowledge", "--protocol", "passk"], {
        env: { PASSK_DATA_DIR: tau2DataDir(), ...env },
      });
      expect(run.code).toBe(0);
      return run.stdout
        .trim()
        .split("\n")
        .slice(2, 5)
        .map((l) => l.split(/\s+/)[0]);
    };
    const [withKey, withoutKey] = await Promise.all([
      list({ OPENAI_API_KEY: "sk-test-not-used" }),
      list({ OPENAI_API_KEY: "" }),
    ]);
    expect(withKey).toEqual(["KB_search_bm25", "KB_search_dense", "shell"]);
    expect(withoutKey[0]).toBe("KB_search");
    expect(defaultRetrievalNote({})).toMatch(
      /runs bm25, not the reference's default alltools, which needs OPENAI_API_KEY/,
    );
    expect(defaultRetrievalNote({ OPENAI_API_KEY: "k" })).toBeUndefined();
  }, 60_000);

  it("asked for explicitly without its embeddings key, a run is refused at start with a sentence, nothing stored", async () => {
    const folder = mkdtempSync(path.join(tmpdir(), "passk-alltools-key-"));
    // Spawned: banking_knowledge reads OPENAI_API_KEY from process.env, not from the command's env.
    const run = (config: string, key: string) =>
      runCli(
        [
          "run",
          "--domain",
          "banking_knowledge",
          "--retrieval-config",
          config,
          "--agent-llm",
          "scripted:gold",
          "--num-tasks",
          "1",
          "--store",
          path.join(folder, `${config}-${key ? "key" : "none"}.db`),
          "--progress",
          "none",
        ],
        { env: { PASSK_DATA_DIR: tau2DataDir(), OPENAI_API_KEY: key } },
      );
    const [alltools, dense, withKey] = await Promise.all([
      run("alltools", ""),
      run("openai_embeddings", ""),
      run("openai_embeddings", "sk-test-not-used"),
    ]);
    for (const [refused, config] of [
      [alltools, "alltools"],
      [dense, "openai_embeddings"],
    ] as const) {
      expect(refused.code, refused.stderr).not.toBe(0);
      expect(refused.stderr).toContain(
        `banking_knowledge: retrieval config ${config} searches with text-embedding-3-large embeddings (OpenAI API), which need OPENAI_API_KEY: set it, or choose a config without embeddings`,
      );
      expect(refused.stdout).not.toContain("starting run");
    }
    expect(existsSync(path.join(folder, "alltools-none.db"))).toBe(false);
    // With the key the same run goes ahead (the scripted agent never searches, so no call is made).
    expect(withKey.code, withKey.stderr).toBe(0);
  }, 90_000);
});

describe("--retrieval-config-kwargs", () => {
  it("overrides top_k, and refuses unknown keys naming the known ones", async () => {
    const env = { PASSK_DATA_DIR: tau2DataDir() };
    const call = (kwargs: string) =>
      runCliInProcess(
        [
          "call",
          "--domain",
          "banking_knowledge",
          "--retrieval-config",
          "bm25",
          "--retrieval-config-kwargs",
          kwargs,
          "--tool",
          "KB_search",
          "--args",
          '{"query": "overdraft fee"}',
        ],
        env,
      );
    const [three, unknown] = await Promise.all([call('{"top_k": 3}'), call('{"topk": 3}')]);
    expect(three.code).toBe(0);
    const output = (JSON.parse(three.stdout) as { output: string }).output;
    expect(output.match(/^ {3}ID: /gm)).toHaveLength(3);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain(
      "unknown key topk; known keys: top_k, grep_top_k, case_sensitive, reranker_min_score",
    );
    expect(() => parseRetrievalConfigKwargs('{"top_k": "5"}')).toThrow(/top_k/);
    expect(parseRetrievalConfigKwargs('{"top_k": 5, "case_sensitive": true}')).toEqual({
      top_k: 5,
      case_sensitive: true,
    });
  }, 60_000);
});
