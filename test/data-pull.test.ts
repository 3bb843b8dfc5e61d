import { createServer, type Server } from "node:http";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gitBlobHash, localPathOf } from "../src/formats/tau2/data-pull.js";
import { OFFICIAL_COMMIT, OFFICIAL_FILES } from "../src/formats/tau2/official-manifest.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { runCli } from "./helpers/run-cli.js";

/** A stand-in for raw.githubusercontent.com serving ../shared/tau2/data in the upstream layout. */
let server: Server;
let baseUrl: string;
let corrupt: string | undefined;
const requests: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.url ?? "");
    const prefix = `/sierra-research/tau2-bench/${OFFICIAL_COMMIT}/data/tau2/`;
    if (!req.url?.startsWith(prefix)) return void res.writeHead(404).end();
    const official = req.url.slice(prefix.length);
    const file = path.join(tau2DataDir(), localPathOf(official));
    if (!existsSync(file)) return void res.writeHead(404).end();
    const bytes = readFileSync(file);
    res.writeHead(200).end(official === corrupt ? Buffer.concat([bytes, Buffer.from(" ")]) : bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sierra-research/tau2-bench`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("passk data pull", () => {
  it("downloads every official file, verified, and then finds them up to date", async () => {
    const dest = mkdtempSync(path.join(tmpdir(), "passk-data-"));
    const first = await runCli(["data", "pull", "--dest", dest, "--base-url", baseUrl]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`${OFFICIAL_FILES.length} downloaded, 0 already up to date`);
    for (const file of OFFICIAL_FILES) {
      expect(gitBlobHash(readFileSync(path.join(dest, localPathOf(file.path))))).toBe(file.blob);
    }
    // Again with no network at all (nothing listens at the base URL): a verified no-op that succeeds.
    const requestsBefore = requests.length;
    const second = await runCli(["data", "pull", "--dest", dest, "--base-url", "http://127.0.0.1:9/offline"]);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`0 downloaded, ${OFFICIAL_FILES.length} already up to date`);
    expect(requests.length).toBe(requestsBefore);
    // The pulled directory is usable as a data dir.
    const replay = await runCli(["replay", "--domain", "mock", "--data", dest, "--task", "create_task_1"]);
    expect(JSON.parse(replay.stdout).evaluation.reward_excluding_nl_assertions).toBe(1);
  });

  it("refuses a file whose hash does not match and leaves no trace of it", async () => {
    const dest = mkdtempSync(path.join(tmpdir(), "passk-data-"));
    corrupt = "domains/mock/policy.md";
    try {
      const run = await runCli(["data", "pull", "--dest", dest, "--base-url", baseUrl]);
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
    const run = await runCli(["data", "pull", "--dest", dest, "--base-url", "http://127.0.0.1:9/nowhere"]);
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
    const run = await runCli(["data", "pull", "--dest", dest, "--base-url", `http://127.0.0.1:${port}`]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("(ECONNREFUSED). Are you offline?");
    expect(existsSync(dest), "nothing is created when the first download fails").toBe(false);
  });
});
