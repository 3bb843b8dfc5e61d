import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "../core/errors.js";
import { InfrastructureError, type LanguageModel } from "../core/llm.js";
import { readPythonModule } from "../python/py-source/module.js";
import type { SearchHit } from "./bm25.js";
import type { Postprocessor } from "./search-pipeline.js";

/** Where τ²'s pointwise reranker (and its prompt) lives in the upstream repository. */
export const RERANKER_MODULE = "src/tau2/knowledge/postprocessors/pointwise_llm_reranker.py";
const PROMPT_CONSTANT = "DEFAULT_POINTWISE_PROMPT";

/**
 * τ²'s reranking prompt, read out of its source file under an upstream folder (the prompt is the
 * reference's prose, so passk does not ship it). The template has two positional fields, `{}` for the
 * query and `{}` for the document, as Python's `str.format` reads them.
 */
export function readRerankerPrompt(upstreamDir: string): string {
  const file = path.join(upstreamDir, RERANKER_MODULE);
  if (!existsSync(file))
    throw new ConfigError(
      `the reranker's prompt is read from ${file}, which is missing; put the upstream file there ` +
        "(sierra-research/tau2-bench at the pinned commit) or use a retrieval config without _reranker.",
    );
  const value = readPythonModule(readFileSync(file, "utf8"), file).assignments.get(PROMPT_CONSTANT);
  if (value?.kind !== "string")
    throw new ConfigError(
      `${file} has no string constant ${PROMPT_CONSTANT}; fetch the file again at the pinned commit.`,
    );
  return value.value;
}

/** Python's `template.format(*values)` for positional fields (`{}`, `{0}`) and `{{` / `}}`. */
export function formatPositional(template: string, values: readonly string[]): string {
  let next = 0;
  return template.replace(/\{\{|\}\}|\{([0-9]*)\}/g, (whole, index: string | undefined) => {
    if (whole === "{{") return "{";
    if (whole === "}}") return "}";
    const position = index === undefined || index === "" ? next++ : Number(index);
    const value = values[position];
    if (value === undefined)
      throw new ConfigError(
        `the reranker prompt has a field {${index ?? ""}} with no value; fix the prompt.`,
      );
    return value;
  });
}

export interface PointwiseRerankerOptions {
  model: LanguageModel;
  /** From `readRerankerPrompt`. */
  prompt: string;
  /** Documents scoring below this are dropped (τ²'s configs: 5). */
  minScore: number;
  /** Parallel model calls; default 20, as τ². */
  maxConcurrency?: number;
  /** Call settings (e.g. `{ reasoning_effort: "low" }`, which τ² sends to gpt-5 models). */
  params?: Readonly<Record<string, unknown>>;
}

const RELEVANCE_SCHEMA = {
  type: "object",
  title: "RelevanceScore",
  properties: { relevance_score: { type: "integer", title: "Relevance Score" } },
  required: ["relevance_score"],
  additionalProperties: false,
};

/**
 * τ²'s pointwise LLM reranker: the model rates each retrieved document's relevance to the query from 0
 * to 10 (one call per document, clamped), documents rated below `minScore` are dropped, and the rest are
 * ordered by rating (ties in retrieval order) with the rating as their score. A document whose rating
 * cannot be read is dropped, as in τ²; a provider fault that survives the model's retries is not (τ²
 * drops those too) but ends the conversation as an infrastructure error.
 */
export function createPointwiseReranker(options: PointwiseRerankerOptions): Postprocessor {
  const { model, prompt, minScore } = options;
  const concurrency = Math.max(1, options.maxConcurrency ?? 20);
  const rate = async (query: string, content: string, signal?: AbortSignal): Promise<number | undefined> => {
    const response = await model.generate({
      system: "",
      messages: [{ role: "user", content: formatPositional(prompt, [query, content]) }],
      jsonSchema: RELEVANCE_SCHEMA,
      ...(options.params ? { params: options.params } : {}),
      ...(signal ? { signal } : {}),
    });
    return readRating(response.text);
  };
  return {
    async process(query, hits, signal) {
      const rated = hits.filter((hit) => hit.document.content !== "");
      const ratings: Array<number | undefined> = new Array(rated.length);
      let next = 0;
      const worker = async () => {
        while (next < rated.length) {
          const index = next++;
          try {
            ratings[index] = await rate(query, rated[index]!.document.content, signal);
          } catch (error) {
            if (InfrastructureError.isInstance(error) || signal?.aborted) throw error;
            ratings[index] = undefined;
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, rated.length) }, worker));
      const kept: SearchHit[] = [];
      rated.forEach((hit, index) => {
        const rating = ratings[index];
        if (rating !== undefined && rating >= minScore) kept.push({ document: hit.document, score: rating });
      });
      return kept.sort((a, b) => b.score - a.score);
    },
  };
}

/** The `relevance_score` of a model's JSON answer, clamped to 0–10; undefined when there is none. */
function readRating(text: string | null): number | undefined {
  if (text === null) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const score =
    typeof parsed === "object" && parsed !== null
      ? (parsed as { relevance_score?: unknown }).relevance_score
      : undefined;
  if (typeof score !== "number" || !Number.isInteger(score)) return undefined;
  return Math.max(0, Math.min(10, score));
}
