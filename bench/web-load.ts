/**
 * The web app's first load: the playground opened in Chromium with nothing cached (a fresh profile per
 * pass) against `passk serve`'s app on 127.0.0.1 with the keyless scripted participants; first
 * contentful paint and the time until the scenario chips are shown, median of 5 passes. Beside it, the
 * bytes that load: the JavaScript the playground fetches (raw and as sent), all of the app's JavaScript,
 * and the first API answers (`/api/info`, `/api/domains/telecom`) raw and as sent.
 *
 * Usage: node --import tsx bench/web-load.ts [webDist]   (run by `npm run bench`; builds web/dist first)
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { serve } from "@hono/node-server";
import { ensureWebBuilt, launchChromium, WEB_DIST } from "../test/web/helpers/browser.js";
import { goldAgent } from "../src/agents/gold-agent.js";
import { builtinDomains } from "../src/domains/registry.js";
import { createServer } from "../src/server/create-server.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { goldUser } from "../src/users/gold-user.js";

const PASSES = 5;
const webDist = process.argv[2] ? path.resolve(process.argv[2]) : (ensureWebBuilt(), WEB_DIST);

const app = createServer({
  domains: builtinDomains,
  dataDir: tau2DataDir(),
  participants: {
    agents: ["scripted:gold"],
    users: ["scripted:gold"],
    agentFor: () => goldAgent,
    customerFor: () => goldUser,
  },
  webRoot: webDist,
});
const server = await new Promise<Server>((resolve) => {
  const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s as Server));
});
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const kb = (bytes: number) => Number((bytes / 1024).toFixed(1));
const brotli = (data: Buffer) =>
  brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;

/** Bytes of an answer as received with and without `Accept-Encoding`. */
async function sizes(pathname: string): Promise<{ raw: number; sent: number; encoding: string }> {
  const plain = await fetch(`${url}${pathname}`, { headers: { "Accept-Encoding": "identity" } });
  const raw = (await plain.arrayBuffer()).byteLength;
  // undici decodes bodies: read the encoded size from a request that keeps it (no decompression).
  const { request } = await import("node:http");
  const sent = await new Promise<{ bytes: number; encoding: string }>((resolve, reject) => {
    request(`${url}${pathname}`, { headers: { "Accept-Encoding": "br, gzip" } }, (res) => {
      let bytes = 0;
      res.on("data", (chunk: Buffer) => (bytes += chunk.length));
      res.on("end", () => resolve({ bytes, encoding: String(res.headers["content-encoding"] ?? "none") }));
      res.on("error", reject);
    })
      .on("error", reject)
      .end();
  });
  return { raw, sent: sent.bytes, encoding: sent.encoding };
}

// The JavaScript the playground needs: the entry script and what index.html preloads with it.
const index = readFileSync(path.join(webDist, "index.html"), "utf8");
const initial = [...index.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
const allJs = readdirSync(path.join(webDist, "assets")).filter((f) => f.endsWith(".js"));
const total = (files: readonly string[], measure: (data: Buffer) => number) =>
  files.reduce((sum, f) => sum + measure(readFileSync(path.join(webDist, f))), 0);
const initialSent = await Promise.all(initial.map((f) => sizes(`/${f}`)));

await fetch(`${url}/api/info`); // parses the domains: not part of a page load.
const info = await sizes("/api/info");
const telecom = await sizes("/api/domains/telecom");

const paints: number[] = [];
const chips: number[] = [];
for (let pass = 0; pass < PASSES; pass++) {
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    const started = Date.now();
    await page.goto(`${url}/#/play/airline`);
    await page.locator("button.scenario-chip").first().waitFor({ timeout: 60_000 });
    chips.push(Date.now() - started);
    paints.push(
      await page.evaluate(
        () => performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? Number.NaN,
      ),
    );
  } finally {
    await browser.close();
  }
}
server.close();
server.closeAllConnections();

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.log(
  JSON.stringify({
    bench: "web-load",
    web_dist: path.relative(process.cwd(), webDist) || ".",
    passes: PASSES,
    first_contentful_paint_ms: Math.round(median(paints)),
    chips_shown_ms: Math.round(median(chips)),
    playground_js_files: initial.length,
    playground_js_kb: kb(total(initial, (d) => d.length)),
    playground_js_brotli_kb: kb(total(initial, brotli)),
    playground_js_gzip_kb: kb(total(initial, (d) => gzipSync(d, { level: 9 }).length)),
    playground_js_sent_kb: kb(initialSent.reduce((sum, s) => sum + s.sent, 0)),
    all_js_kb: kb(
      total(
        allJs.map((f) => `assets/${f}`),
        (d) => d.length,
      ),
    ),
    all_js_files: allJs.length,
    api_info_kb: kb(info.raw),
    api_info_sent_kb: kb(info.sent),
    api_telecom_domain_kb: kb(telecom.raw),
    api_telecom_domain_sent_kb: kb(telecom.sent),
    api_encoding: telecom.encoding,
    css_kb: kb(
      readdirSync(path.join(webDist, "assets"))
        .filter((f) => f.endsWith(".css"))
        .reduce((sum, f) => sum + statSync(path.join(webDist, "assets", f)).size, 0),
    ),
    load_average: os.loadavg().map((l) => Number(l.toFixed(2))),
  }),
);
