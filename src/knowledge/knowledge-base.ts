import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { ConfigError, InvalidInputFileError } from "../core/errors.js";
import { parseJsonFile, readInputText, validateInputFile } from "../core/json-file.js";

/** One knowledge-base document, as τ²'s `documents/<id>.json` holds it. */
export const KnowledgeDocumentSchema = z.object({
  id: z.string(),
  title: z.string(),
  content: z.string(),
});
export type KnowledgeDocument = z.infer<typeof KnowledgeDocumentSchema>;

/**
 * A knowledge base: documents in a fixed order (the order decides ties in every ranking, the `full_kb`
 * policy and the float summation of BM25's mean idf). Built once and shared by every conversation;
 * the search indexes built over it are cached with it.
 */
export interface KnowledgeBase {
  /** The folder it was read from, or the label given to `createKnowledgeBase`. */
  readonly source: string;
  readonly documents: readonly KnowledgeDocument[];
  /** The document with this id, if any. */
  document(id: string): KnowledgeDocument | undefined;
}

/**
 * A knowledge base over documents already in memory (a team's own KB), in the order given. Ids must be
 * unique.
 *
 * @example
 * const kb = createKnowledgeBase([{ id: "fees", title: "Fees", content: "Overdraft fee: $35" }]);
 */
export function createKnowledgeBase(
  documents: readonly KnowledgeDocument[],
  source = "<in-memory knowledge base>",
): KnowledgeBase {
  const byId = new Map<string, KnowledgeDocument>();
  for (const document of documents) {
    if (byId.has(document.id))
      throw new ConfigError(
        `${source} has two documents with id "${document.id}"; give every document its own id.`,
      );
    byId.set(document.id, document);
  }
  const frozen = Object.freeze(documents.map((document) => Object.freeze({ ...document })));
  return { source, documents: frozen, document: (id) => byId.get(id) };
}

const loaded = new Map<string, KnowledgeBase>();

/**
 * Reads every `*.json` document of a folder, sorted by file name (code-point order, as Python's
 * `sorted`), and validates each. τ² itself lists the folder in file-system order, which differs between
 * machines; the reference fixtures were produced with the sorted order, which this reproduces.
 * Cached per folder for the life of the process: every conversation shares one knowledge base.
 *
 * @example
 * const kb = loadKnowledgeBase(path.join(dataDir, "banking_knowledge", "documents"));
 */
export function loadKnowledgeBase(documentsDir: string): KnowledgeBase {
  const dir = path.resolve(documentsDir);
  const cached = loaded.get(dir);
  if (cached) return cached;
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new ConfigError(
      `the knowledge-base folder ${dir} is missing; run \`passk data pull\` or fix --data.`,
    );
  const files = readdirSync(dir)
    .filter((name) => name.endsWith(".json"))
    .sort(compareCodePoints);
  if (files.length === 0)
    throw new ConfigError(
      `the knowledge-base folder ${dir} holds no *.json documents; add documents or fix --data.`,
    );
  const hint =
    'write each document as one JSON object {"id": …, "title": …, "content": …} with string values';
  const documents: KnowledgeDocument[] = [];
  const fileById = new Map<string, string>();
  for (const name of files) {
    const file = path.join(dir, name);
    const raw = parseJsonFile(readInputText(file, hint), file, hint);
    const document = validateInputFile(KnowledgeDocumentSchema, raw, file, hint);
    const earlier = fileById.get(document.id);
    if (earlier !== undefined)
      throw new InvalidInputFileError(
        file,
        [{ path: "$.id", message: `"${document.id}" is also the id of ${earlier}` }],
        "give every document its own id",
      );
    fileById.set(document.id, file);
    documents.push(document);
  }
  const kb = createKnowledgeBase(documents, dir);
  loaded.set(dir, kb);
  return kb;
}

/** Python's string order: by code point (JavaScript's default sort compares UTF-16 code units). */
export function compareCodePoints(a: string, b: string): number {
  const left = Array.from(a);
  const right = Array.from(b);
  const length = Math.min(left.length, right.length);
  for (let i = 0; i < length; i++) {
    const difference = left[i]!.codePointAt(0)! - right[i]!.codePointAt(0)!;
    if (difference !== 0) return difference;
  }
  return left.length - right.length;
}
