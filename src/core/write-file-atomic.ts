import { closeSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "./errors.js";
import { makeDirectory } from "./make-directory.js";

/** A ConfigError when `file` names a directory (`--junit /tmp`) or sits where no folder can be made. */
export function checkFileTarget(file: string, flag?: string): void {
  const target = path.resolve(file);
  let isDirectory = false;
  try {
    isDirectory = statSync(target, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch (error) {
    // ENOTDIR: a file where a folder should be; makeDirectory names it.
    if ((error as NodeJS.ErrnoException).code !== "ENOTDIR") throw error;
  }
  if (isDirectory)
    throw new ConfigError(
      `${flag ? `${flag} ` : ""}${file} is a directory; give a file path, e.g. ${path.join(file, "results.json")}`,
    );
  // The folder is made now, so a path that can never be written stops the command before any work.
  makeDirectory(path.dirname(target), flag ? `${flag} ${file}` : file);
}

/**
 * Write a file so that a reader (or a crash) never sees half of it: write a temporary file beside it,
 * flush it to disk, then rename it over the target (atomic on POSIX file systems). A write that stops
 * short (a full disk, a file-size limit) throws ENOSPC and leaves the old file as it was; the temporary
 * file never outlives a failure. `text` is written as UTF-8; bytes (a WAV file) as they are.
 */
export function writeFileAtomic(file: string, text: string | Uint8Array): void {
  checkFileTarget(file);
  const target = path.resolve(file);
  makeDirectory(path.dirname(target), file);
  const temporary = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${process.pid}.${Date.now()}.tmp`,
  );
  const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : text;
  const fd = openSync(temporary, "w");
  let open = true;
  try {
    // writeSync may write fewer bytes than asked (a nearly full disk): write the rest, and a write of
    // nothing means no room is left.
    for (let offset = 0; offset < bytes.length;) {
      const written = writeSync(fd, bytes, offset, bytes.length - offset);
      if (written <= 0)
        throw Object.assign(new Error(`no space left to write ${file}`), { code: "ENOSPC", path: file });
      offset += written;
    }
    fsyncSync(fd);
    open = false;
    closeSync(fd);
    renameSync(temporary, target);
  } catch (error) {
    if (open) closeSync(fd);
    rmSync(temporary, { force: true });
    // A file-size limit stops a write as a full disk does: same meaning, same advice.
    if ((error as NodeJS.ErrnoException).code === "EFBIG")
      throw Object.assign(new Error(`no space left to write ${file}`), { code: "ENOSPC", path: file });
    throw error;
  }
}
