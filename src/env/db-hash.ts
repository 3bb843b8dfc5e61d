import { createHash, type Hash } from "node:crypto";
import type { PyShape } from "../python/py-shape.js";
import { emitCanonical, sameCanonical, toPyJson } from "../python/py-json.js";

const hashMemo = new WeakMap<object, string>();
/** The database last hashed for each shape, to recognise a copy with the same content. */
const lastHashed = new WeakMap<PyShape, { db: object; hash: string }>();
/** sha256 is fed in chunks of about this many characters: one call per record costs more than the hash. */
const CHUNK = 1 << 16;

/**
 * The first database fully hashed for a shape (in practice the pristine DB): its canonical pieces and
 * the sha256 state after each chunk. Another database's text usually starts the same way (the tables
 * and records before its first change), so its hash resumes from the last state before that change.
 */
interface HashReference {
  pieces: string[];
  /** `state` has consumed exactly `pieces[0..count)`. */
  checkpoints: Array<{ count: number; state: Hash }>;
}
const references = new WeakMap<PyShape, HashReference>();

/**
 * The τ²-bench DB hash: sha256 of `json.dumps(db.model_dump(), sort_keys=True, default=str)`.
 * Byte-identical to the reference; memoised for frozen databases, and unchanged records reuse their
 * canonical text. A frozen database with the same canonical text as the one hashed just before (the
 * gold world after the same actions as the live one) reuses its hash: comparing shares records by
 * identity and is much cheaper than hashing. Otherwise sha256 skips the text this database shares with
 * the first one hashed (see HashReference).
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
  const pieces: string[] = [];
  emitCanonical(db, shape, (piece) => pieces.push(piece));
  const reference = references.get(shape);
  let hash: string;
  if (reference) {
    hash = resumeHash(pieces, reference);
  } else {
    const checkpoints: HashReference["checkpoints"] = [];
    hash = hashPieces(createHash("sha256"), pieces, 0, checkpoints);
    if (frozen) references.set(shape, { pieces, checkpoints });
  }
  if (frozen) {
    hashMemo.set(db, hash);
    lastHashed.set(shape, { db, hash });
  }
  return hash;
}

function resumeHash(pieces: readonly string[], reference: HashReference): string {
  const shared = Math.min(pieces.length, reference.pieces.length);
  let same = 0;
  while (same < shared && pieces[same] === reference.pieces[same]) same++;
  let from: HashReference["checkpoints"][number] | undefined;
  for (const checkpoint of reference.checkpoints) {
    if (checkpoint.count > same) break;
    from = checkpoint;
  }
  return from
    ? hashPieces(from.state.copy(), pieces, from.count)
    : hashPieces(createHash("sha256"), pieces, 0);
}

/** Feed `pieces[start..]` in chunks and digest; each flushed chunk's state is kept when asked. */
function hashPieces(
  sha: Hash,
  pieces: readonly string[],
  start: number,
  checkpoints?: HashReference["checkpoints"],
): string {
  let chunk = "";
  for (let i = start; i < pieces.length; i++) {
    chunk += pieces[i];
    if (chunk.length >= CHUNK) {
      sha.update(chunk);
      chunk = "";
      checkpoints?.push({ count: i + 1, state: sha.copy() });
    }
  }
  sha.update(chunk);
  return sha.digest("hex");
}

/** The exact string τ² hashes for a DB. */
export function canonicalDbText(db: object, shape: PyShape): string {
  return toPyJson(db, shape, { mode: "dump", sortKeys: true });
}
