import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinDomains } from "../domains/registry.js";
import { tau2DataDir } from "../testing/tau2-fixtures.js";
import { DomainDetailSchema } from "./api-schemas.js";
import { createServer } from "./create-server.js";

let root: string;
const script = `console.log(${JSON.stringify("passk ".repeat(2000))});\n`;

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), "passk-static-"));
  mkdirSync(path.join(root, "assets"));
  writeFileSync(path.join(root, "index.html"), "<!doctype html><title>passk</title>");
  writeFileSync(path.join(root, "assets", "app-1234.js"), script);
  writeFileSync(path.join(root, "assets", "logo.png"), Buffer.alloc(4000, 7));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function app() {
  return createServer({
    domains: builtinDomains,
    dataDir: tau2DataDir(),
    participants: {
      agents: [],
      users: [],
      agentFor: () => {
        throw new Error("no agents here");
      },
      customerFor: () => {
        throw new Error("no customers here");
      },
    },
    webRoot: root,
  });
}
const get = (url: string, encoding?: string) =>
  app().request(`http://localhost${url}`, encoding ? { headers: { "Accept-Encoding": encoding } } : {});

describe("the web app and the API served compressed", () => {
  it("sends scripts brotli-compressed to browsers that take brotli, gzip to the others, plain otherwise", async () => {
    const br = await get("/assets/app-1234.js", "gzip, deflate, br");
    expect(br.headers.get("Content-Encoding")).toBe("br");
    expect(br.headers.get("Vary")).toMatch(/Accept-Encoding/);
    const brBytes = Buffer.from(await br.arrayBuffer());
    expect(brBytes.length).toBeLessThan(script.length / 10);
    expect(brotliDecompressSync(brBytes).toString()).toBe(script);

    const gz = await get("/assets/app-1234.js", "gzip");
    expect(gz.headers.get("Content-Encoding")).toBe("gzip");
    expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString()).toBe(script);

    for (const accept of [undefined, "identity", "br;q=0, gzip;q=0"]) {
      const plain = await get("/assets/app-1234.js", accept);
      expect(plain.headers.get("Content-Encoding")).toBeNull();
      expect(await plain.text()).toBe(script);
    }
    // Images are already compressed: sent as they are.
    const png = await get("/assets/logo.png", "br");
    expect(png.headers.get("Content-Encoding")).toBeNull();
    expect((await png.arrayBuffer()).byteLength).toBe(4000);
  });

  it("compresses JSON answers, and a domain's task list carries only each task's id and title", async () => {
    const answer = await get("/api/domains/airline", "gzip");
    expect(answer.headers.get("Content-Encoding")).toBe("gzip");
    const body = gunzipSync(Buffer.from(await answer.arrayBuffer())).toString();
    const detail = DomainDetailSchema.parse(JSON.parse(body));
    expect(detail.tasks.length).toBeGreaterThan(40);
    for (const task of detail.tasks) expect(Object.keys(task).sort()).toEqual(["id", "title"]);
  });
});
