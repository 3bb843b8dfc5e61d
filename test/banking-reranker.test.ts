import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bm25Retriever, loadKnowledgeBase, RERANKER_MODULE } from "../src/knowledge/index.js";
import { goldFinalMessage } from "../src/agents/gold-agent.js";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { mockReply, startMockLlmServer, type MockLlmServer } from "../src/testing/index.js";
import { tau2DataDir, tau2UpstreamDir } from "../src/testing/tau2-fixtures.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";
import { upstreamWithout } from "./helpers/stand-in-data-models.js";

// banking_knowledge's `_reranker` configs: KB_search's hits are rated one by one by the model named with
// --reranker-llm, with the prompt read out of the reference's reranker module in the upstream folder. The
// module is not among the files passk can verify, so the one here is a stand-in written for this test.

const dir = mkdtempSync(path.join(tmpdir(), "passk-banking-reranker-"));
const upstream = path.join(dir, "upstream");
const STAND_IN_MODULE = `"""A stand-in for the reference's pointwise reranker module (test only)."""

DEFAULT_POINTWISE_PROMPT = """Rate 0-10 how well the document answers the query.
Query: {}
Document: {}"""
`;
const QUERY = "overdraft fee";
/** The rating the mock gives a document: highest on savings, high on overdraft protection, low otherwise. */
const ratingOf = (document: string) =>
  /savings/i.test(document) ? 10 : /protection/i.test(document) ? 9 : 2;

let rater: MockLlmServer;
beforeAll(async () => {
  cpSync(tau2UpstreamDir(), upstream, { recursive: true });
  mkdirSync(path.dirname(path.join(upstream, RERANKER_MODULE)), { recursive: true });
  writeFileSync(path.join(upstream, RERANKER_MODULE), STAND_IN_MODULE);
  rater = await startMockLlmServer({
    script: (request) => {
      const text = request.messages.map((m) => (typeof m.content === "string" ? m.content : "")).join("\n");
      const document = text.slice(text.indexOf("Document: ") + "Document: ".length);
      return {
        kind: "message",
        text: JSON.stringify({ relevance_score: ratingOf(document) }),
        // Priced by the run's --prices at $1 a million input tokens: $0.001 a rating.
        usage: { promptTokens: 1000, completionTokens: 0 },
      };
    },
  });
});
afterAll(async () => rater?.close());

const env = () => ({ PASSK_DATA_DIR: tau2DataDir(), OPENAI_COMPATIBLE_API_KEY: "sk-test-reranker" });
const rerankerFlags = () => [
  "--reranker-llm",
  "openai-compatible:rater",
  "--reranker-llm-base-url",
  rater.baseUrl,
];

describe("banking_knowledge under bm25_reranker", () => {
  it("KB_search keeps the BM25 hits the model rates at least 5, best first, each rated once with the prompt", async () => {
    const call = await runCliInProcess(
      [
        "call",
        "--domain",
        "banking_knowledge",
        "--retrieval-config",
        "bm25_reranker",
        "--tool",
        "KB_search",
        "--args",
        JSON.stringify({ query: QUERY }),
        ...rerankerFlags(),
      ],
      { ...env(), PASSK_TAU2_UPSTREAM: upstream },
    );
    expect(call.code, call.stderr).toBe(0);
    const output = (JSON.parse(call.stdout) as { output: string }).output;

    // What BM25 alone retrieves for the query, rated as the mock rates: the kept ones, in retrieval order.
    const kb = loadKnowledgeBase(path.join(tau2DataDir(), "banking_knowledge", "documents"));
    const retrieved = await bm25Retriever(kb).retrieve(QUERY, 10);
    const kept = retrieved
      .filter((hit) => ratingOf(hit.document.content) >= 5)
      .sort((a, b) => ratingOf(b.document.content) - ratingOf(a.document.content));
    expect(new Set(kept.map((hit) => ratingOf(hit.document.content))).size).toBe(2);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(retrieved.length);
    const ids = [...output.matchAll(/^ {3}ID: (.+)$/gm)].map((m) => m[1]);
    expect(ids).toEqual(kept.map((hit) => hit.document.id));
    expect([...output.matchAll(/^ {3}Score: (.+)$/gm)].map((m) => m[1])).toEqual(
      kept.map((hit) => ratingOf(hit.document.content).toFixed(4)),
    );
    expect(output).toMatch(/\[Timing: retrieval=\d+ms, reranking=\d+ms, total=\d+ms\]$/);

    // One rating request per retrieved document, each the stand-in prompt filled with query and document.
    const prompts = rater.requests.map((r) => r.messages.map((m) => m.content).join(""));
    expect(prompts).toHaveLength(retrieved.length);
    expect(prompts.sort()).toEqual(
      retrieved
        .map(
          (hit) =>
            `Rate 0-10 how well the document answers the query.\nQuery: ${QUERY}\nDocument: ${hit.document.content}`,
        )
        .sort(),
    );
  });

  it("a run records the reranker model with its configuration", async () => {
    const saveTo = path.join(dir, "run.json");
    const run = await runCliInProcess(
      [
        "run",
        "--domain",
        "banking_knowledge",
        "--task-ids",
        "task_001",
        "--agent-llm",
        "scripted:gold",
        "--user-llm",
        "scripted:gold",
        "--retrieval-config",
        "bm25_reranker",
        "--upstream",
        upstream,
        ...rerankerFlags(),
        "--store",
        path.join(dir, "passk.db"),
        "--save-to",
        saveTo,
      ],
      env(),
    );
    expect(run.code, run.stderr).toBe(0);
    const info = (
      JSON.parse(readFileSync(saveTo, "utf8")) as {
        info: { passk: { retrieval_config: string; config: { reranker: { model: string } } } };
      }
    ).info.passk;
    expect(info.retrieval_config).toBe("bm25_reranker");
    expect(info.config.reranker.model).toBe("openai-compatible:rater");
    // The stand-in prompt could not be checked against the reference's: the run says so.
    expect(run.stdout + run.stderr).toContain("was read from an upstream file passk cannot verify by hash");
  });

  it("a conversation's reranker calls are counted in its cost (reward_info.info.tool_model_cost)", async () => {
    // An agent that searches once, then gives the answer the scripted customer hangs up on.
    const task = new DomainData(builtinDomains.get("banking_knowledge")!, tau2DataDir()).task("task_001");
    const agentModel = await startMockLlmServer({
      script: (request) =>
        request.messages.at(-1)?.role === "tool"
          ? mockReply.text(goldFinalMessage(task))
          : mockReply.toolCall("KB_search", { query: QUERY }),
    });
    try {
      const prices = path.join(dir, "prices.json");
      writeFileSync(
        prices,
        JSON.stringify({
          models: {
            "openai-compatible:rater": { input_mtok: 1, output_mtok: 0 },
            "openai-compatible:searcher": { input_mtok: 0, output_mtok: 0 },
          },
        }),
      );
      const saveTo = path.join(dir, "priced.json");
      const ratingsBefore = rater.requests.length;
      const run = await runCliInProcess(
        [
          "run",
          "--domain",
          "banking_knowledge",
          "--task-ids",
          "task_001",
          "--agent-llm",
          "openai-compatible:searcher",
          "--agent-llm-base-url",
          agentModel.baseUrl,
          "--user-llm",
          "scripted:gold",
          "--retrieval-config",
          "bm25_reranker",
          "--upstream",
          upstream,
          ...rerankerFlags(),
          "--prices",
          prices,
          "--store",
          path.join(dir, "priced.db"),
          "--save-to",
          saveTo,
          "--progress",
          "none",
        ],
        env(),
      );
      expect(run.code, run.stderr).toBe(0);
      const ratings = rater.requests.length - ratingsBefore;
      expect(ratings).toBeGreaterThan(1);
      const [simulation] = (
        JSON.parse(readFileSync(saveTo, "utf8")) as {
          simulations: Array<{
            termination_reason: string;
            agent_cost: number;
            reward_info: { info: { tool_model_cost?: number } };
          }>;
        }
      ).simulations;
      expect(simulation!.termination_reason).toBe("user_stop");
      expect(simulation!.agent_cost).toBe(0);
      expect(simulation!.reward_info.info.tool_model_cost).toBeCloseTo(ratings * 0.001, 9);
    } finally {
      await agentModel.close();
    }
  });

  it("refuses a conversation before it starts without a reranker model, or without the reranker's prompt file", async () => {
    const simulate = (extra: string[], upstreamDir: string) =>
      runCliInProcess(
        [
          "simulate",
          "--domain",
          "banking_knowledge",
          "--task",
          "task_001",
          "--agent-llm",
          "scripted:gold",
          "--user-llm",
          "scripted:gold",
          "--retrieval-config",
          "bm25_reranker",
          "--upstream",
          upstreamDir,
          ...extra,
        ],
        env(),
      );
    const noModel = await simulate([], upstream);
    expect(noModel.code).toBe(1);
    expect(noModel.stderr).toContain(
      "retrieval config bm25_reranker reranks every hit with an LLM: name the model with --reranker-llm <provider>:<model>",
    );
    const withoutReranker = upstreamWithout([RERANKER_MODULE]);
    const noPrompt = await simulate(rerankerFlags(), withoutReranker);
    expect(noPrompt.code).toBe(1);
    expect(noPrompt.stderr).toContain(
      `retrieval config bm25_reranker reranks with the reference's prompt, read from its source file ${path.join(withoutReranker, RERANKER_MODULE)} (not found`,
    );
  });
});
