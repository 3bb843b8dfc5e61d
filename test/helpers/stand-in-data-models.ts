import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DATA_MODEL_MODULES, type DataModelModule } from "../../src/formats/tau2/official-manifest.js";
import { tau2UpstreamDir } from "../../src/testing/tau2-fixtures.js";

// Tests need the reference's data-model modules present, altered or absent. They are the modules
// `passk data pull` put beside the upstream source files; an altered one has its field descriptions
// changed, so its schema entries no longer have the digest DATA_MODEL_MODULES pins.

/** The reference's module, as `passk data pull` fetched it (or with its field descriptions altered). */
export function dataModelModuleSource(module: DataModelModule, options: { tamper?: boolean } = {}): string {
  const file = path.join(tau2UpstreamDir(), module.path);
  if (!existsSync(file))
    throw new Error(
      `${file} is missing: the tests need the upstream data-model modules; run \`npx passk data pull\` again.`,
    );
  const source = readFileSync(file, "utf8");
  if (!options.tamper) return source;
  const altered = source.replaceAll('description="', 'description="Altered: ');
  if (altered === source) throw new Error(`${file}: no field description to alter`);
  return altered;
}

/**
 * A temporary copy of the upstream source files (copied, never linked: tests write into it, and a write
 * through a link would change the files it was copied from), without `omit`.
 */
export function upstreamWithout(omit: readonly string[] = []): string {
  const dir = mkdtempSync(path.join(tmpdir(), "passk-upstream-"));
  cpSync(tau2UpstreamDir(), dir, { recursive: true, dereference: true });
  for (const file of omit) rmSync(path.join(dir, file), { force: true });
  return dir;
}

/** A temporary copy of the upstream source files without the data-model modules. */
export function upstreamWithoutModels(): string {
  return upstreamWithout(DATA_MODEL_MODULES.map((module) => module.path));
}

/** Write the data-model modules (or altered ones) into `dir` (repository layout). */
export function writeStandInModules(dir: string, options: { tamper?: boolean } = {}): void {
  for (const module of DATA_MODEL_MODULES) {
    const target = path.join(dir, module.path);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, dataModelModuleSource(module, options));
  }
}

/** A temporary copy of the upstream source files with the data-model modules (or altered ones). */
export function upstreamWithStandInModels(options: { tamper?: boolean } = {}): string {
  const dir = upstreamWithoutModels();
  writeStandInModules(dir, options);
  return dir;
}
