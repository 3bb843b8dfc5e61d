import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goldAgent } from "../agents/gold-agent.js";
import { builtinDomains } from "../domains/registry.js";
import { fixtureDomainData, tau2DataDir } from "../testing/tau2-fixtures.js";
import { goldUser } from "../users/gold-user.js";
import {
  DomainDetailSchema,
  FIRST_TASKS,
  SequencedEventSchema,
  StartConversationResponseSchema,
  TASK_PAGE_SIZE,
  TaskPageSchema,
  type SequencedEvent,
} from "./api-schemas.js";
import { createServer } from "./create-server.js";
import type { ServerDeps } from "./server-deps.js";
import { OWNER_TOKEN_HEADER } from "./routes/conversation-routes.js";

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

function app(deps: Partial<ServerDeps> = {}) {
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
    ...deps,
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

  it("sends JSON answers plain to clients that do not ask for compression", async () => {
    for (const accept of [undefined, "identity"]) {
      const plain = await get("/api/domains/airline", accept);
      expect(plain.headers.get("Content-Encoding")).toBeNull();
      expect(DomainDetailSchema.parse(await plain.json()).name).toBe("airline");
    }
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

describe("a domain's task list, paged", () => {
  it("answers the domain with its first tasks and the count, and the rest a page at a time, in order", async () => {
    const telecom = fixtureDomainData("telecom");
    // One server, reading the data parsed once (`get` would build a server, and parse the data, per request).
    const served = app({ loadDomainData: (domain) => fixtureDomainData(domain.name) });
    const get = (url: string) => served.request(`http://localhost${url}`);
    const all = telecom.tasks.map((t) => t.id);
    expect(all.length).toBeGreaterThan(FIRST_TASKS + TASK_PAGE_SIZE);
    const raw = await (await get("/api/domains/telecom")).text();
    const detail = DomainDetailSchema.parse(JSON.parse(raw));
    expect(detail.taskCount).toBe(all.length);
    expect(detail.tasks.map((t) => t.id)).toEqual(all.slice(0, FIRST_TASKS));
    // The first answer no longer carries telecom's ~500 KB list.
    expect(raw.length).toBeLessThan(100_000);

    const ids = detail.tasks.map((t) => t.id);
    const sizes: number[] = [];
    while (ids.length < detail.taskCount) {
      const answer = await get(`/api/domains/telecom/tasks?offset=${ids.length}`);
      expect(answer.status).toBe(200);
      const page = TaskPageSchema.parse(await answer.json());
      expect(page).toMatchObject({ offset: ids.length, total: all.length });
      for (const task of page.tasks) expect(Object.keys(task).sort()).toEqual(["id", "title"]);
      sizes.push(page.tasks.length);
      if (page.tasks.length === 0) break;
      ids.push(...page.tasks.map((t) => t.id));
    }
    expect(ids).toEqual(all);
    expect(Math.max(...sizes)).toBe(TASK_PAGE_SIZE);

    const small = TaskPageSchema.parse(
      await (await get("/api/domains/telecom/tasks?offset=3&limit=2")).json(),
    );
    expect(small.tasks.map((t) => t.id)).toEqual(all.slice(3, 5));
    const past = TaskPageSchema.parse(
      await (await get(`/api/domains/telecom/tasks?offset=${all.length}`)).json(),
    );
    expect(past.tasks).toEqual([]);
    // A small domain comes whole with its answer.
    const airline = DomainDetailSchema.parse(await (await get("/api/domains/airline")).json());
    expect(airline.tasks.length).toBe(airline.taskCount);
    for (const bad of ["limit=0", `limit=${TASK_PAGE_SIZE + 1}`, "offset=-1", "offset=x", "extra=1"]) {
      const refused = await get(`/api/domains/telecom/tasks?${bad}`);
      expect(refused.status, bad).toBe(400);
    }
    expect((await get("/api/domains/nope/tasks")).status).toBe(404);
  });
});

describe("live event streams under compression", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    const live = createServer({
      domains: builtinDomains,
      dataDir: tau2DataDir(),
      participants: {
        agents: ["scripted:gold"],
        users: ["scripted:gold"],
        agentFor: () => goldAgent,
        customerFor: () => goldUser,
      },
      webRoot: root,
    });
    server = await new Promise<Server>((resolve) => {
      const s = serve({ fetch: live.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s as Server));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server?.closeAllConnections();
    server?.close();
  });

  it("delivers a conversation's events one by one, uncompressed, to a client that accepts gzip and brotli", async () => {
    const started = await fetch(`${url}/api/conversations`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ domain: "mock", taskId: "create_task_1", mode: "human" }),
    });
    expect(started.status).toBe(201);
    const { conversationId, ownerToken } = StartConversationResponseSchema.parse(await started.json());

    // Over real HTTP, bytes as sent (node:http decodes nothing): each event must arrive while the
    // conversation is still waiting on the customer, so a stream held back by a compressor never would.
    const response = await new Promise<IncomingMessage>((resolve, reject) =>
      httpRequest(`${url}/api/conversations/${conversationId}/events`, {
        headers: { "Accept-Encoding": "gzip, deflate, br" },
      })
        .on("response", resolve)
        .on("error", reject)
        .end(),
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toContain("text/event-stream");
    expect(response.headers["content-encoding"]).toBeUndefined();

    const events: SequencedEvent[] = [];
    const waiters: (() => void)[] = [];
    let buffer = "";
    response.setEncoding("utf8");
    response.on("data", (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const data = buffer
          .slice(0, end)
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trimStart())
          .join("\n");
        buffer = buffer.slice(end + 2);
        if (data) events.push(SequencedEventSchema.parse(JSON.parse(data)));
      }
      for (const wake of waiters.splice(0)) wake();
    });
    /** Resolves once `count` events of `type` have arrived on the open stream. */
    const arrived = async (type: SequencedEvent["type"], count: number) => {
      while (events.filter((e) => e.type === type).length < count)
        await new Promise<void>((resolve) => waiters.push(resolve));
    };

    await arrived("awaiting-customer", 1);
    expect(response.complete).toBe(false);
    const greeting = events.filter((e) => e.type === "message").length;
    expect(greeting).toBeGreaterThan(0);

    const said = await fetch(`${url}/api/conversations/${conversationId}/messages`, {
      method: "POST",
      headers: { "Content-Type": "application/json", [OWNER_TOKEN_HEADER]: ownerToken },
      body: JSON.stringify({ content: "hello" }),
    });
    expect(said.status).toBe(200);
    // The customer's message and the agent's answer come on the same stream, still open.
    await arrived("awaiting-customer", 2);
    expect(response.complete).toBe(false);
    expect(events.filter((e) => e.type === "message").length).toBeGreaterThan(greeting + 1);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => events[0]!.seq + i));
    response.destroy();
  }, 60_000);
});
