import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ConfigError, UnknownNameError } from "../src/core/errors.js";
import { InfrastructureError } from "../src/core/llm.js";
import { openEmbeddingCache } from "../src/llm/embedding-cache.js";
import { createConfigEmbedder, createTextEmbedder } from "../src/llm/text-embedder.js";
import {
  QWEN_EMBEDDER,
  createKbSearchPipeline,
  createKnowledgeBase,
  denseRetriever,
  denseSearch,
  type KnowledgeDocument,
} from "../src/knowledge/index.js";

// A mock OpenAI `/v1/embeddings` endpoint. A text's vector counts four words, plus a constant 1:
// [overdraft, wire, card, dispute, 1]; so cosine similarities can be worked out by hand.
const WORDS = ["overdraft", "wire", "card", "dispute"];
const vectorOf = (text: string) => [...WORDS.map((word) => text.toLowerCase().split(word).length - 1), 1];

interface Received {
  path: string;
  authorization: string | undefined;
  model: string;
  input: string[];
}
let server: Server;
let baseUrl: string;
let received: Received[] = [];
let failWith: number | undefined;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      const parsed = JSON.parse(body) as { model: string; input: string[] };
      received.push({
        path: request.url ?? "",
        authorization: request.headers.authorization,
        model: parsed.model,
        input: parsed.input,
      });
      response.setHeader("content-type", "application/json");
      if (failWith !== undefined) {
        response.statusCode = failWith;
        response.end(
          JSON.stringify({ error: { message: "the embeddings service is down", type: "server_error" } }),
        );
        return;
      }
      response.end(
        JSON.stringify({
          object: "list",
          data: parsed.input.map((text, index) => ({
            object: "embedding",
            index,
            embedding: vectorOf(text),
          })),
          model: parsed.model,
          usage: { prompt_tokens: parsed.input.length, total_tokens: parsed.input.length },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received = [];
  failWith = undefined;
});

const documents: KnowledgeDocument[] = [
  { id: "fees", title: "Overdraft fees", content: "Overdraft fees: an overdraft costs $35." },
  { id: "wires", title: "Wires", content: "Wire transfers and wire fees." },
  { id: "disputes", title: "Card disputes", content: "Card disputes: dispute a card charge." },
  { id: "both", title: "Overdraft on a card", content: "Overdraft on a card." },
];
// q = [1,0,1,0,1]: both = 1, fees = 3/√15, disputes = 3/(3√3), wires = 1/√15.
const EXPECTED = [
  ["both", 1],
  ["fees", 3 / Math.sqrt(15)],
  ["disputes", 1 / Math.sqrt(3)],
  ["wires", 1 / Math.sqrt(15)],
] as const;

const temporary = mkdtempSync(path.join(os.tmpdir(), "passk-embeddings-"));
afterAll(() => rmSync(temporary, { recursive: true, force: true }));

describe("denseSearch over an OpenAI-shaped embeddings endpoint", () => {
  it("ranks by cosine similarity, and a second search embeds only its query", async () => {
    const kb = createKnowledgeBase(documents);
    const embedder = createTextEmbedder("openai-compatible:test-embed", { baseUrl, maxRetries: 0, env: {} });
    const hits = await denseSearch(kb, embedder, "overdraft card", 10);
    expect(hits.map((hit) => hit.document.id)).toEqual(EXPECTED.map(([id]) => id));
    hits.forEach((hit, i) => expect(hit.score).toBeCloseTo(EXPECTED[i]![1], 12));
    expect(received.map((request) => request.input)).toEqual([
      documents.map((document) => document.content),
      ["overdraft card"],
    ]);
    expect(received[0]).toMatchObject({ path: "/v1/embeddings", model: "test-embed" });

    received = [];
    // q = [0,1,0,0,1]: wires = 3/√10, both = 1/√6, fees = 1/√10, disputes = 1/(3√2).
    const second = await denseSearch(kb, embedder, "wire", 2);
    expect(second.map((hit) => hit.document.id)).toEqual(["wires", "both"]);
    expect(received.map((request) => request.input)).toEqual([["wire"]]);
  });

  it("keeps document vectors on disk, so another run embeds no document", async () => {
    const file = path.join(temporary, "cache", "embeddings.db");
    const embedder = createTextEmbedder("openai-compatible:test-embed-disk", {
      baseUrl,
      maxRetries: 0,
      env: {},
    });
    const first = openEmbeddingCache(file);
    await denseSearch(createKnowledgeBase(documents), embedder, "overdraft card", 10, { cache: first });
    first.close();
    expect(received).toHaveLength(2);

    received = [];
    const second = openEmbeddingCache(file);
    // A fresh knowledge base (as in a new process): nothing in memory, everything on disk.
    const hits = await denseSearch(createKnowledgeBase(documents), embedder, "overdraft card", 10, {
      cache: second,
    });
    second.close();
    expect(hits.map((hit) => hit.document.id)).toEqual(EXPECTED.map(([id]) => id));
    expect(received.map((request) => request.input)).toEqual([["overdraft card"]]);
  });

  it("embeds only documents whose content changed", async () => {
    const cache = openEmbeddingCache(":memory:");
    const embedder = createTextEmbedder("openai-compatible:test-embed-changed", {
      baseUrl,
      maxRetries: 0,
      env: {},
    });
    await denseSearch(createKnowledgeBase(documents), embedder, "card", 1, { cache });
    received = [];
    const changed = documents.map((document) =>
      document.id === "wires" ? { ...document, content: "Wire transfers, updated." } : document,
    );
    await denseSearch(createKnowledgeBase(changed), embedder, "card", 1, { cache });
    expect(received.map((request) => request.input)).toEqual([["Wire transfers, updated."], ["card"]]);
  });

  it("sends batches of the size asked for", async () => {
    const embedder = createTextEmbedder("openai-compatible:test-embed-batches", {
      baseUrl,
      maxRetries: 0,
      env: {},
    });
    await denseSearch(createKnowledgeBase(documents), embedder, "card", 1, { batchSize: 3 });
    expect(received.map((request) => request.input.length)).toEqual([3, 1, 1]);
  });

  it("returns nothing for an empty query, without a call", async () => {
    const embedder = createTextEmbedder("openai-compatible:test-embed-empty", {
      baseUrl,
      maxRetries: 0,
      env: {},
    });
    expect(await denseSearch(createKnowledgeBase(documents), embedder, "  ", 10)).toEqual([]);
    expect(received).toEqual([]);
  });

  it("serves KB_search_dense through the pipeline, cut to the pipeline's top-k", async () => {
    const embedder = createTextEmbedder("openai-compatible:test-embed-pipeline", {
      baseUrl,
      maxRetries: 0,
      env: {},
    });
    const pipeline = createKbSearchPipeline({
      retriever: denseRetriever(createKnowledgeBase(documents), embedder),
      topK: 2,
    });
    const output = await pipeline.run("overdraft card", { topK: 25 });
    expect(output).toMatch(
      /^1\. Overdraft on a card\n {3}ID: both\n {3}Score: 1\.0000\n[\s\S]*\n2\. Overdraft fees\n {3}ID: fees\n {3}Score: 0\.7746\n/,
    );
    expect(output).not.toContain("ID: disputes");
  });
});

describe("embedders", () => {
  it("call OpenAI's API with the key as a bearer token", async () => {
    const embedder = createTextEmbedder("openai:text-embedding-3-large", {
      baseUrl,
      env: { OPENAI_API_KEY: "sk-test-key-123456" },
      maxRetries: 0,
    });
    expect(embedder.spec).toBe("openai:text-embedding-3-large");
    expect(await embedder.embed(["wire card"])).toEqual([[0, 1, 1, 0, 1]]);
    expect(received[0]).toMatchObject({
      path: "/v1/embeddings",
      model: "text-embedding-3-large",
      authorization: "Bearer sk-test-key-123456",
    });
  });

  it("give Qwen's queries its instruction, and its documents none", async () => {
    const embedder = createConfigEmbedder(QWEN_EMBEDDER, {
      baseUrl,
      env: { OPENROUTER_API_KEY: "or-test-key-123456" },
      maxRetries: 0,
    });
    await denseSearch(createKnowledgeBase(documents), embedder, "overdraft card", 1);
    expect(received.map((request) => request.input)).toEqual([
      documents.map((document) => document.content),
      [
        "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:overdraft card",
      ],
    ]);
    expect(received[0]).toMatchObject({
      model: "qwen/qwen3-embedding-8b",
      authorization: "Bearer or-test-key-123456",
    });
  });

  it("end the conversation as an infrastructure error when the endpoint fails, and retry the index later", async () => {
    const kb = createKnowledgeBase(documents);
    const embedder = createTextEmbedder("openai:text-embedding-3-large", {
      baseUrl,
      env: { OPENAI_API_KEY: "sk-secret-key-123456" },
      maxRetries: 0,
    });
    failWith = 500;
    const failure = await denseSearch(kb, embedder, "overdraft", 3).catch((error: unknown) => error);
    expect(InfrastructureError.isInstance(failure)).toBe(true);
    expect((failure as InfrastructureError).attempts).toBe(1);
    expect((failure as Error).message).toMatch(
      /^the embeddings endpoint of openai:text-embedding-3-large failed after 1 attempt\(s\) \(.*\); the conversation is an infrastructure error/,
    );
    expect((failure as Error).message).not.toContain("sk-secret-key-123456");
    expect(received).toHaveLength(1);

    failWith = undefined;
    received = [];
    const hits = await denseSearch(kb, embedder, "overdraft", 1);
    expect(hits.map((hit) => hit.document.id)).toEqual(["fees"]);
    expect(received).toHaveLength(2);
  });

  it("are configured before any call, with errors that say what to set", () => {
    expect(() => createTextEmbedder("openai:text-embedding-3-large", { env: {} })).toThrow(ConfigError);
    expect(() => createTextEmbedder("openai:text-embedding-3-large", { env: {} })).toThrow(
      "OPENAI_API_KEY is not set: export it to embed with openai:text-embedding-3-large.",
    );
    expect(() => createTextEmbedder("openai-compatible:m", { env: {} })).toThrow(
      /needs a base URL: set OPENAI_COMPATIBLE_BASE_URL/,
    );
    expect(() => createTextEmbedder("cohere:embed", { env: {} })).toThrow(UnknownNameError);
    expect(() => createConfigEmbedder(QWEN_EMBEDDER, { env: {} })).toThrow(
      "OPENROUTER_API_KEY is not set: export it to embed with openai-compatible:qwen/qwen3-embedding-8b.",
    );
  });
});
