// Knowledge-base retrieval for τ²'s banking_knowledge domain and for teams' own knowledge bases: the
// documents, BM25, grep with Python regular expressions, dense embeddings, the LLM reranker, τ²'s tool
// output texts, the 20 retrieval configs and the policy each one gives the agent.

export {
  KnowledgeDocumentSchema,
  compareCodePoints,
  createKnowledgeBase,
  loadKnowledgeBase,
} from "./knowledge-base.js";
export type { KnowledgeBase, KnowledgeDocument } from "./knowledge-base.js";
export {
  BM25_PARAMETERS,
  bm25Index,
  bm25Scores,
  bm25Search,
  bm25Tokenize,
  buildBm25Index,
  rankByScore,
} from "./bm25.js";
export type { Bm25Index, SearchHit } from "./bm25.js";
export {
  GREP_TIME_BUDGET_MS,
  PatternTooExpensiveError,
  UnsupportedPatternError,
  compileGrepPattern,
  grepSearch,
} from "./grep.js";
export type { GrepOptions } from "./grep.js";
export { TIMING_SUFFIX, formatGrepOutput, formatHits, formatKbSearchOutput, formatTiming } from "./format.js";
export type { SearchTiming } from "./format.js";
export { bm25Retriever, createKbSearchPipeline } from "./search-pipeline.js";
export type {
  KbSearchPipeline,
  KbSearchPipelineOptions,
  KbSearchResult,
  Postprocessor,
  Retriever,
} from "./search-pipeline.js";
export {
  DEFAULT_RETRIEVAL_CONFIG,
  OPENAI_EMBEDDER,
  QWEN_EMBEDDER,
  RETRIEVAL_CONFIGS,
  RETRIEVAL_CONFIG_ALIASES,
  RetrievalConfigKwargsSchema,
  agentToolNames,
  allToolsMissing,
  defaultRetrievalConfig,
  defaultRetrievalNote,
  conversationBlocker,
  parseRetrievalConfigKwargs,
  retrievalConfig,
  withRetrievalKwargs,
} from "./configs.js";
export type {
  EmbedderSpec,
  KbSearchSpec,
  PolicyKind,
  RetrievalConfig,
  RetrievalConfigKwargs,
  RetrievalToolName,
} from "./configs.js";
export { bankingPolicy, inlineDocuments } from "./policy.js";
export { policyPassages, sectionTagTitle } from "./policy-passages.js";
export type { PolicyPassage } from "./policy-passages.js";
export { POLICY_LINK_THRESHOLD, createPolicyLinker, isRefusal, policyTerms, stem } from "./policy-links.js";
export type { LinkedTool, PolicyLink, PolicyLinker } from "./policy-links.js";
export type { BankingPolicyOptions, PolicyTask } from "./policy.js";
export { denseIndex, denseRetriever, denseSearch } from "./embeddings.js";
export type { DenseIndex, DenseIndexOptions } from "./embeddings.js";
export {
  RERANKER_MODULE,
  createPointwiseReranker,
  formatPositional,
  readRerankerPrompt,
} from "./reranker.js";
export type { PointwiseRerankerOptions } from "./reranker.js";
