import { describe, expect, it } from "vitest";
import type { EmbeddingCache, TextEmbedder, TextEmbedderRequest } from "../src/core/text-embedder.js";
import { bankingKnowledgeDomain } from "../src/domains/banking/index.js";
import { mockDomain } from "../src/domains/mock/index.js";
import { DomainCatalog } from "../src/formats/tau2/domain-catalog.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { openEmbeddingCache } from "../src/llm/embedding-cache.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";

// banking_knowledge reads nothing of the process: its loader gives it the environment, the embedder
// factory and the embedding cache, and its dense search and its checks use exactly those.

const WORDS = ["overdraft", "wire", "card", "dispute"];
const vectorOf = (text: string) => [...WORDS.map((w) => text.toLowerCase().split(w).length - 1), 1];

describe("banking_knowledge's injected services", () => {
  it("dense search embeds with the embedder and the cache its loader gives", async () => {
    const requests: TextEmbedderRequest[] = [];
    const embedded: string[][] = [];
    const embedder: TextEmbedder = {
      spec: "fake:injected-words",
      embed: (texts) => {
        embedded.push([...texts]);
        return Promise.resolve(texts.map(vectorOf));
      },
    };
    const memory = openEmbeddingCache(":memory:");
    const stored: string[] = [];
    const cache: EmbeddingCache = {
      get: (spec, hash) => memory.get(spec, hash),
      put: (spec, entries) => {
        stored.push(...entries.map(() => spec));
        memory.put(spec, entries);
      },
      close: () => memory.close(),
    };
    const data = new DomainData(bankingKnowledgeDomain, tau2DataDir(), {
      config: "openai_embeddings",
      env: {},
      textEmbedder: (request) => {
        requests.push(request);
        return embedder;
      },
      embeddingCache: cache,
    });
    const result = await data
      .newWorld()
      .callTool(
        { name: "KB_search", arguments: { query: "overdraft fee on a wire" }, requestor: "assistant" },
        { allowAsync: true },
      );
    expect(result.error, result.content).toBe(false);
    expect(result.content).toMatch(/overdraft|wire/i);
    expect(requests.map((r) => [r.spec, r.apiKeyEnv])).toEqual([
      ["openai:text-embedding-3-large", "OPENAI_API_KEY"],
    ]);
    expect(embedded.map((batch) => batch.length)).toEqual([128, 128, 128, 128, 128, 58, 1]);
    expect(embedded.at(-1)).toEqual(["overdraft fee on a wire"]);
    expect(stored.length).toBe(698);
    expect(new Set(stored)).toEqual(new Set(["fake:injected-words"]));
    cache.close();
  });

  it("the default config and the conversation checks read the environment it is given", () => {
    const bare = new DomainData(bankingKnowledgeDomain, tau2DataDir(), { env: {} });
    expect(bare.config).toBe("bm25");
    expect(bankingKnowledgeDomain.configs?.defaultNote?.({})).toMatch(/needs OPENAI_API_KEY/);

    const dense = (env: Record<string, string>) =>
      new DomainData(bankingKnowledgeDomain, tau2DataDir(), { config: "openai_embeddings", env });
    expect(() => dense({}).assertConversable()).toThrow(/which need OPENAI_API_KEY: set it/);
    expect(() => dense({ OPENAI_API_KEY: "sk-given-here" }).assertConversable()).not.toThrow();
  });

  it("without an injected embedder, llm's embedder names the missing key's variable, never a value", async () => {
    const data = new DomainData(bankingKnowledgeDomain, tau2DataDir(), {
      config: "qwen_embeddings",
      env: { OPENAI_API_KEY: "sk-not-this-one" },
    });
    const failure = await Promise.resolve()
      .then(() =>
        data
          .newWorld()
          .callTool(
            { name: "KB_search", arguments: { query: "card" }, requestor: "assistant" },
            { allowAsync: true },
          ),
      )
      .then(
        (result) => result.content,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
    expect(failure).toContain(
      "OPENROUTER_API_KEY is not set: export it to embed with openai-compatible:qwen/qwen3-embedding-8b.",
    );
    expect(failure).not.toContain("sk-not-this-one");
  });

  it("the catalog shares a load only within one environment, and never one with injected embedders", () => {
    const catalog = new DomainCatalog();
    const dataDir = tau2DataDir();
    const env = { PASSK_EXAMPLE: "one" };
    const first = catalog.load(mockDomain, { dataDir, env });
    expect(catalog.load(mockDomain, { dataDir, env })).toBe(first);
    expect(catalog.load(mockDomain, { dataDir, env: { ...env } })).not.toBe(first);
    const embedder = () => {
      throw new Error("not called");
    };
    expect(catalog.load(mockDomain, { dataDir, env, textEmbedder: embedder })).not.toBe(
      catalog.load(mockDomain, { dataDir, env, textEmbedder: embedder }),
    );
  });
});
