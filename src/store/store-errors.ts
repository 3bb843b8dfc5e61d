import { PasskError } from "../core/errors.js";

/** No store file where one was expected (read-only commands never create one). */
export class StoreNotFoundError extends PasskError {
  readonly file: string;
  constructor(file: string) {
    super(
      "store_not_found",
      `no passk store at ${file}. A store is created by \`passk run\` or \`passk import FILE\`; ` +
        "pass --store PATH (or set PASSK_STORE) to use another one.",
    );
    this.name = "StoreNotFoundError";
    this.file = file;
  }
}

/** The file exists but is not a passk store (another SQLite database, or not SQLite at all). */
export class NotAStoreError extends PasskError {
  readonly file: string;
  constructor(file: string, reason: string, options?: { cause?: unknown }) {
    super(
      "not_a_store",
      `${file} is not a passk store (${reason}). Pass --store with the path of a passk store, ` +
        "or a new path to create one.",
      options,
    );
    this.name = "NotAStoreError";
    this.file = file;
  }
}

/** The store was written by a passk whose schema this one cannot read. */
export class StoreVersionError extends PasskError {
  readonly file: string;
  readonly found: number;
  readonly supported: number;
  constructor(file: string, found: number, supported: number, writtenBy: string | null) {
    const by = writtenBy ? ` (written by passk ${writtenBy})` : "";
    super(
      "store_version",
      `${file} has store schema version ${found}${by}, but this passk reads schema version ${supported} at most. ` +
        "Upgrade passk to open it, export its runs with the newer passk (`passk export RUN_ID`), " +
        "or pass --store with another file.",
    );
    this.name = "StoreVersionError";
    this.file = file;
    this.found = found;
    this.supported = supported;
  }
}

/** A simulation or job that cannot be stored as given. */
export class StoreInputError extends PasskError {
  constructor(message: string) {
    super("store_input", message);
    this.name = "StoreInputError";
  }
}

/** The store's file is damaged (SQLite's integrity check fails). */
export class StoreDamagedError extends PasskError {
  readonly file: string;
  constructor(file: string, problems: readonly string[]) {
    super(
      "store_damaged",
      `${file} is damaged (${problems.slice(0, 3).join("; ")}${problems.length > 3 ? "; …" : ""}): restore it ` +
        "from a backup, or start a new store with --store PATH; results files written with --save-to are unaffected.",
    );
    this.name = "StoreDamagedError";
    this.file = file;
  }
}

/** The store exists but this user may not open or write it (permissions, a read-only folder). */
export class StoreAccessError extends PasskError {
  readonly file: string;
  constructor(file: string, why: string) {
    super(
      "store_access",
      `cannot use the store ${file}: ${why}. Fix its permissions, copy it to a writable folder, or pass --store PATH.`,
    );
    this.name = "StoreAccessError";
    this.file = file;
  }
}
