import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinDomains } from "../../src/domains/registry.js";
import { sqliteRunCatalog } from "../../src/server/run-catalog.js";
import { Store } from "../../src/store/store.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { buildOfficialResults } from "../helpers/official-results.js";
import { runCli } from "../helpers/run-cli.js";
import { ensureWebBuilt, launchChromium } from "./helpers/browser.js";
import { sharedDomainData, startWebServer, type WebServer } from "./helpers/web-server.js";

// A results file imported with `passk import`, then uploaded in the browser: the upload is flagged as
// the same file, naming the run the CLI made (as a second browser upload is).
const airline = sharedDomainData(builtinDomains.get("airline")!, tau2DataDir());
let folder: string;
let storeFile: string;
let resultsFile: string;
let served: Store;
let web: WebServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  ensureWebBuilt();
  folder = mkdtempSync(path.join(tmpdir(), "passk-import-twice-"));
  storeFile = path.join(folder, "passk.db");
  resultsFile = path.join(folder, "official.json");
  writeFileSync(
    resultsFile,
    JSON.stringify(
      buildOfficialResults(
        airline,
        [0, 1].map((trial) => ({ task: "8", trial, variant: "gold" as const })),
      ),
    ),
  );
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await web?.kill();
  served?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe("a file imported with passk import, then again", () => {
  it("is flagged by the CLI the second time, and by the web app's upload", async () => {
    const first = await runCli(["import", resultsFile, "--store", storeFile, "--id", "from-cli"]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toContain("imported before");
    const second = await runCli(["import", resultsFile, "--store", storeFile, "--id", "cli-again"]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`note: ${resultsFile} was imported before, as run from-cli`);

    served = Store.open(storeFile);
    const store = sqliteRunCatalog(served);
    web = await startWebServer({ store });
    const page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${web.url}/#/runs`);
    await page.locator('tr[data-run-id="from-cli"]').waitFor();
    await page.getByTestId("upload").setInputFiles(resultsFile);
    const warning = page.getByTestId("duplicate-import");
    await warning.waitFor();
    expect(await warning.innerText()).toContain("official.json was imported before");
    expect(await warning.getByRole("link", { name: "this run" }).getAttribute("href")).toBe(
      "#/runs/from-cli",
    );
    await warning.getByRole("button", { name: "Cancel" }).click();
    expect(
      store
        .listRuns()
        .map((r) => r.id)
        .sort(),
    ).toEqual(["cli-again", "from-cli"]);
    await page.close();
    // Two CLI processes and a browser: about 15 s here, far more on a loaded machine.
  }, 180_000);
});
