// The machine's own failures, in words: what they mean and what to do. One reading for every edge
// (the CLI's error boundary, the server's), so a full disk says the same thing everywhere.

import { InfrastructureError } from "./llm.js";

/**
 * What a system failure means and what to do, or undefined when it is not one passk recognises.
 * `withPaths: false` leaves file paths out (a server's answers to strangers).
 */
export function systemFailure(error: unknown, options: { withPaths?: boolean } = {}): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, path: file } = error as NodeJS.ErrnoException;
  const where = file && options.withPaths !== false ? ` (${file})` : "";
  switch (code) {
    case "ENOSPC":
    case "SQLITE_FULL":
      return `the disk is full${where}: nothing was lost that was already stored; free some space and run the command again (a run continues with \`passk run --resume RUN_ID\`).`;
    case "EACCES":
    case "EPERM":
      return `permission denied${where}: passk may not read or write there; fix the file's permissions or choose another path.`;
    case "EROFS":
    case "SQLITE_READONLY":
    case "SQLITE_READONLY_DIRECTORY":
      return `the store or file is read-only${where}: fix its permissions, or use a writable copy (--store PATH).`;
    case "SQLITE_CORRUPT":
    case "SQLITE_NOTADB":
      return `the store is damaged (${options.withPaths === false ? code : error.message}): restore it from a backup, or start a new one with --store PATH; results files written with --save-to are unaffected.`;
    case "SQLITE_BUSY":
    case "SQLITE_LOCKED":
      return "the store is busy (another passk process holds it): wait for it, or use another --store.";
    case "EMFILE":
    case "ENFILE":
      return "too many open files: lower --max-concurrency, or raise the limit (ulimit -n).";
    case "ERR_STRING_TOO_LONG":
      return "the input is too large to read into memory (over 512 MB of text); split it or pass a smaller file.";
  }
  if (
    error instanceof RangeError &&
    /Invalid (string|array) length|Array buffer allocation failed/.test(error.message)
  )
    return `the input or request is too large to hold in memory (${error.message}); use a smaller file or smaller numbers.`;
  return undefined;
}

/**
 * A provider's or the machine's failure during a call — a voice provider refusing the connection or the
 * key, closing the socket, reporting an error — never the agent's: the conversation ends as an
 * infrastructure error, left out of scores. The message is one sentence saying what failed and what to
 * do; it never holds a secret.
 */
export class SystemFailure extends InfrastructureError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 1, options);
    this.name = "SystemFailure";
  }
}
