import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import vm from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goldAgent } from "../src/agents/gold-agent.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { createServer } from "../src/server/create-server.js";
import { sqliteRunCatalog } from "../src/server/run-catalog.js";
import {
  STATIC_ANSWERS_GLOBAL,
  STATIC_EXPORT_GLOBAL,
  StaticExportIndexSchema,
  staticAnswerKey,
  type StaticExportIndex,
} from "../src/server/static-export-format.js";
import { Store } from "../src/store/store.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { goldUser } from "../src/users/gold-user.js";
import { ensureWebBuilt } from "./web/helpers/browser.js";
import { buildResults } from "./web/helpers/seed-results.js";

// `passk export RUN --format html -o DIR`: the folder holds the app and, for every page of the run, the
// answer `passk serve` gives for the same store, data and environment — hostile content and all.

const dataDir = tau2DataDir();
const work = mkdtempSync(path.join(tmpdir(), "passk-static-export-"));
const storePath = path.join(work, "store.db");
const SECRET = "sk-static-export-test-9f8e7d6c5b4a";
/** A customer who writes markup that would end a script element, a comment opener and line separators. */
const HOSTILE = `</script><script>window.__pwned = 1</script><!-- \u2028\u2029 my key is ${SECRET} `;
const env = { PASSK_DATA_DIR: dataDir, PASSK_STORE: storePath, OPENAI_API_KEY: SECRET };
let runId = "";

const passk = (...args: string[]) => runCliInProcess(args, env);

/** The export's data as a browser would have it: its scripts run against a `window`. */
function readExport(dir: string): { index: StaticExportIndex; answers: Record<string, unknown> } {
  const window: Record<string, unknown> = {};
  const run = (file: string) =>
    vm.runInNewContext(readFileSync(path.join(dir, file), "utf8"), { window, JSON });
  run("data/index.js");
  const index = StaticExportIndexSchema.parse(window[STATIC_EXPORT_GLOBAL]);
  for (const file of Object.values(index.files)) run(file);
  return { index, answers: window[STATIC_ANSWERS_GLOBAL] as Record<string, unknown> };
}

/** Every file under `dir`, relative. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));

beforeAll(async () => {
  ensureWebBuilt();
  const airline = new DomainData(builtinDomains.get("airline")!, dataDir);
  const results = await buildResults(airline, {
    taskIds: ["0", "7", "11"],
    trials: 2,
    fails: (task, trial) => task === "11" || (task === "7" && trial === 1),
  });
  const first = results.simulations[0]!;
  const opening = first.messages.findIndex((m) => m.role === "user");
  first.messages[opening]!.content = HOSTILE + String(first.messages[opening]!.content);
  writeFileSync(path.join(work, "results.json"), JSON.stringify(results));
  const imported = await passk("import", path.join(work, "results.json"), "--label", "</title><b>run</b>");
  expect(imported.code, imported.stderr).toBe(0);
  runId = /as run (\S+):/.exec(imported.stdout)![1]!;
  // Who caused each failure, by passk review's deterministic checks (no model).
  const reviewed = await passk("review", runId);
  expect(reviewed.code, reviewed.stderr).toBe(0);
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("passk export --format html", () => {
  it("writes the app and, for the run and each simulation, what the live API answers", async () => {
    const out = path.join(work, "site");
    const exported = await passk("export", runId.slice(0, 15), "--format", "html", "-o", out);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toMatch(new RegExp(`wrote run ${runId} \\(6 simulations\\) to .*site`));
    expect(filesUnder(out).sort()).toEqual(
      [
        "index.html",
        "favicon.svg",
        "assets/passk-app.js",
        "data/index.js",
        ...[0, 1, 2, 3, 4, 5].map((n) => `data/simulations/0000${n}.js`),
      ].sort(),
    );
    const html = readFileSync(path.join(out, "index.html"), "utf8");
    expect(html).toContain('<script src="data/index.js"></script>');
    expect(html).toContain("<title>passk · &lt;/title&gt;&lt;b&gt;run&lt;/b&gt; (static export)</title>");

    // The live server over the same store and data, with the environment's keys as passk serve has them.
    const { index, answers } = readExport(out);
    expect(index.runId).toBe(runId);
    const store = Store.open(storePath, { create: false });
    try {
      const app = createServer({
        domains: builtinDomains,
        dataDir,
        participants: {
          agents: ["scripted:gold"],
          users: ["scripted:gold"],
          agentFor: () => goldAgent,
          customerFor: () => goldUser,
        },
        store: sqliteRunCatalog(store),
        secrets: [SECRET],
        // The server's clock at the export's moment: a run's progress (idle time) is as of then.
        now: () => new Date(index.exportedAt),
      });
      const live = async (apiPath: string): Promise<unknown> => {
        const response = await app.request(`http://localhost/api/${apiPath}`);
        expect(response.status, apiPath).toBe(200);
        return response.json();
      };
      const detail = await live(`runs/${runId}`);
      expect(index.answers[staticAnswerKey(["runs", runId])]).toEqual(detail);
      // One answer file per simulation, in the grid's order, each equal to the live answer.
      const grid = (
        detail as { grid: Array<{ domain: string; taskId: string; cells: Array<{ trial: number }> }> }
      ).grid;
      const keys = grid.flatMap((row) =>
        row.cells.map((cell) =>
          staticAnswerKey(["runs", runId, "simulations", row.domain, row.taskId, String(cell.trial)]),
        ),
      );
      expect(Object.keys(index.files)).toEqual(keys);
      expect(Object.keys(answers).sort()).toEqual([...keys].sort());
      for (const key of keys) expect(answers[key], key).toEqual(await live(key));
      // The review verdicts came along: each failed simulation has its culprit.
      const failedKey = staticAnswerKey(["runs", runId, "simulations", "airline", "11", "0"]);
      expect((answers[failedKey] as { review: { culprit: string } | null }).review?.culprit).toEqual(
        expect.any(String),
      );
    } finally {
      store.close();
    }
  });

  it("keeps hostile transcript text inert and the environment's keys out of every file", async () => {
    const out = path.join(work, "site");
    const { answers } = readExport(out);
    for (const file of filesUnder(path.join(out, "data"))) {
      const text = readFileSync(path.join(out, "data", file), "utf8");
      expect(text, file).not.toMatch(/<\/script|<!--|\u2028|\u2029/i);
      expect(text, file).not.toContain(SECRET);
    }
    // The customer's words arrive exactly as said, the key replaced as the server replaces it.
    const first = answers[staticAnswerKey(["runs", runId, "simulations", "airline", "0", "0"])] as {
      simulation: { messages: Array<{ role: string; content: string | null }> };
    };
    const said = first.simulation.messages.find((m) => m.role === "user")!.content!;
    expect(said.startsWith(HOSTILE.replace(SECRET, "[redacted]"))).toBe(true);
  });

  it("replaces an earlier export, and says what is wrong otherwise", async () => {
    const out = path.join(work, "site");
    writeFileSync(path.join(out, "data", "simulations", "99999.js"), "stale");
    const again = await passk("export", runId, "--format", "html", "-o", out);
    expect(again.code, again.stderr).toBe(0);
    expect(filesUnder(path.join(out, "data", "simulations"))).toHaveLength(6);

    const occupied = path.join(work, "occupied");
    mkdirSync(occupied);
    writeFileSync(path.join(occupied, "notes.txt"), "mine");
    const refused = await passk("export", runId, "--format", "html", "-o", occupied);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/occupied is not empty: give a new folder/);
    expect(readFileSync(path.join(occupied, "notes.txt"), "utf8")).toBe("mine");

    const noFolder = await passk("export", runId, "--format", "html");
    expect(noFolder.stderr).toMatch(/--format html writes a folder: name it with -o DIR/);

    const unbuilt = path.join(work, "unbuilt-web");
    mkdirSync(unbuilt);
    const missingBuild = await passk(
      "export",
      runId,
      "--format",
      "html",
      "-o",
      path.join(work, "site2"),
      "--web-root",
      unbuilt,
    );
    expect(missingBuild.code).not.toBe(0);
    expect(missingBuild.stderr).toMatch(/the web app's export build is missing .*run `npm run build`/);

    const unknown = await passk("export", "no-such-run", "--format", "html", "-o", path.join(work, "site3"));
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/no-such-run/);
  });
});
