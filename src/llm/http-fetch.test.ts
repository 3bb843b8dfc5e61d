import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { httpFetch } from "./http-fetch.js";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** A server whose handler also sees the request body; every request is recorded. */
async function serve(
  handler: (request: Received, response: ServerResponse) => void,
): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  server = createServer((incoming, response) => {
    const parts: Buffer[] = [];
    incoming.on("data", (part: Buffer) => parts.push(part));
    incoming.on("end", () => {
      const request = {
        method: incoming.method ?? "",
        url: incoming.url ?? "",
        headers: incoming.headers,
        body: Buffer.concat(parts).toString("utf8"),
      };
      received.push(request);
      handler(request, response);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, received };
}

describe("httpFetch", () => {
  it("sends method, headers and body, and answers status, headers and body as fetch does", async () => {
    const { url, received } = await serve((_, response) => {
      response.writeHead(201, "Made", { "content-type": "application/json", "x-request-id": "r1" });
      response.end('{"ok":true}');
    });
    const response = await httpFetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: "Bearer k" },
      body: '{"model":"m","text":"é"}',
    });
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.statusText).toBe("Made");
    expect(response.headers.get("x-request-id")).toBe("r1");
    expect(await response.json()).toEqual({ ok: true });
    expect(received).toEqual([
      expect.objectContaining({
        method: "POST",
        url: "/v1/chat/completions",
        body: '{"model":"m","text":"é"}',
      }),
    ]);
    expect(received[0]!.headers).toMatchObject({
      "content-type": "application/json",
      authorization: "Bearer k",
      "content-length": String(Buffer.byteLength('{"model":"m","text":"é"}')),
    });
  });

  it("reuses one connection for calls in sequence (keep-alive)", async () => {
    const sockets = new Set<unknown>();
    const { url } = await serve((_, response) => response.end("x"));
    server!.on("connection", (socket) => sockets.add(socket));
    for (let i = 0; i < 3; i++) await (await httpFetch(url, { method: "POST", body: "{}" })).text();
    expect(sockets.size).toBe(1);
  });

  it("streams the body: the first server-sent event arrives before the answer ends", async () => {
    let finish: (() => void) | undefined;
    const { url } = await serve((_, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: 1\n\n");
      finish = () => response.end("data: 2\n\n");
    });
    const response = await httpFetch(url, { method: "POST", body: "{}" });
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("data: 1\n\n");
    finish!();
    let rest = "";
    for (let part = await reader.read(); !part.done; part = await reader.read()) {
      rest += new TextDecoder().decode(part.value);
    }
    expect(rest).toBe("data: 2\n\n");
  });

  it("gives error statuses to the caller and a null body for 204", async () => {
    const { url } = await serve((request, response) => {
      if (request.url === "/empty") {
        response.writeHead(204);
        response.end();
        return;
      }
      response.writeHead(429, { "retry-after": "2" });
      response.end('{"error":"slow down"}');
    });
    const limited = await httpFetch(url, { method: "POST", body: "{}" });
    expect([limited.status, limited.ok, limited.headers.get("retry-after")]).toEqual([429, false, "2"]);
    expect(await limited.text()).toBe('{"error":"slow down"}');
    const empty = await httpFetch(`${url}/empty`);
    expect([empty.status, empty.body]).toEqual([204, null]);
  });

  it("decompresses a compressed answer", async () => {
    const { url } = await serve((_, response) => {
      response.writeHead(200, { "content-encoding": "gzip" });
      response.end(gzipSync('{"zipped":true}'));
    });
    expect(await (await httpFetch(url)).json()).toEqual({ zipped: true });
  });

  it("follows a redirect as fetch does, body included (307)", async () => {
    const { url, received } = await serve((request, response) => {
      if (request.url === "/old") {
        response.writeHead(307, { location: "/new" });
        response.end();
        return;
      }
      response.end(`moved: ${request.body}`);
    });
    const response = await httpFetch(`${url}/old`, { method: "POST", body: "payload" });
    expect(await response.text()).toBe("moved: payload");
    expect(received.map((request) => request.url)).toEqual(["/old", "/old", "/new"]);
  });

  it("rejects with TypeError('fetch failed') and the network error as cause, as fetch does", async () => {
    const { url } = await serve(() => undefined);
    await new Promise((resolve) => server!.close(resolve));
    const error = await httpFetch(url, { method: "POST", body: "{}" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe("fetch failed");
    expect(((error as TypeError).cause as { code?: string }).code).toBe("ECONNREFUSED");
  });

  it("rejects with the signal's reason when aborted before or while waiting for the answer", async () => {
    const { url } = await serve(() => undefined); // never answers
    const controller = new AbortController();
    const pending = httpFetch(url, { method: "POST", body: "{}", signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const error = await pending.catch((caught: unknown) => caught);
    expect((error as Error).name).toBe("AbortError");
    await expect(httpFetch(url, { signal: controller.signal })).rejects.toMatchObject({ name: "AbortError" });
  });

  it("errors the body stream when aborted after the headers", async () => {
    const { url } = await serve((_, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: 1\n\n");
    });
    const controller = new AbortController();
    const response = await httpFetch(url, { method: "POST", body: "{}", signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: "AbortError" });
  });

  it("leaves other schemes to the platform fetch", async () => {
    const response = await httpFetch("data:text/plain,hello");
    expect(await response.text()).toBe("hello");
  });
});
