import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../core/errors.js";
import { InfrastructureError, type LanguageModel, type LlmRequest, type LlmResponse } from "../core/llm.js";
import { createKnowledgeBase } from "./knowledge-base.js";
import {
  RERANKER_MODULE,
  createPointwiseReranker,
  formatPositional,
  readRerankerPrompt,
} from "./reranker.js";
import { createKbSearchPipeline, type Retriever } from "./search-pipeline.js";

const temporary = mkdtempSync(path.join(os.tmpdir(), "passk-reranker-"));
afterAll(() => rmSync(temporary, { recursive: true, force: true }));

/** An upstream folder whose reranker module holds `source`. */
function upstreamWith(source: string): string {
  const dir = mkdtempSync(path.join(temporary, "upstream-"));
  const file = path.join(dir, RERANKER_MODULE);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, source);
  return dir;
}

// A stand-in module in the reference's shape (its own prompt text, not the reference's).
const MODULE = `import os

DEFAULT_MAX_CONCURRENCY = 20

DEFAULT_POINTWISE_PROMPT = """Rate {{relevance}} 0-10.
Query: {}
Document: {}"""


class Reranker:
    def process(self, results):
        return [r for r in results if r]
`;

describe("readRerankerPrompt", () => {
  it("reads the prompt constant out of the upstream module", () => {
    expect(readRerankerPrompt(upstreamWith(MODULE))).toBe(
      "Rate {{relevance}} 0-10.\nQuery: {}\nDocument: {}",
    );
  });

  it("says which file is missing", () => {
    expect(() => readRerankerPrompt(path.join(temporary, "nowhere"))).toThrow(ConfigError);
    expect(() => readRerankerPrompt(path.join(temporary, "nowhere"))).toThrow(
      /pointwise_llm_reranker\.py, which is missing/,
    );
  });

  it("says when the module has no prompt constant", () => {
    expect(() => readRerankerPrompt(upstreamWith("X = 1\n"))).toThrow(
      /has no string constant DEFAULT_POINTWISE_PROMPT/,
    );
  });
});

describe("formatPositional", () => {
  it("fills {} in order and keeps doubled braces as braces, as str.format", () => {
    expect(formatPositional("{{a}} {} {} {0}", ["x", "{y}"])).toBe("{a} x {y} x");
  });
});

const kb = createKnowledgeBase([
  { id: "a", title: "A", content: "alpha" },
  { id: "b", title: "B", content: "beta" },
  { id: "c", title: "C", content: "gamma" },
  { id: "d", title: "D", content: "delta" },
  { id: "e", title: "E", content: "epsilon" },
  { id: "f", title: "F", content: "" },
]);
const retriever: Retriever = {
  name: "fixed",
  retrieve: async (_query, topK) => kb.documents.slice(0, topK).map((document) => ({ document, score: 1 })),
};

/** A model that answers from a table by the document in the prompt, and records what it was sent. */
function scriptedModel(answers: Record<string, string | Error>) {
  const requests: LlmRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const model: LanguageModel = {
    spec: "test:reranker",
    async generate(request): Promise<LlmResponse> {
      requests.push(request);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      const content = request.messages[0]!.content as string;
      const answer = answers[content.slice(content.lastIndexOf(" ") + 1)]!;
      if (answer instanceof Error) throw answer;
      return { text: answer, toolCalls: [], usage: { promptTokens: 1, completionTokens: 1 }, cost: null };
    },
  };
  return { model, requests, maxInFlight: () => maxInFlight };
}

describe("createPointwiseReranker", () => {
  const prompt = "Query: {} Document: {}";

  it("keeps documents rated at least minScore, best first, ties in retrieval order, rating as score", async () => {
    const { model, requests } = scriptedModel({
      alpha: '{"relevance_score": 8}',
      beta: '{"relevance_score": 3}',
      gamma: '{"relevance_score": 14}',
      delta: "not json",
      epsilon: '{"relevance_score": 8}',
    });
    const reranker = createPointwiseReranker({ model, prompt, minScore: 5 });
    const hits = await reranker.process("q", await retriever.retrieve("q", 10));
    expect(hits.map((hit) => [hit.document.id, hit.score])).toEqual([
      ["c", 10],
      ["a", 8],
      ["e", 8],
    ]);
    // One call per document with content; a user message only, asking for the rating as JSON.
    expect(requests.map((request) => request.messages[0]!.content).sort()).toEqual(
      ["alpha", "beta", "delta", "epsilon", "gamma"].map((word) => `Query: q Document: ${word}`).sort(),
    );
    expect(requests[0]).toMatchObject({ system: "", jsonSchema: { required: ["relevance_score"] } });
  });

  it("calls the model at most maxConcurrency at a time", async () => {
    const scripted = scriptedModel(
      Object.fromEntries(
        ["alpha", "beta", "gamma", "delta", "epsilon"].map((w) => [w, '{"relevance_score": 9}']),
      ),
    );
    const reranker = createPointwiseReranker({
      model: scripted.model,
      prompt,
      minScore: 5,
      maxConcurrency: 2,
    });
    expect(await reranker.process("q", await retriever.retrieve("q", 10))).toHaveLength(5);
    expect(scripted.maxInFlight()).toBe(2);
  });

  it("lets a provider fault end the conversation as an infrastructure error", async () => {
    const { model } = scriptedModel({
      alpha: '{"relevance_score": 8}',
      beta: new InfrastructureError("the provider is down", 3),
      gamma: "{}",
      delta: "{}",
      epsilon: "{}",
    });
    const reranker = createPointwiseReranker({ model, prompt, minScore: 5 });
    await expect(reranker.process("q", await retriever.retrieve("q", 10))).rejects.toThrow(
      "the provider is down",
    );
  });

  it("post-processes KB_search, with its time shown as reranking", async () => {
    const { model } = scriptedModel({ alpha: '{"relevance_score": 7}', beta: '{"relevance_score": 2}' });
    const ticks = [0, 1, 41];
    const pipeline = createKbSearchPipeline({
      retriever,
      topK: 2,
      postprocessor: createPointwiseReranker({ model, prompt, minScore: 5 }),
      now: () => ticks.shift()!,
    });
    expect(await pipeline.run("q")).toBe(
      "1. A\n   ID: a\n   Score: 7.0000\n   Content: alpha\n\n\n[Timing: retrieval=1ms, reranking=40ms, total=41ms]",
    );
  });
});
