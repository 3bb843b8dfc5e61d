import { createHash } from "node:crypto";
import type { PyShape } from "./py-shape.js";
import { emitCanonical, toPyJson } from "./py-json.js";

const hashMemo = new WeakMap<object, string>();
/** sha256 is fed in chunks of about this many characters: one call per record costs more than the hash. */
const CHUNK = 1 << 16;

/**
 * The τ²-bench DB hash: sha256 of `json.dumps(db.model_dump(), sort_keys=True, default=str)`.
 * Byte-identical to the reference; memoised for frozen databases, and unchanged records reuse their
 * canonical text, so hashing a world costs little more than sha256 over the text.
 */
export function dbHash(db: object, shape: PyShape): string {
  const frozen = Object.isFrozen(db);
  const memo = frozen ? hashMemo.get(db) : undefined;
  if (memo !== undefined) return memo;
  const sha = createHash("sha256");
  let chunk = "";
  emitCanonical(db, shape, (piece) => {
    chunk += piece;
    if (chunk.length >= CHUNK) {
      sha.update(chunk);
      chunk = "";
    }
  });
  sha.update(chunk);
  const hash = sha.digest("hex");
  if (frozen) hashMemo.set(db, hash);
  return hash;
}

/** The exact string τ² hashes for a DB. */
export function canonicalDbText(db: object, shape: PyShape): string {
  return toPyJson(db, shape, { mode: "dump", sortKeys: true });
}
