import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { mockReply, startMockLlmServer, type MockLlmServer } from "../testing/index.js";
import { createLanguageModel } from "./create-language-model.js";
import { openResponseCache, responseCacheKey, type ResponseCache } from "./response-cache.js";

const ENV = { OPENAI_API_KEY: "sk-test-0123456789" };
const REQUEST = { system: "s", messages: [{ role: "user" as const, content: "Hi" }] };

const servers: MockLlmServer[] = [];
const caches: ResponseCache[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const cache of caches.splice(0)) cache.close();
});

function cacheFile(): string {
  return path.join(mkdtempSync(path.join(tmpdir(), "passk-cache-")), "nested", "llm-cache.sqlite");
}

describe("response cache", () => {
  it("answers an identical request from the cache: the server sees it once", async () => {
    const server = await startMockLlmServer({
      script: [mockReply.text("first", { usage: { promptTokens: 1_000, completionTokens: 100 } })],
    });
    servers.push(server);
    const cache = openResponseCache(cacheFile());
    caches.push(cache);
    const model = createLanguageModel("openai:gpt-4o", { baseUrl: server.baseUrl, env: ENV, cache });
    const live = await model.generate(REQUEST);
    const replayed = await model.generate(REQUEST);
    expect(server.requests).toHaveLength(1);
    expect(live.cached).toBeUndefined();
    expect(replayed).toEqual({ ...live, cached: true });
    expect(replayed.cost).toBeCloseTo(0.0035, 12);
  });

  it("misses when messages, tools, settings or salt differ", async () => {
    const server = await startMockLlmServer({
      script: (request) => mockReply.text(`reply ${request.index}`),
    });
    servers.push(server);
    const cache = openResponseCache(cacheFile());
    caches.push(cache);
    const model = createLanguageModel("openai:gpt-4o", { baseUrl: server.baseUrl, env: ENV, cache });
    const tool = { name: "t", description: "d", parameters: { type: "object", properties: {} } };
    await model.generate(REQUEST);
    await model.generate({ ...REQUEST, messages: [{ role: "user", content: "Hello" }] });
    await model.generate({ ...REQUEST, tools: [tool] });
    await model.generate({ ...REQUEST, params: { temperature: 1 } });
    await model.generate({ ...REQUEST, cacheSalt: "trial-2" });
    expect(server.requests).toHaveLength(5);
    await model.generate({ ...REQUEST, cacheSalt: "trial-2" });
    expect(server.requests).toHaveLength(5);
  });

  it("persists across processes and does not depend on the server's address", async () => {
    const file = cacheFile();
    const first = await startMockLlmServer({ script: [mockReply.text("stored")] });
    servers.push(first);
    const writer = openResponseCache(file);
    await createLanguageModel("openai:gpt-4o", { baseUrl: first.baseUrl, env: ENV, cache: writer }).generate(
      REQUEST,
    );
    writer.close();

    const second = await startMockLlmServer({ script: [] });
    servers.push(second);
    const reader = openResponseCache(file);
    caches.push(reader);
    const response = await createLanguageModel("openai:gpt-4o", {
      baseUrl: second.baseUrl,
      env: ENV,
      cache: reader,
    }).generate(REQUEST);
    expect(response.text).toBe("stored");
    expect(second.requests).toHaveLength(0);
  });

  it("keys ignore object key order but not message order", () => {
    const a = responseCacheKey({
      spec: "openai:gpt-4o",
      request: REQUEST,
      params: { temperature: 0, seed: 1 },
    });
    const b = responseCacheKey({
      spec: "openai:gpt-4o",
      request: REQUEST,
      params: { seed: 1, temperature: 0 },
    });
    expect(a).toBe(b);
    const twoMessages = [
      { role: "user" as const, content: "x" },
      { role: "user" as const, content: "y" },
    ];
    const c = responseCacheKey({ spec: "m:m", request: { system: "", messages: twoMessages }, params: {} });
    const d = responseCacheKey({
      spec: "m:m",
      request: { system: "", messages: [...twoMessages].reverse() },
      params: {},
    });
    expect(c).not.toBe(d);
  });
});
