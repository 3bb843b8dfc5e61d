import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "../core/errors.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import { redactSecrets } from "../llm/redact.js";
import type { Store } from "../store/store.js";
import type { RunDetail, SimulationDetail } from "./api-schemas.js";
import { sqliteRunCatalog } from "./run-catalog.js";
import { RunViews, runName } from "./run-views.js";
import { defaultWebRoot, secretValues } from "./web-assets.js";
import {
  STATIC_ANSWERS_GLOBAL,
  STATIC_EXPORT_GLOBAL,
  staticAnswerKey,
  type StaticExportIndex,
} from "./static-export-format.js";

/** What the export reads: the explorer's own answers (`RunViews`), as the server gives them. */
export interface StaticExportSource {
  detail(runId: string): RunDetail;
  simulation(runId: string, key: { domain: string; taskId: string; trial: number }): SimulationDetail;
}

export interface StaticExportOptions {
  source: StaticExportSource;
  /** Run id (or unique prefix). */
  runId: string;
  /** The built web app (`web/dist`); its classic-script build is in `export/`. */
  webRoot: string;
  /** The folder to write: new, empty, or an earlier export (replaced). */
  outDir: string;
  /** Removes secrets from each answer's JSON text, as the server does before answering. */
  redact?: (text: string) => string;
  now?: () => Date;
}

export interface StaticExportSummary {
  runId: string;
  simulations: number;
  /** Files written, and their total size in bytes. */
  files: number;
  bytes: number;
}

/** The script and stylesheet `vite build --config web/vite.export.config.ts` writes. */
export const EXPORT_APP_FILE = path.join("export", "passk-app.js");

// The page loads only its own scripts and makes no requests; inline styles are React's and ECharts'.
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self' file:; style-src 'self' 'unsafe-inline'; img-src 'self' file: data:; connect-src 'none'; base-uri 'none'; form-action 'none'";

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );

/**
 * A JS expression for a JSON text: `JSON.parse("…")` (a string literal, so keys such as `__proto__`
 * stay plain keys), with `<` and the line separators escaped so no content can end a script element.
 */
function jsonExpression(jsonText: string): string {
  return `JSON.parse(${scriptSafe(JSON.stringify(jsonText))})`;
}

const scriptSafe = (literal: string) =>
  literal
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");

/** A folder a new export may be written to: missing, empty, or an earlier export. */
function prepareFolder(outDir: string): void {
  if (existsSync(outDir)) {
    if (!statSync(outDir).isDirectory()) throw new ConfigError(`${outDir} exists and is not a folder`);
    const entries = readdirSync(outDir);
    const earlierExport = existsSync(path.join(outDir, "data", "index.js"));
    if (entries.length > 0 && !earlierExport)
      throw new ConfigError(
        `${outDir} is not empty: give a new folder (an earlier export there would be replaced)`,
      );
    rmSync(path.join(outDir, "data"), { recursive: true, force: true });
  }
  mkdirSync(path.join(outDir, "data", "simulations"), { recursive: true });
  mkdirSync(path.join(outDir, "assets"), { recursive: true });
}

/**
 * A stored run's explorer pages as a folder, from the answers `passk serve` would give: the same views
 * over the same store and domain data (a domain without data: no titles or recomputed diffs), the
 * environment's secret values removed as the server removes them.
 */
export function exportStoredRunSite(
  store: Store,
  options: Omit<StaticExportOptions, "source" | "redact" | "now" | "webRoot"> & {
    /** The built web app; by default the one shipped with passk. */
    webRoot?: string | undefined;
    env: NodeJS.ProcessEnv;
    loadDomainData: (name: string) => DomainData | undefined;
  },
): StaticExportSummary {
  const secrets = secretValues(options.env);
  // One moment for the whole export: a running run's progress is as of the time it records.
  const exportedAt = new Date();
  const now = () => exportedAt;
  return writeStaticExport({
    source: new RunViews(sqliteRunCatalog(store), options.loadDomainData, now),
    runId: options.runId,
    webRoot: options.webRoot ?? defaultWebRoot(),
    outDir: options.outDir,
    redact: (text) => redactSecrets(text, secrets),
    now,
  });
}

/**
 * Write a run as a folder that opens from disk or any static host, with no server: the explorer's
 * run page, each simulation's page and the trials pages, read from the answers the server would give
 * (`source`), each simulation in a script file of its own so a page loads only what it shows.
 */
export function writeStaticExport(options: StaticExportOptions): StaticExportSummary {
  const app = path.join(options.webRoot, EXPORT_APP_FILE);
  if (!existsSync(app))
    throw new ConfigError(
      `the web app's export build is missing (${app}): run \`npm run build\`, which builds it`,
    );
  const redact = options.redact ?? ((text: string) => text);
  const json = (value: unknown) => redact(JSON.stringify(value));
  const detail = options.source.detail(options.runId);
  const runId = detail.run.id;
  prepareFolder(options.outDir);
  let bytes = 0;
  let files = 0;
  const write = (relative: string, text: string) => {
    writeFileSync(path.join(options.outDir, relative), text);
    bytes += Buffer.byteLength(text);
    files++;
  };

  // Simulations in the run's grid order (the order its pages and its search walk them).
  const simulationFiles: Record<string, string> = {};
  let n = 0;
  for (const row of detail.grid) {
    for (const cell of row.cells) {
      const key = staticAnswerKey(["runs", runId, "simulations", row.domain, row.taskId, String(cell.trial)]);
      const answer = options.source.simulation(runId, {
        domain: row.domain,
        taskId: row.taskId,
        trial: cell.trial,
      });
      const file = `data/simulations/${String(n++).padStart(5, "0")}.js`;
      write(
        file,
        `(window.${STATIC_ANSWERS_GLOBAL} = window.${STATIC_ANSWERS_GLOBAL} || {})[${scriptSafe(JSON.stringify(key))}] = ${jsonExpression(json(answer))};\n`,
      );
      simulationFiles[key] = file;
    }
  }
  const index: StaticExportIndex = {
    format: "passk-static-export",
    version: 1,
    runId,
    exportedAt: (options.now ?? (() => new Date()))().toISOString(),
    answers: { [staticAnswerKey(["runs", runId])]: JSON.parse(json(detail)) as unknown },
    files: simulationFiles,
  };
  write("data/index.js", `window.${STATIC_EXPORT_GLOBAL} = ${jsonExpression(JSON.stringify(index))};\n`);

  copyFileSync(app, path.join(options.outDir, "assets", "passk-app.js"));
  bytes += statSync(app).size;
  files++;
  const favicon = path.join(options.webRoot, "favicon.svg");
  if (existsSync(favicon)) {
    copyFileSync(favicon, path.join(options.outDir, "favicon.svg"));
    bytes += statSync(favicon).size;
    files++;
  }
  const title = `passk · ${runName(detail.run)} (static export)`;
  write(
    "index.html",
    `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}" />
    <meta name="referrer" content="no-referrer" />
    <link rel="icon" type="image/svg+xml" href="favicon.svg" />
    <title>${escapeHtml(title)}</title>
  </head>
  <body>
    <div id="root"></div>
    <noscript>This page is a passk run exported for reading offline; it needs JavaScript.</noscript>
    <script src="data/index.js"></script>
    <script src="assets/passk-app.js"></script>
  </body>
</html>
`,
  );
  return { runId, simulations: n, files, bytes };
}
