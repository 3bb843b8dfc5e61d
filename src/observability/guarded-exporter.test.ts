import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { GuardedExporter } from "./guarded-exporter.js";

/** A collector answering every request with `status`, counting what it got and with which headers. */
async function collector(status: number) {
  const requests: Array<{ authorization: string | undefined; body: string }> = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      requests.push({ authorization: request.headers.authorization, body });
      response.writeHead(status).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
  return { url, requests, close: () => new Promise((resolve) => server.close(resolve)) };
}

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe("GuardedExporter", () => {
  it("the probe finds refused credentials at once: one warning naming the status, then exports are dropped", async () => {
    const refusing = await collector(401);
    const warnings: string[] = [];
    const inner = new InMemorySpanExporter();
    const exporter = new GuardedExporter(inner, { endpoint: refusing.url, warn: (m) => warnings.push(m) });
    exporter.probe(refusing.url, { headers: { Authorization: "Basic secret-value" } });
    await until(() => warnings.length > 0);
    await refusing.close();
    expect(refusing.requests).toEqual([
      { authorization: "Basic secret-value", body: '{"resourceSpans":[]}' },
    ]);
    expect(warnings).toEqual([
      `warning: traces could not be sent to ${refusing.url} (HTTP 401); the run goes on without them — is the collector running? (--otel URL, OTEL_EXPORTER_OTLP_ENDPOINT)`,
    ]);
    expect(exporter.unreachable).toBe(true);
    const results: number[] = [];
    exporter.export([{} as ReadableSpan], (result) => results.push(result.code));
    expect(results).toEqual([1]);
    expect(inner.getFinishedSpans()).toEqual([]);
    exporter.warnOnce("again");
    expect(warnings.length).toBe(1);
  });

  it("a collector that accepts the probe leaves exports alone; one nobody listens on is ECONNREFUSED", async () => {
    const accepting = await collector(200);
    const warnings: string[] = [];
    const healthy = new GuardedExporter(new InMemorySpanExporter(), {
      endpoint: accepting.url,
      warn: (m) => warnings.push(m),
    });
    healthy.probe(accepting.url, { headers: {} });
    await until(() => accepting.requests.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(healthy.unreachable).toBe(false);
    await accepting.close();

    // A port nothing listens on (a collector opened and closed, never connected to).
    const gone = await collector(200);
    await gone.close();
    const down = new GuardedExporter(new InMemorySpanExporter(), {
      endpoint: gone.url,
      warn: (m) => warnings.push(m),
    });
    down.probe(gone.url, { headers: {} });
    await until(() => warnings.length > 0);
    expect(warnings[0]).toContain("(ECONNREFUSED)");
    expect(down.unreachable).toBe(true);
  });

  it("after a failed export, exports pause for a minute and then are tried again", async () => {
    let now = 0;
    const warnings: string[] = [];
    let attempts = 0;
    const failing = new InMemorySpanExporter();
    failing.export = (_spans, callback) => {
      attempts++;
      callback({ code: 1, error: Object.assign(new Error("connect"), { code: "ECONNRESET" }) });
    };
    const exporter = new GuardedExporter(failing, {
      endpoint: "http://collector/v1/traces",
      warn: (m) => warnings.push(m),
      now: () => now,
    });
    const exportOnce = () => exporter.export([], () => undefined);
    exportOnce();
    exportOnce();
    now = 59_999;
    exportOnce();
    expect(attempts).toBe(1);
    now = 60_000;
    exportOnce();
    expect(attempts).toBe(2);
    expect(warnings.length).toBe(1);
    expect(warnings[0]).toContain("(ECONNRESET)");
  });

  it("abandonPending answers an export the collector never answers, once; its late answer is ignored", () => {
    const hanging = new InMemorySpanExporter();
    let late: ((result: { code: number }) => void) | undefined;
    hanging.export = (_spans, callback) => (late = callback);
    const warnings: string[] = [];
    const exporter = new GuardedExporter(hanging, {
      endpoint: "http://collector",
      warn: (m) => warnings.push(m),
    });
    const results: number[] = [];
    exporter.export([], (result) => results.push(result.code));
    expect(results).toEqual([]);
    exporter.abandonPending();
    exporter.abandonPending();
    late!({ code: 0 });
    expect(results).toEqual([1]);
    expect(warnings).toEqual([]);
  });
});
