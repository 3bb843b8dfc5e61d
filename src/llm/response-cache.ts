import { createHash } from "node:crypto";
import type Database from "better-sqlite3";
import { z } from "zod";
import { ConfigError } from "../core/errors.js";
import type { LlmRequest, LlmResponse } from "../core/llm.js";
import { openSqliteFile } from "../core/sqlite-file.js";

/** Stores model replies by request, so that re-running identical conversations costs nothing. */
export interface ResponseCache {
  get(key: string): LlmResponse | undefined;
  set(key: string, spec: string, response: LlmResponse): void;
  close(): void;
}

const LlmToolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  argumentsText: z.string(),
});

/** What a cache row holds; checked on the way out because the file may come from another passk version. */
const CachedResponseSchema = z.object({
  text: z.string().nullable(),
  toolCalls: z.array(LlmToolCallSchema),
  usage: z.object({
    promptTokens: z.number(),
    completionTokens: z.number(),
    cacheReadTokens: z.number().optional(),
    cacheWriteTokens: z.number().optional(),
  }),
  cost: z.number().nullable(),
  raw: z.record(z.string(), z.unknown()).optional(),
});

/**
 * The cache key: a SHA-256 over the model spec, system prompt, messages, tools, call settings, response
 * schema and salt, in a key-order-independent JSON form. The base URL is left out on purpose: the same
 * model behind another proxy (or a test server on another port) answers the same request.
 */
export function responseCacheKey(input: {
  spec: string;
  request: Omit<LlmRequest, "signal">;
  /** The settings actually sent (model-level args merged with the request's). */
  params: unknown;
}): string {
  const { spec, request, params } = input;
  const material = canonicalJson({
    version: 1,
    spec,
    system: request.system,
    messages: request.messages,
    tools: request.tools ?? [],
    params,
    jsonSchema: request.jsonSchema ?? null,
    salt: request.cacheSalt ?? null,
  });
  return createHash("sha256").update(material).digest("hex");
}

/**
 * Opens (creating if needed) a SQLite response cache in WAL mode, so that several worker processes can
 * share one file.
 *
 * @example
 * const cache = openResponseCache(".passk/llm-cache.sqlite");
 * const model = createLanguageModel("openai:gpt-4.1", { cache });
 */
export function openResponseCache(file: string): ResponseCache {
  let database: Database.Database;
  try {
    database = openSqliteFile(
      file,
      "the cache",
      `CREATE TABLE IF NOT EXISTS llm_responses (
         key TEXT PRIMARY KEY,
         spec TEXT NOT NULL,
         response TEXT NOT NULL,
         created_at TEXT NOT NULL
       )`,
    );
  } catch (error) {
    throw new ConfigError(
      `response cache ${file} cannot be opened (${error instanceof Error ? error.message : String(error)}); ` +
        `pass a writable path to --cache or delete the damaged file`,
    );
  }
  const select = database.prepare<[string], { response: string }>(
    "SELECT response FROM llm_responses WHERE key = ?",
  );
  const insert = database.prepare<[string, string, string, string]>(
    "INSERT OR REPLACE INTO llm_responses (key, spec, response, created_at) VALUES (?, ?, ?, ?)",
  );
  return {
    get(key) {
      const row = select.get(key);
      if (!row) return undefined;
      let value: unknown;
      try {
        value = JSON.parse(row.response);
      } catch {
        return undefined;
      }
      const parsed = CachedResponseSchema.safeParse(value);
      return parsed.success ? parsed.data : undefined;
    },
    set(key, spec, response) {
      const { text, toolCalls, usage, cost, raw } = response;
      insert.run(key, spec, JSON.stringify({ text, toolCalls, usage, cost, raw }), new Date().toISOString());
    },
    close() {
      database.close();
    },
  };
}

/** JSON with object keys sorted at every level; arrays keep their order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, entry: unknown) => {
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) return entry;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(entry).sort()) sorted[key] = (entry as Record<string, unknown>)[key];
    return sorted;
  });
}
