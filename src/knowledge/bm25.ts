import { correctlyRoundedLog } from "../python/py-log.js";
import type { KnowledgeBase, KnowledgeDocument } from "./knowledge-base.js";

/** A ranked document and its score. */
export interface SearchHit {
  document: KnowledgeDocument;
  score: number;
}

/** BM25Okapi's parameters, as τ²'s `KB_search` uses them (rank_bm25's defaults). */
export const BM25_PARAMETERS = Object.freeze({ k1: 1.5, b: 0.75, epsilon: 0.25 });

/** The characters Python's `str.split()` splits on (`str.isspace()`). */
const PY_SPACE_CHARACTERS =
  "\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const PY_WHITESPACE = new RegExp(`[${PY_SPACE_CHARACTERS}]+`);

/**
 * τ²'s tokenizer: `text.lower().split()`. Whitespace only, so punctuation stays attached (`fee,` is
 * not `fee`).
 */
export function bm25Tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .split(PY_WHITESPACE)
    .filter((token) => token !== "");
}

/**
 * A BM25Okapi index over a knowledge base's document contents (titles are not indexed). Every number is
 * the float rank_bm25 computes, operation for operation: idf = ln(N − df + 0.5) − ln(df + 0.5), correctly
 * rounded; a negative idf is replaced by ε × the mean idf, whose sum runs over the terms in the order
 * they first occur (documents in KB order, tokens in text order), as Python's dict keeps them.
 */
export interface Bm25Index {
  readonly documentCount: number;
  readonly averageDocumentLength: number;
  readonly averageIdf: number;
  /** Token count of each document, in KB order. */
  readonly documentLengths: readonly number[];
  /** idf of every term, in first-occurrence order. */
  readonly idf: ReadonlyMap<string, number>;
  /** For each term, the documents holding it (KB index, ascending) and its count there. */
  readonly postings: ReadonlyMap<string, { documents: Int32Array; counts: Int32Array }>;
  /** k1 · ((1 − b) + b · length / avgdl) per document: the length part of each score's denominator. */
  readonly lengthNorms: Float64Array;
}

const indexes = new WeakMap<KnowledgeBase, Bm25Index>();

/** The BM25 index of a knowledge base, built on first use and kept with it. */
export function bm25Index(kb: KnowledgeBase): Bm25Index {
  let index = indexes.get(kb);
  if (!index) {
    index = buildBm25Index(kb.documents.map((document) => bm25Tokenize(document.content)));
    indexes.set(kb, index);
  }
  return index;
}

/** Builds an index over tokenized documents (exposed for teams indexing their own text). */
export function buildBm25Index(corpus: readonly (readonly string[])[]): Bm25Index {
  const { k1, b, epsilon } = BM25_PARAMETERS;
  const documentFrequency = new Map<string, number>();
  const postingLists = new Map<string, { documents: number[]; counts: number[] }>();
  let totalLength = 0;
  corpus.forEach((tokens, documentIndex) => {
    totalLength += tokens.length;
    const counts = new Map<string, number>();
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    for (const [term, count] of counts) {
      documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
      let list = postingLists.get(term);
      if (!list) postingLists.set(term, (list = { documents: [], counts: [] }));
      list.documents.push(documentIndex);
      list.counts.push(count);
    }
  });
  const documentCount = corpus.length;
  const averageDocumentLength = totalLength / documentCount;

  const idf = new Map<string, number>();
  const negative: string[] = [];
  let idfSum = 0;
  for (const [term, frequency] of documentFrequency) {
    const value = correctlyRoundedLog(documentCount - frequency + 0.5) - correctlyRoundedLog(frequency + 0.5);
    idf.set(term, value);
    idfSum += value;
    if (value < 0) negative.push(term);
  }
  const averageIdf = idfSum / idf.size;
  const floor = epsilon * averageIdf;
  for (const term of negative) idf.set(term, floor);

  const documentLengths = corpus.map((tokens) => tokens.length);
  const lengthNorms = Float64Array.from(
    documentLengths,
    (length) => k1 * (1 - b + (b * length) / averageDocumentLength),
  );
  const postings = new Map<string, { documents: Int32Array; counts: Int32Array }>();
  for (const [term, list] of postingLists)
    postings.set(term, { documents: Int32Array.from(list.documents), counts: Int32Array.from(list.counts) });
  return { documentCount, averageDocumentLength, averageIdf, documentLengths, idf, postings, lengthNorms };
}

/**
 * BM25 scores of every document for tokenized query terms (repeats count). A document without the term
 * gains exactly 0, so only postings are visited; the per-document arithmetic is rank_bm25's:
 * score += idf · (tf · (k1 + 1) / (tf + k1 · (1 − b + b · len / avgdl))).
 */
export function bm25Scores(index: Bm25Index, queryTokens: readonly string[]): Float64Array {
  const scores = new Float64Array(index.documentCount);
  const k1PlusOne = BM25_PARAMETERS.k1 + 1;
  for (const token of queryTokens) {
    const posting = index.postings.get(token);
    const idf = index.idf.get(token);
    if (!posting || !idf) continue;
    for (let i = 0; i < posting.documents.length; i++) {
      const documentIndex = posting.documents[i]!;
      const count = posting.counts[i]!;
      scores[documentIndex] += idf * ((count * k1PlusOne) / (count + index.lengthNorms[documentIndex]!));
    }
  }
  return scores;
}

/**
 * The `topK` best documents for a query, as τ²'s BM25 retriever ranks them: by score, highest first,
 * ties in KB order (a stable sort), and documents scoring 0 fill up the list — a query that matches
 * fewer than `topK` documents still returns `topK`. An empty or whitespace query returns nothing.
 *
 * @example
 * bm25Search(kb, "overdraft fee", 10)[0].document.id // "doc_checking_accounts_blue_account_005"
 */
export function bm25Search(kb: KnowledgeBase, query: string, topK: number): SearchHit[] {
  const tokens = bm25Tokenize(query);
  if (tokens.length === 0) return [];
  const scores = bm25Scores(bm25Index(kb), tokens);
  return rankByScore(kb.documents, scores, topK);
}

/** Documents by descending score, ties in their original order, cut to `topK`. */
export function rankByScore(
  documents: readonly KnowledgeDocument[],
  scores: ArrayLike<number>,
  topK: number,
): SearchHit[] {
  const order = Array.from({ length: documents.length }, (_, i) => i);
  order.sort((a, b) => scores[b]! - scores[a]!);
  return order.slice(0, Math.max(0, topK)).map((i) => ({ document: documents[i]!, score: scores[i]! }));
}
