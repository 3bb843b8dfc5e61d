import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redactUrl, urlCredentials } from "../../src/llm/redact.js";
import { mockReply, startMockLlmServer, type MockLlmServer } from "../../src/testing/index.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { runCli } from "../helpers/run-cli.js";

// A base URL with credentials in it (a proxy's `user:pass@`, an `?api-key=`) is a secret like an API
// key: never stored, printed, exported or written into a results file.

const PASSWORD = "pa55word-DO-NOT-LEAK-7731";
const dir = mkdtempSync(path.join(tmpdir(), "passk-secret-urls-"));
let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer({ script: () => mockReply.text("###STOP###") });
});
afterAll(() => server.close());

describe("credentials inside base URLs", () => {
  it("are recognised and taken out", () => {
    const url = `https://team:${PASSWORD}@proxy.example/v1?api-key=abc123secret&region=eu`;
    expect(urlCredentials(url)).toEqual(["team", PASSWORD, "abc123secret"]);
    const shown = redactUrl(url);
    expect(shown).not.toContain(PASSWORD);
    expect(shown).not.toContain("abc123secret");
    expect(shown).toContain("region=eu");
    expect(redactUrl("http://localhost:11434/v1")).toBe("http://localhost:11434/v1");
  });

  it("never reach the store, runs show, export or the results file; a resume asks for the URL again", async () => {
    const store = path.join(dir, "passk.db");
    const saveTo = path.join(dir, "results.json");
    const withCredentials = server.baseUrl.replace("http://", `http://team:${PASSWORD}@`);
    const env = { PASSK_DATA_DIR: tau2DataDir() };
    const model = ["--agent-llm", "openai-compatible:a", "--user-llm", "openai-compatible:u"];
    const urls = (url: string) => ["--agent-llm-base-url", url, "--user-llm-base-url", url];
    const run = await runCli(
      [
        "run",
        "--domain",
        "mock",
        ...model,
        ...urls(withCredentials),
        "--num-tasks",
        "1",
        "--store",
        store,
        "--save-to",
        saveTo,
        "--protocol",
        "passk",
      ],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    // The mock saw the credentials (as Basic auth): the URL was used as given.
    expect(server.requests.at(-1)?.headers.authorization).toBe(
      `Basic ${Buffer.from(`team:${PASSWORD}`).toString("base64")}`,
    );
    const id = /run (\d{8}-\d{6}-[0-9a-f]{4})/.exec(run.stderr)![1]!;
    const db = new Database(store, { readonly: true });
    const everything =
      JSON.stringify(db.prepare("SELECT * FROM runs").all()) +
      JSON.stringify(db.prepare("SELECT * FROM jobs").all());
    db.close();
    const show = await runCli(["runs", "show", id, "--store", store], { env });
    const exported = await runCli(["export", id, "--store", store], { env });
    for (const [where, text] of [
      ["run output", run.stdout + run.stderr],
      ["store", everything],
      ["runs show", show.stdout],
      ["export", exported.stdout],
      ["results file", readFileSync(saveTo, "utf8")],
    ] as const) {
      expect(text, where).not.toContain(PASSWORD);
    }
    expect(show.stdout).toContain("[redacted]");
    const resume = await runCli(["run", "--resume", id, "--store", store], { env });
    expect(resume.code).toBe(1);
    expect(resume.stderr).toContain("which are never stored; pass --agent-llm-base-url again to continue it");
    expect(resume.stderr).not.toContain(PASSWORD);
  });
});
