import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InfrastructureError } from "../../src/core/llm.js";
import { builtinDomains } from "../../src/domains/registry.js";
import { MAX_TOOL_ERROR_CHARS } from "../../src/env/world.js";
import { DomainData } from "../../src/formats/tau2/domain-data.js";
import { createLanguageModel } from "../../src/llm/index.js";
import { MAX_RESPONSE_BYTES } from "../../src/llm/http-fetch.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";

// A provider that answers with a flood, and a model that sends a flood as a tool argument: neither
// may take the memory, the trajectory or the store with it.

let flood: Server;
let baseUrl: string;
beforeAll(async () => {
  flood = createServer((req, res) => {
    req.resume();
    // Chunked, no content-length: the cap must count what arrives, not trust a header.
    res.writeHead(200, { "Content-Type": "application/json" });
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < MAX_RESPONSE_BYTES * 4) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once("drain", pump);
      }
      res.end("{}");
    };
    res.on("close", () => (sent = Infinity));
    pump();
  });
  await new Promise<void>((resolve) => flood.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(flood.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise((resolve) => flood.close(resolve)));

describe("hostile providers and arguments", () => {
  it("a provider answering 128 MB is cut off at the cap: an infrastructure error, memory bounded", async () => {
    const model = createLanguageModel("openai-compatible:flood", {
      baseUrl,
      env: {},
      retry: { maxAttempts: 1 },
    });
    const before = process.memoryUsage().rss;
    const error = await model
      .generate({ system: "s", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(InfrastructureError.isInstance(error), String(error)).toBe(true);
    expect(String((error as Error).message)).toMatch(/larger than \d+ bytes/);
    // Nowhere near the 128 MB sent (plus the JSON parse of it) stayed in memory.
    expect(process.memoryUsage().rss - before).toBeLessThan(MAX_RESPONSE_BYTES * 3);
  });

  it("a tool error echoing a 1 MB argument is cut to a bounded text that says so", () => {
    const data = new DomainData(builtinDomains.get("airline")!, tau2DataDir());
    for (const validation of ["strict", "lenient"] as const) {
      const world = data.newWorld({ validation });
      const result = world.callTool({
        name: "get_reservation_details",
        arguments: { reservation_id: "X".repeat(1_000_000) },
        requestor: "assistant",
      });
      expect(result.error).toBe(true);
      expect(result.content.length).toBeLessThan(MAX_TOOL_ERROR_CHARS + 64);
      expect(result.content).toMatch(/^Error: Reservation X+… \(\d+ more characters cut\)$/);
    }
  });
});
