/**
 * The web app's first load: a real `passk serve` (the built CLI, keyless: the scripted participants) on
 * 127.0.0.1, and the playground of airline and of telecom opened in Chromium with nothing cached (a fresh
 * profile per pass); median of 5 passes per domain. Timed in the page: first paint, first contentful
 * paint, and when the scenario chips and the task picker's first task are shown (a mutation observer
 * installed before the page's own scripts). Counted in the page too (Resource Timing): the JavaScript
 * and the first API answers it loaded, as sent (compressed or not) and as decoded, the domain's answer
 * among them, and apart the later pages of a long task list (telecom's), loaded after the first paint.
 *
 * Usage: node --import tsx bench/web-load.ts [repo]   (run by `npm run bench`; builds dist and web/dist
 * first when older than their sources). `repo` is another checkout with its own build (e.g. an older
 * commit, to measure "before"): its `bin/passk.js serve` is what is measured.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os, { tmpdir } from "node:os";
import path from "node:path";
import { launchChromium, REPO } from "../test/web/helpers/browser.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";

const PASSES = 5;
const DOMAINS = ["airline", "telecom"] as const;
const repo = process.argv[2] ? path.resolve(process.argv[2]) : REPO;

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }
  return latest;
}
const builtAt = (file: string) => (existsSync(file) ? statSync(file).mtimeMs : 0);
if (repo === REPO) {
  // The CLI and the web app as `npm run build` makes them, rebuilt only when a source is newer.
  const sources = Math.max(newest(path.join(REPO, "src")), newest(path.join(REPO, "web", "src")));
  if (builtAt(path.join(REPO, "dist", "cli", "main.js")) < sources)
    execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: REPO, stdio: "inherit" });
  if (builtAt(path.join(REPO, "web", "dist", "index.html")) < sources)
    execFileSync("npx", ["vite", "build", "--config", "web/vite.config.ts", "--logLevel", "warn"], {
      cwd: REPO,
      stdio: "inherit",
    });
}

// `passk serve` as a user starts it, with no model keys (the keyless demo) and a store of its own.
const folder = mkdtempSync(path.join(tmpdir(), "passk-web-load-"));
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/_API_KEY$/.test(name)));
const child = spawn(
  process.execPath,
  [
    path.join(repo, "bin", "passk.js"),
    "serve",
    "--port",
    "0",
    "--data",
    tau2DataDir(),
    "--store",
    path.join(folder, "store.db"),
  ],
  { env, stdio: ["ignore", "pipe", "pipe"] },
);
let stderr = "";
child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
const url = await new Promise<string>((resolve, reject) => {
  let out = "";
  child.stdout!.on("data", (d: Buffer) => {
    out += d.toString();
    const match = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
    if (match) resolve(match[1]!);
  });
  child.on("exit", (code) => reject(new Error(`passk serve exited with ${code}: ${stderr}`)));
});
// The server's first answers parse the domains' data: done once before the passes, as a running server has.
await fetch(`${url}/api/info`);
for (const domain of DOMAINS) await fetch(`${url}/api/domains/${domain}`);

/** What the page's Resource Timing says of a file it loaded (Node's types have no browser entry). */
interface ResourceEntry {
  name: string;
  initiatorType: string;
  encodedBodySize: number;
  decodedBodySize: number;
}

interface Pass {
  firstPaint: number;
  firstContentfulPaint: number;
  chips: number;
  picker: number;
  resources: { name: string; type: string; sent: number; decoded: number }[];
}

/**
 * Before the page's scripts run: note when the first chip and the first task of the picker appear. A
 * string, not a function: tsx would wrap the function's own inner functions in a helper the page lacks.
 */
const OBSERVE_MARKS = `
  window.__marks = {};
  new MutationObserver(() => {
    if (window.__marks.chips === undefined && document.querySelector("button.scenario-chip"))
      window.__marks.chips = performance.now();
    if (window.__marks.picker === undefined && document.querySelector("#task-list [role=option]"))
      window.__marks.picker = performance.now();
  }).observe(document, { childList: true, subtree: true });
`;

async function load(domain: string): Promise<Pass> {
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    await page.addInitScript(OBSERVE_MARKS);
    await page.goto(`${url}/#/play/${domain}`);
    await page.locator("#task-list [role=option]").first().waitFor({ timeout: 60_000 });
    await page.locator("button.scenario-chip").first().waitFor({ timeout: 60_000 });
    // A long task list's later pages follow the first paint: counted once they are all in.
    await page.getByTestId("tasks-loading").waitFor({ state: "detached", timeout: 60_000 });
    return await page.evaluate(() => {
      const marks = (globalThis as unknown as { __marks: Record<string, number> }).__marks;
      return {
        firstPaint: performance.getEntriesByName("first-paint")[0]?.startTime ?? Number.NaN,
        firstContentfulPaint:
          performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? Number.NaN,
        chips: marks.chips ?? Number.NaN,
        picker: marks.picker ?? Number.NaN,
        resources: (performance.getEntriesByType("resource") as unknown as ResourceEntry[]).map((e) => ({
          name: new URL(e.name).pathname,
          type: e.initiatorType,
          sent: e.encodedBodySize,
          decoded: e.decodedBodySize,
        })),
      };
    });
  } finally {
    await browser.close();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const kb = (bytes: number) => Number((bytes / 1024).toFixed(1));
try {
  for (const domain of DOMAINS) {
    const passes: Pass[] = [];
    for (let pass = 0; pass < PASSES; pass++) passes.push(await load(domain));
    // Bytes are the same every pass (nothing cached): the last pass's.
    const resources = passes.at(-1)!.resources;
    const sum = (pick: (r: Pass["resources"][number]) => boolean, field: "sent" | "decoded") =>
      kb(resources.filter(pick).reduce((total, r) => total + r[field], 0));
    const js = (r: Pass["resources"][number]) => r.name.endsWith(".js");
    const pages = (r: Pass["resources"][number]) => r.name === `/api/domains/${domain}/tasks`;
    const api = (r: Pass["resources"][number]) => r.name.startsWith("/api/") && !pages(r);
    const answer = resources.find((r) => r.name === `/api/domains/${domain}`);
    console.log(
      JSON.stringify({
        bench: "web-load",
        domain,
        repo: path.relative(REPO, repo) || ".",
        passes: PASSES,
        first_paint_ms: Math.round(median(passes.map((p) => p.firstPaint))),
        first_contentful_paint_ms: Math.round(median(passes.map((p) => p.firstContentfulPaint))),
        chips_shown_ms: Math.round(median(passes.map((p) => p.chips))),
        task_picker_shown_ms: Math.round(median(passes.map((p) => p.picker))),
        js_files: resources.filter(js).length,
        js_sent_kb: sum(js, "sent"),
        js_kb: sum(js, "decoded"),
        api_answers: resources.filter(api).map((r) => r.name),
        api_sent_kb: sum(api, "sent"),
        api_kb: sum(api, "decoded"),
        domain_answer_sent_kb: kb(answer?.sent ?? Number.NaN),
        domain_answer_kb: kb(answer?.decoded ?? Number.NaN),
        later_task_pages: resources.filter(pages).length,
        later_task_pages_sent_kb: sum(pages, "sent"),
        later_task_pages_kb: sum(pages, "decoded"),
        load_average: os.loadavg().map((l) => Number(l.toFixed(2))),
      }),
    );
  }
} finally {
  child.kill("SIGTERM");
  rmSync(folder, { recursive: true, force: true });
}
