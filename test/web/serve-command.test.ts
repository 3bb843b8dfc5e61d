import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServerInfoSchema } from "../../src/server/api-schemas.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { ensureWebBuilt, REPO } from "./helpers/browser.js";

const KEY = "sk-serve-command-secret-0123456789";
let child: ChildProcess;
let url: string;
let folder: string;
let stderr = "";

beforeAll(async () => {
  ensureWebBuilt();
  folder = mkdtempSync(path.join(tmpdir(), "passk-serve-"));
  child = spawn(
    process.execPath,
    [
      path.join(REPO, "bin", "passk.js"),
      "serve",
      "--port",
      "0",
      "--data",
      tau2DataDir(),
      "--store",
      path.join(folder, "store.db"),
      "--daily-spend-cap",
      "2.5",
      "--rate-limit",
      "5",
      "--perturbation-module",
      path.join(REPO, "test", "fixtures", "shouting-perturbation.ts"),
    ],
    { env: { ...process.env, OPENAI_API_KEY: KEY }, stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`passk serve did not start: ${stderr}`)), 45_000);
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const match = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.on("exit", (code) => reject(new Error(`passk serve exited with ${code}: ${stderr}`)));
  });
});

afterAll(() => {
  child?.kill("SIGTERM");
  rmSync(folder, { recursive: true, force: true });
});

describe("passk serve", () => {
  it("serves the built web app and the API with the limits given on the command line", async () => {
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("Content-Security-Policy")).toContain("default-src 'self'");
    const html = await page.text();
    expect(html).toContain('<div id="root"></div>');
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const bundle = await fetch(`${url}${script}`);
    expect(bundle.headers.get("Content-Type")).toContain("javascript");
    expect(await bundle.text()).not.toContain(KEY);

    const info = ServerInfoSchema.parse(await (await fetch(`${url}/api/info`)).json());
    expect(info.agents).toEqual(["scripted:gold"]);
    expect(info.budget.capUsd).toBe(2.5);
    expect(info.explorer).toBe(true);
    expect(info.domains.map((d) => d.name)).toContain("mock");
    // The playground offers passk's perturbations and the team's own from --perturbation-module.
    expect(info.perturbations.map((p) => p.name)).toEqual(
      expect.arrayContaining(["tool-faults", "shouting"]),
    );
    // A deep link is a page of the app; a missing asset is a 404; paths never leave the web root.
    expect((await fetch(`${url}/runs/anything`)).status).toBe(200);
    expect((await fetch(`${url}/assets/missing.js`)).status).toBe(404);
    expect((await fetch(`${url}/..%2f..%2fpackage.json`)).status).toBe(404);

    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const response = await fetch(`${url}/api/conversations`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ domain: "mock", mode: "human" }),
      });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
  });
});
