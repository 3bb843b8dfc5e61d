import { readFileSync } from "node:fs";
import path from "node:path";

let version: string | undefined;

/** passk's version from its package.json (src/ and dist/ both sit one level below it); "unknown" if unreadable. */
export function passkVersion(): string {
  if (version === undefined) {
    try {
      const file = path.resolve(import.meta.dirname, "..", "package.json");
      version = (JSON.parse(readFileSync(file, "utf8")) as { version?: string }).version ?? "unknown";
    } catch {
      version = "unknown";
    }
  }
  return version;
}
