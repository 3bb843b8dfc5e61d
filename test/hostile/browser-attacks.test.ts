import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type Server } from "node:http";
import { mkdtempSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { REPO_ROOT } from "../helpers/run-cli.js";
import { ensureWebBuilt, launchChromium } from "../web/helpers/browser.js";

// Real Chromium against a real `passk serve`: a page on another origin tries to add a run to the
// store (CSRF), and a page whose DNS name was rebound to the server's address tries to read and
// write the API. Both must fail, and the store must stay empty.

let serve: ChildProcess;
let passk: string;
let attacker: Server;
let attackerUrl: string;
let browser: Awaited<ReturnType<typeof launchChromium>>;

const FORGED = '{"timestamp":null,"info":{},"tasks":[],"simulations":[]}';

beforeAll(async () => {
  ensureWebBuilt();
  const dir = mkdtempSync(path.join(tmpdir(), "passk-hostile-"));
  serve = spawn(
    process.execPath,
    [path.join(REPO_ROOT, "bin", "passk.js"), "serve", "--port", "0", "--store", path.join(dir, "passk.db")],
    { env: { ...process.env, PASSK_DATA_DIR: tau2DataDir() }, stdio: ["ignore", "pipe", "pipe"] },
  );
  passk = await new Promise<string>((resolve, reject) => {
    let out = "";
    serve.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    serve.on("exit", (code) => reject(new Error(`passk serve exited with ${code}`)));
  });
  // The attacker's site: another origin, with pages that post to passk as a victim's browser would.
  attacker = createServer((req, res) => {
    const page =
      req.url === "/csrf"
        ? `<form id="f" method="POST" action="${passk}/api/runs/import?name=csrf-form" enctype="text/plain">
             <input name='${FORGED.slice(0, -1)},"x":"' value='"}'></form>
           <script>
             fetch("${passk}/api/runs/import?name=csrf-fetch", { method: "POST", mode: "no-cors",
               headers: { "Content-Type": "text/plain" }, body: ${JSON.stringify(FORGED)} })
               .finally(() => document.getElementById("f").submit());
           </script>`
        : "<p>nothing</p>";
    res.writeHead(200, { "Content-Type": "text/html" }).end(page);
  });
  await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
  attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
  const port = new URL(passk).port;
  browser = await launchChromium([`--host-resolver-rules=MAP rebind.test 127.0.0.1`]);
  expect(port).not.toBe("");
});

afterAll(async () => {
  await browser?.close();
  serve?.kill();
  await new Promise((resolve) => attacker?.close(resolve));
});

const runsInStore = async () =>
  ((await (await fetch(`${passk}/api/runs`)).json()) as { runs: unknown[] }).runs.length;

describe("passk serve against a hostile browser page", () => {
  it("a page on another origin cannot add a run to the store (CSRF by form and by fetch)", async () => {
    const page = await browser.context.newPage();
    const posts: number[] = [];
    page.on("response", (response) => {
      if (response.url().includes("/api/runs/import")) posts.push(response.status());
    });
    await page.goto(`${attackerUrl}/csrf`);
    await page.waitForURL(/api\/runs\/import/, { timeout: 10_000 });
    expect(posts).toContain(403);
    expect(await page.locator("body").innerText()).toContain("from another origin");
    expect(await runsInStore()).toBe(0);
    await page.close();
  });

  it("a DNS name rebound to the server's address gets nothing from it, and changes nothing", async () => {
    const page = await browser.context.newPage();
    const port = new URL(passk).port;
    const response = await page.goto(`http://rebind.test:${port}/`);
    expect(response?.status()).toBe(421);
    const attempt = await page.evaluate(async (forged) => {
      const read = await fetch("/api/runs");
      const write = await fetch("/api/runs/import?name=rebound", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: forged,
      });
      return { read: read.status, write: write.status, body: await read.text() };
    }, FORGED);
    expect(attempt).toMatchObject({ read: 421, write: 421 });
    expect(attempt.body).toContain('not \\"rebind.test\\"');
    expect(await runsInStore()).toBe(0);
    await page.close();
  });
});
