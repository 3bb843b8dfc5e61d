import { createServer, type Server } from "node:http";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gitBlobHash, pullFiles } from "../src/formats/tau2/data-pull.js";
import { OFFICIAL_COMMIT } from "../src/formats/tau2/official-manifest.js";
import { tau2DataDir, tau2Dir } from "../src/testing/tau2-fixtures.js";
import { runCli } from "./helpers/run-cli.js";

/**
 * A stand-in for raw.githubusercontent.com serving ../shared/tau2/data and ../shared/tau2/upstream in
 * the repository's layout.
 */
let server: Server;
let baseUrl: string;
let corrupt: string | undefined;
const requests: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.url ?? "");
    const prefix = `/sierra-research/tau2-bench/${OFFICIAL_COMMIT}/`;
    if (!req.url?.startsWith(prefix)) return void res.writeHead(404).end();
    const remote = req.url.slice(prefix.length);
    const { data, upstream } = pullFiles();
    const known = data.find((f) => f.remote === remote);
    const file = known
      ? path.join(tau2DataDir(), known.local)
      : upstream.some((f) => f.remote === remote)
        ? path.join(tau2Dir(), "upstream", remote)
        : undefined;
    if (!file || !existsSync(file)) return void res.writeHead(404).end();
    const bytes = readFileSync(file);
    res.writeHead(200).end(remote === corrupt ? Buffer.concat([bytes, Buffer.from(" ")]) : bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sierra-research/tau2-bench`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

// The pulls here choose where upstream files come from themselves, whatever the caller's environment says.
const env = { PASSK_TAU2_UPSTREAM: undefined };
const { data: DATA_FILES, upstream: UPSTREAM_FILES } = pullFiles();
const ALL_FILES = [...DATA_FILES, ...UPSTREAM_FILES];

describe("passk data pull", () => {
  it("downloads every official data file and upstream source file, verified, and then finds them up to date", async () => {
    const dest = mkdtempSync(path.join(tmpdir(), "passk-data-"));
    const first = await runCli(["data", "pull", "--dest", dest, "--base-url", baseUrl], { env });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`${ALL_FILES.length} downloaded, 0 already up to date`);
    for (const file of ALL_FILES) {
      expect(gitBlobHash(readFileSync(path.join(dest, file.local)))).toBe(file.blob);
    }
    expect(existsSync(path.join(dest, "upstream", "src", "tau2", "agent", "llm_agent.py"))).toBe(true);
    // Again with no network at all (nothing listens at the base URL): a verified no-op that succeeds.
    const requestsBefore = requests.length;
    const second = await runCli(
      ["data", "pull", "--dest", dest, "--base-url", "http://127.0.0.1:9/offline"],
      { env },
    );
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`0 downloaded, ${ALL_FILES.length} already up to date`);
    expect(requests.length).toBe(requestsBefore);
    // The pulled directory is usable as a data dir.
    const replay = await runCli(["replay", "--domain", "mock", "--data", dest, "--task", "create_task_1"], {
      env,
    });
    expect(JSON.parse(replay.stdout).evaluation.reward_excluding_nl_assertions).toBe(1);
  });

  it("refuses a file whose hash does not match and leaves no trace of it", async () => {
    const dest = mkdtempSync(path.join(tmpdir(), "passk-data-"));
    corrupt = "data/tau2/domains/mock/policy.md";
    try {
      const run = await runCli(["data", "pull", "--dest", dest, "--base-url", baseUrl], { env });
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain("domains/mock/policy.md");
      expect(run.stderr).toContain("expected 1a7b7b07ab195b6a83f82e025a26ec27eb82587c");
      expect(existsSync(path.join(dest, "mock", "policy.md"))).toBe(false);
    } finally {
      corrupt = undefined;
    }
  });

  it("fails clearly when offline, keeping existing files", async () => {
    const dest = mkdtempSync(path.join(tmpdir(), "passk-data-"));
    writeFileSync(path.join(dest, "keep.txt"), "x");
    const run = await runCli(["data", "pull", "--dest", dest, "--base-url", "http://127.0.0.1:9/nowhere"], {
      env,
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/could not download .* \(bad port\)\. Are you offline\?/);
    expect(readFileSync(path.join(dest, "keep.txt"), "utf8")).toBe("x");
  });

  it("names the network error when nothing answers", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const dest = path.join(mkdtempSync(path.join(tmpdir(), "passk-data-")), "data");
    const run = await runCli(["data", "pull", "--dest", dest, "--base-url", `http://127.0.0.1:${port}`], {
      env,
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("(ECONNREFUSED). Are you offline?");
    expect(existsSync(dest), "nothing is created when the first download fails").toBe(false);
  });

  it("verifies the upstream source files in place when PASSK_TAU2_UPSTREAM names a copy, downloading none", async () => {
    const dest = mkdtempSync(path.join(tmpdir(), "passk-data-"));
    const upstream = path.join(tau2Dir(), "upstream");
    const before = requests.length;
    const run = await runCli(["data", "pull", "--dest", dest, "--base-url", baseUrl], {
      env: { PASSK_TAU2_UPSTREAM: upstream },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `${DATA_FILES.length} downloaded, ${UPSTREAM_FILES.length} already up to date`,
    );
    expect(run.stdout).toContain(`upstream source files: verified in place at ${upstream}`);
    expect(requests.slice(before).some((url) => url.includes("/src/tau2/"))).toBe(false);
    expect(existsSync(path.join(dest, "upstream"))).toBe(false);
  });

  it("refuses an incomplete or altered upstream copy with a sentence naming the file", async () => {
    const copy = mkdtempSync(path.join(tmpdir(), "passk-upstream-"));
    const dest = mkdtempSync(path.join(tmpdir(), "passk-data-"));
    const run = await runCli(["data", "pull", "--dest", dest, "--base-url", "http://127.0.0.1:9/offline"], {
      env: { PASSK_TAU2_UPSTREAM: copy },
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`the upstream source files at ${copy} (PASSK_TAU2_UPSTREAM) are not usable`);
    expect(run.stderr).toContain("src/tau2/agent/llm_agent.py is missing");
  });
});
