import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  TIMING_SUFFIX,
  UnsupportedPatternError,
  bm25Index,
  bm25Retriever,
  bm25Search,
  bm25Tokenize,
  createKbSearchPipeline,
  createKnowledgeBase,
  formatGrepOutput,
  formatKbSearchOutput,
  grepSearch,
  loadKnowledgeBase,
  type KbSearchResult,
} from "../src/knowledge/index.js";
import { readFixtureJson, readJsonl, tau2DataDir } from "../src/testing/tau2-fixtures.js";

// τ²'s retrieval fixture: 16 BM25 queries × top_k {10 via the tool, 3 and 25 via the pipeline}, 10 grep
// patterns, and the BM25 index's internals, all computed by the reference with the KB in sorted order.
type Result = [string, number];
interface Bm25Line {
  retriever: "bm25";
  query: string;
  top_k: number;
  call_top_k_arg: number | null;
  tokens: string[];
  results: Result[];
  tool_output?: string;
  output_timing_suffix_regex?: string;
}
interface GrepLine {
  retriever: "grep";
  pattern: string;
  top_k: number;
  case_sensitive: boolean;
  results: Result[];
  tool_output: string;
}
interface InternalsLine {
  retriever: "bm25_internals";
  corpus_size: number;
  avgdl: number;
  average_idf: number;
  k1: number;
  b: number;
  epsilon: number;
  num_terms: number;
  doc_ids_in_index_order: string[];
  doc_len: number[];
  idf_sample: Record<string, number>;
}
type Line = Bm25Line | GrepLine | InternalsLine;

const lines = readJsonl<Line>("fixtures/retrieval/banking_knowledge.jsonl");
const bm25Lines = lines.filter((line): line is Bm25Line => line.retriever === "bm25");
const grepLines = lines.filter((line): line is GrepLine => line.retriever === "grep");
const internals = lines.find((line): line is InternalsLine => line.retriever === "bm25_internals")!;
const kb = loadKnowledgeBase(path.join(tau2DataDir(), "banking_knowledge", "documents"));
const pipeline = createKbSearchPipeline({ retriever: bm25Retriever(kb), topK: 10 });
const hitPairs = (result: { hits: KbSearchResult["hits"] }) =>
  result.hits.map((hit): Result => [hit.document.id, hit.score]);

describe("the banking_knowledge knowledge base", () => {
  it("has every fixture line (16 × 3 BM25, 10 grep, the internals)", () => {
    expect([lines.length, bm25Lines.length, grepLines.length]).toEqual([59, 48, 10]);
  });

  it("loads in the order the fixtures were produced with (sorted file names)", () => {
    const index = readFixtureJson<{ kb_order_doc_ids: string[] }>(
      "fixtures/prompts/banking_knowledge_prompt_index.json",
    );
    expect(kb.documents.map((document) => document.id)).toEqual(index.kb_order_doc_ids);
    expect(kb.documents.map((document) => document.id)).toEqual(internals.doc_ids_in_index_order);
  });

  it("is read once per folder for the process", () => {
    expect(loadKnowledgeBase(path.join(tau2DataDir(), "banking_knowledge", "documents", "."))).toBe(kb);
  });
});

describe("BM25 index", () => {
  const index = bm25Index(kb);

  it("has the reference's corpus size, average length, term count and document lengths", () => {
    expect(index.documentCount).toBe(internals.corpus_size);
    expect(index.averageDocumentLength).toBe(internals.avgdl);
    expect(index.idf.size).toBe(internals.num_terms);
    expect(index.documentLengths).toEqual(internals.doc_len);
  });

  it("has the reference's mean idf and idfs bit for bit", () => {
    expect(index.averageIdf).toBe(internals.average_idf);
    for (const [term, idf] of Object.entries(internals.idf_sample)) expect(index.idf.get(term)).toBe(idf);
  });

  it("is built once per knowledge base", () => {
    expect(bm25Index(kb)).toBe(index);
  });
});

describe.each(bm25Lines.map((line) => [line.query, line.top_k, line] as const))(
  "KB_search %j, top_k %d",
  (_query, _topK, line) => {
    it("tokenizes as the reference", () => {
      expect(bm25Tokenize(line.query)).toEqual(line.tokens);
    });

    it("ranks the reference's documents with its scores at full precision", async () => {
      const result = await pipeline.retrieve(
        line.query,
        line.call_top_k_arg === null ? {} : { topK: line.call_top_k_arg },
      );
      expect(hitPairs(result)).toEqual(line.results);
    });

    if (line.tool_output !== undefined) {
      it("prints the reference's tool output, with a timing suffix the reference's regex accepts", async () => {
        const suffix = new RegExp(line.output_timing_suffix_regex!);
        const output = await pipeline.run(line.query);
        expect(output).toMatch(suffix);
        expect(output.replace(suffix, "")).toBe(line.tool_output!.replace(suffix, ""));
      });
    }
  },
);

describe("bm25Search", () => {
  it("returns the top_k asked for (the pipeline's own top-k is what caps τ²'s k at 10)", () => {
    const line = bm25Lines.find((candidate) => candidate.top_k === 25)!;
    const hits = bm25Search(kb, line.query, 25);
    expect(hits).toHaveLength(25);
    expect(hits.slice(0, 10).map((hit): Result => [hit.document.id, hit.score])).toEqual(line.results);
  });

  it("fills up with zero-score documents in KB order when few documents match", () => {
    const hits = bm25Search(kb, "zzqqxxyy", 10);
    expect(hits.map((hit) => hit.document.id)).toEqual(kb.documents.slice(0, 10).map((d) => d.id));
    expect(hits.every((hit) => hit.score === 0)).toBe(true);
  });

  it("returns nothing for an empty or whitespace query, and the tool says so", async () => {
    expect(bm25Search(kb, "", 10)).toEqual([]);
    expect(bm25Search(kb, " \t\u3000\n", 10)).toEqual([]);
    const output = await pipeline.run("   ");
    expect(output).toMatch(
      /^No relevant documents found\.\n\n\[Timing: retrieval=\d+ms(, reranking=\d+ms)?, total=\d+ms\]$/,
    );
  });

  it("splits on Python's whitespace only, keeping punctuation", () => {
    expect(bm25Tokenize("Fee,\u00a0FEE fee.\x1cX")).toEqual(["fee,", "fee", "fee.", "x"]);
  });
});

describe.each(grepLines.map((line) => [line.pattern, line] as const))("grep %j", (_pattern, line) => {
  it("finds the reference's documents and match counts", () => {
    const hits = grepSearch(kb, line.pattern, line.top_k, { caseSensitive: line.case_sensitive });
    expect(hits.map((hit): Result => [hit.document.id, hit.score])).toEqual(line.results);
  });

  it("prints the reference's tool output", () => {
    expect(formatGrepOutput(line.pattern, grepSearch(kb, line.pattern, line.top_k))).toBe(line.tool_output);
  });
});

describe("grepSearch", () => {
  const small = createKnowledgeBase([
    { id: "a", title: "A", content: "fee fee" },
    { id: "b", title: "B", content: "FEE fee fee" },
    { id: "c", title: "C", content: "nothing" },
    { id: "d", title: "D", content: "Fee fee" },
  ]);

  it("scores by match count, keeps ties in KB order and cuts to top_k", () => {
    expect(grepSearch(small, "fee").map((hit) => [hit.document.id, hit.score])).toEqual([
      ["b", 3],
      ["a", 2],
      ["d", 2],
    ]);
    expect(grepSearch(small, "fee", 2).map((hit) => hit.document.id)).toEqual(["b", "a"]);
  });

  it("is case-sensitive only when asked", () => {
    expect(grepSearch(small, "fee", 10, { caseSensitive: true }).map((hit) => hit.score)).toEqual([2, 2, 1]);
  });

  it("throws UnsupportedPatternError, naming the pattern, for valid Python it cannot run", () => {
    expect(() => grepSearch(small, "(?(1)a|b)(x)")).toThrow(UnsupportedPatternError);
    expect(() => grepSearch(small, "(?(1)a|b)(x)")).toThrow(
      /grep pattern "\(\?\(1\)a\|b\)\(x\)" uses conditional/,
    );
  });
});

describe("KB_search output", () => {
  const hits = bm25Search(kb, "overdraft fee", 2);

  it("strips its timing suffix with the reference's regex", () => {
    expect(TIMING_SUFFIX.source).toBe(bm25Lines[0]!.output_timing_suffix_regex);
  });

  it("prints Python's {:.0f} timings (ties to even) and leaves reranking out when it took no time", () => {
    const text = formatKbSearchOutput(hits, { retrievalMs: 2.5, postprocessingMs: 0, totalMs: 3.5 });
    expect(text.endsWith("\n\n[Timing: retrieval=2ms, total=4ms]")).toBe(true);
    expect(TIMING_SUFFIX.test(text)).toBe(true);
  });

  it("measures retrieval, post-processing and total with the clock it is given", async () => {
    const ticks = [100, 103.4, 110.6];
    const timed = createKbSearchPipeline({ retriever: bm25Retriever(kb), now: () => ticks.shift()! });
    const output = await timed.run("overdraft fee");
    expect(output.endsWith("\n\n[Timing: retrieval=3ms, reranking=7ms, total=11ms]")).toBe(true);
  });

  it("shows an empty title as Untitled", () => {
    const untitled = createKnowledgeBase([{ id: "x", title: "", content: "body" }]);
    expect(formatGrepOutput("body", grepSearch(untitled, "body"))).toBe(
      "1. Untitled\n   ID: x\n   Score: 1.0000\n   Content: body\n",
    );
  });
});
