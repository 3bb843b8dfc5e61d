import path from "node:path";
import type Database from "better-sqlite3";
import { ConfigError } from "../core/errors.js";
import { openSqliteFile } from "../core/sqlite-file.js";
import type { EmbeddingCache } from "../core/text-embedder.js";

/** Where the embedding cache lives unless told otherwise. */
export const DEFAULT_EMBEDDING_CACHE = path.join(".passk", "embeddings.db");

/**
 * Opens (creating if needed) a SQLite file of document embeddings, so that a second run embeds no
 * document. `:memory:` gives a cache for the process only.
 *
 * @example
 * const cache = openEmbeddingCache(".passk/embeddings.db");
 */
export function openEmbeddingCache(file: string = DEFAULT_EMBEDDING_CACHE): EmbeddingCache {
  let database: Database.Database;
  try {
    database = openSqliteFile(
      file,
      "the embeddings cache",
      `CREATE TABLE IF NOT EXISTS document_embeddings (
         spec TEXT NOT NULL,
         content_sha256 TEXT NOT NULL,
         vector BLOB NOT NULL,
         PRIMARY KEY (spec, content_sha256)
       )`,
    );
  } catch (error) {
    throw new ConfigError(
      `the embedding cache ${file} cannot be opened (${(error as Error).message}); pass a writable path.`,
      { cause: error },
    );
  }
  const select = database.prepare<[string, string], { vector: Buffer }>(
    "SELECT vector FROM document_embeddings WHERE spec = ? AND content_sha256 = ?",
  );
  const insert = database.prepare<[string, string, Buffer]>(
    "INSERT OR REPLACE INTO document_embeddings (spec, content_sha256, vector) VALUES (?, ?, ?)",
  );
  const insertAll = database.transaction(
    (spec: string, entries: ReadonlyArray<{ contentSha256: string; vector: readonly number[] }>) => {
      for (const { contentSha256, vector } of entries)
        insert.run(spec, contentSha256, Buffer.from(Float64Array.from(vector).buffer));
    },
  );
  return {
    get(spec, contentSha256) {
      const row = select.get(spec, contentSha256);
      if (!row) return undefined;
      const bytes = new Uint8Array(row.vector);
      return new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8).slice();
    },
    put(spec, entries) {
      insertAll(spec, entries);
    },
    close() {
      database.close();
    },
  };
}
