import { createHash } from "node:crypto";
import type { PyShape } from "./py-shape.js";
import { emitCanonical, sameCanonical, toPyJson } from "./py-json.js";

const hashMemo = new WeakMap<object, string>();
/** The database last hashed for each shape, to recognise a copy with the same content. */
const lastHashed = new WeakMap<PyShape, { db: object; hash: string }>();
/** sha256 is fed in chunks of about this many characters: one call per record costs more than the hash. */
const CHUNK = 1 << 16;

/**
 * The τ²-bench DB hash: sha256 of `json.dumps(db.model_dump(), sort_keys=True, default=str)`.
 * Byte-identical to the reference; memoised for frozen databases, and unchanged records reuse their
 * canonical text, so hashing a world costs little more than sha256 over the text. A frozen database
 * with the same canonical text as the one hashed just before (the gold world after the same actions as
 * the live one) reuses its hash: comparing shares records by identity and is much cheaper than hashing.
 */
export function dbHash(db: object, shape: PyShape): string {
  const frozen = Object.isFrozen(db);
  const memo = frozen ? hashMemo.get(db) : undefined;
  if (memo !== undefined) return memo;
  const last = frozen ? lastHashed.get(shape) : undefined;
  if (last && sameCanonical(db, last.db, shape)) {
    hashMemo.set(db, last.hash);
    return last.hash;
  }
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
  if (frozen) {
    hashMemo.set(db, hash);
    lastHashed.set(shape, { db, hash });
  }
  return hash;
}

/** The exact string τ² hashes for a DB. */
export function canonicalDbText(db: object, shape: PyShape): string {
  return toPyJson(db, shape, { mode: "dump", sortKeys: true });
}
