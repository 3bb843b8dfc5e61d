import path from "node:path";
import Database from "better-sqlite3";
import { makeDirectory } from "./make-directory.js";

/**
 * Opens (creating it and its folder if needed) a SQLite file that several processes may share: WAL
 * journal, 5 s busy timeout, then `schema` run. `:memory:` gives a database for the process only.
 * Failures are thrown as they come; the caller says what the file is for.
 *
 * @example
 * const database = openSqliteFile(".passk/embeddings.db", "the embeddings cache", "CREATE TABLE IF NOT EXISTS …");
 */
export function openSqliteFile(file: string, what: string, schema: string): Database.Database {
  if (file !== ":memory:") makeDirectory(path.dirname(path.resolve(file)), `${what} ${file}`);
  const database = new Database(file);
  database.pragma("journal_mode = WAL");
  database.pragma("busy_timeout = 5000");
  database.exec(schema);
  return database;
}
