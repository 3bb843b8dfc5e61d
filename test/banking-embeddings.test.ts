import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { runCli } from "./helpers/run-cli.js";

// A dense retrieval config of banking_knowledge through the CLI, against a local OpenAI-shaped
// embeddings endpoint: the documents are embedded once and kept on disk, so a second process embeds
// only its query; a failing endpoint is a sentence naming it, never a tool result.

const WORDS = ["overdraft", "wire", "card", "dispute"];
const vectorOf = (text: string) => [...WORDS.map((w) => text.toLowerCase().split(w).length - 1), 1];
const requests: Array<{ inputs: number; authorization: string | undefined }> = [];
let failing = false;
let server: Server;
let baseUrl = "";
const dir = mkdtempSync(path.join(tmpdir(), "passk-banking-dense-"));

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      const { input } = JSON.parse(body) as { input: string[] };
      requests.push({ inputs: input.length, authorization: request.headers.authorization });
      response.setHeader("content-type", "application/json");
      if (failing) {
        response.statusCode = 503;
        response.end(JSON.stringify({ error: { message: "embeddings are down", type: "server_error" } }));
        return;
      }
      response.end(
        JSON.stringify({
          object: "list",
          data: input.map((text, index) => ({ object: "embedding", index, embedding: vectorOf(text) })),
          model: "text-embedding-3-large",
          usage: { prompt_tokens: input.length, total_tokens: input.length },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const search = (cache: string) =>
  runCli(
    [
      "call",
      "--domain",
      "banking_knowledge",
      "--retrieval-config",
      "openai_embeddings",
      "--tool",
      "KB_search",
      "--args",
      '{"query": "overdraft fee on a wire"}',
    ],
    {
      env: {
        PASSK_DATA_DIR: tau2DataDir(),
        OPENAI_API_KEY: "sk-test-dense-secret",
        OPENAI_BASE_URL: baseUrl,
        PASSK_EMBEDDING_CACHE: cache,
      },
    },
  );

describe("banking_knowledge with openai_embeddings", () => {
  const cache = path.join(dir, "embeddings.db");

  it("embeds the 698 documents once; a second process embeds only its query", async () => {
    const first = await search(cache);
    expect(first.code, first.stderr).toBe(0);
    // The tool's text ends with how long the search took (as the reference's): compared without it.
    const untimed = (stdout: string) =>
      (JSON.parse(stdout) as { output: string }).output.replace(/\n\n\[Timing: [^\]]*\]$/, "");
    const output = untimed(first.stdout);
    expect(output).toMatch(/overdraft|wire/i);
    const embedded = requests.reduce((sum, r) => sum + r.inputs, 0);
    expect(embedded).toBe(698 + 1);
    expect(requests.every((r) => r.authorization === "Bearer sk-test-dense-secret")).toBe(true);

    requests.length = 0;
    const second = await search(cache);
    expect(second.code, second.stderr).toBe(0);
    expect(untimed(second.stdout)).toBe(output);
    expect(requests.map((r) => r.inputs)).toEqual([1]);
  });

  it("a failing endpoint is a sentence naming it, and the key is never printed", async () => {
    failing = true;
    try {
      const run = await search(path.join(dir, "other.db"));
      expect(run.code).not.toBe(0);
      expect(run.stdout + run.stderr).toMatch(/embeddings endpoint of openai:text-embedding-3-large failed/);
      expect(run.stdout + run.stderr).not.toContain("sk-test-dense-secret");
    } finally {
      failing = false;
    }
  });
});
