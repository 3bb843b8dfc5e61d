import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { ReferenceToolDoc } from "../../../env/domain.js";
import { gitBlobHash } from "../data-pull.js";
import { UPSTREAM_FILES } from "../official-manifest.js";
import { cleandoc } from "../../../python/py-docstring.js";
import { extractToolkitWithDiscoverable } from "./extract-tools.js";

/**
 * The discoverable tools of a toolkit class in an upstream source file, with their cleaned docstrings,
 * when the file is at hand and is the pinned commit's version (checked by its git blob hash);
 * undefined otherwise, or when it cannot be read.
 */
export function referenceDiscoverableTools(
  upstreamDir: string | undefined,
  file: string,
  className: string,
): ReferenceToolDoc[] | undefined {
  const source = upstreamDir === undefined ? undefined : verifiedSource(upstreamDir, file);
  if (source === undefined) return undefined;
  try {
    return extractToolkitWithDiscoverable(source, file, { className }).discoverable.map((tool) => ({
      name: tool.name,
      doc: tool.docstring === undefined ? "" : cleandoc(tool.docstring),
    }));
  } catch {
    return undefined;
  }
}

function verifiedSource(dir: string, file: string): string | undefined {
  const expected = UPSTREAM_FILES.find((f) => f.path === file)?.blob;
  const full = path.join(dir, file);
  if (expected === undefined || !existsSync(full)) return undefined;
  const bytes = readFileSync(full);
  return gitBlobHash(bytes) === expected ? bytes.toString("utf8") : undefined;
}
