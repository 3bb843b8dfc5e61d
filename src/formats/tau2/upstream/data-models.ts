import { createHash } from "node:crypto";
import type { z } from "zod";
import type { DataModelModule } from "../official-manifest.js";
import { moduleTypeAliases, pythonSourceTypes } from "./pydantic-models.js";
import {
  definitionsJsonSchema,
  sortLikePydantic,
  type JsonObject,
  type JsonValue,
} from "./pydantic-schema.js";
import { readPythonModule } from "../../../python/py-source/module.js";

// The reference's data-model modules (airline's `data_model.py`, telecom's `user_data_model.py`) define
// the pydantic models some tool parameters take. Their `$defs` entries, with the reference's field
// descriptions and docstrings, replace the description-less ones passk builds from its zod schemas. These
// modules are not pinned by git blob hash: a module is used when the `$defs` entries read from it have
// the expected digest (see `DATA_MODEL_MODULES`), whatever else the file holds.

/**
 * The canonical JSON of `$defs` entries: keys ordered as pydantic's `model_json_schema` orders them
 * (`sortLikePydantic`: alphabetically at every level, entry names included, except under `properties`
 * and `default`), then `JSON.stringify` without spaces.
 */
export function canonicalDefsJson(defs: JsonObject): string {
  return JSON.stringify(sortLikePydantic(defs));
}

/** The SHA-256 (hex) of the UTF-8 of `canonicalDefsJson(defs)`: what `DATA_MODEL_MODULES` pins. */
export function defsDigest(defs: JsonObject): string {
  return createHash("sha256").update(canonicalDefsJson(defs), "utf8").digest("hex");
}

/**
 * The `$defs` entries a module's source defines for the given names, as pydantic 2.13 writes them (with
 * every entry they need). Throws when the source cannot be read or the entries are not exactly `names`.
 */
export function readDataModelDefs(source: string, file: string, names: readonly string[]): JsonObject {
  const module = readPythonModule(source, file);
  const defs = definitionsJsonSchema(names, {
    sourceTypes: pythonSourceTypes(module),
    aliases: moduleTypeAliases(module),
    context: file,
  });
  const produced = Object.keys(defs).sort();
  const expected = [...names].sort();
  if (produced.join("\n") !== expected.join("\n"))
    throw new Error(`${file} defines the schema entries ${produced.join(", ")}, not ${expected.join(", ")}`);
  return defs;
}

export type DataModelCheck =
  | { status: "verified"; defs: JsonObject }
  | { status: "unreadable"; reason: string }
  | { status: "mismatch"; reason: string };

/** Whether a module's source gives the expected `$defs` entries (by digest). */
export function checkDataModelSource(module: DataModelModule, source: string): DataModelCheck {
  let defs: JsonObject;
  try {
    defs = readDataModelDefs(source, module.path, module.defs);
  } catch (error) {
    return { status: "unreadable", reason: (error as Error).message };
  }
  const digest = defsDigest(defs);
  if (digest !== module.digest)
    return {
      status: "mismatch",
      reason: `its schema entries have digest ${digest}, expected ${module.digest}`,
    };
  return { status: "verified", defs };
}

/**
 * A schema without its descriptions (the `description` keywords; a property named `description` stays):
 * the structure passk's zod schemas give too.
 */
export function withoutDescriptions(value: JsonValue, parentKey?: string): JsonValue {
  if (Array.isArray(value)) return value.map((item) => withoutDescriptions(item, parentKey));
  if (value === null || typeof value !== "object") return value;
  if (parentKey === "default" || parentKey === "const" || parentKey === "enum") return value;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === "description" && parentKey !== "properties" && typeof item === "string") continue;
    out[key] = withoutDescriptions(item, key);
  }
  return out;
}

/**
 * The verified entries that can stand in for a domain's zod-built ones: those of each module whose
 * entries, descriptions aside, equal what the domain's zod schemas give for the same names. A module the
 * domain's types do not cover (another domain's) or that differs in structure is left out whole.
 */
export function replaceableDefs(
  verified: ReadonlyArray<{ module: DataModelModule; defs: JsonObject }>,
  types: ReadonlyMap<string, z.ZodType> | undefined,
): Map<string, JsonObject> {
  const usable = new Map<string, JsonObject>();
  if (!types) return usable;
  for (const { module, defs } of verified) {
    // The entries passk's zod schemas give, from the names the domain knows (`APNNames` comes with
    // `APNSettings`); they must be the same entries, descriptions aside.
    const roots = module.defs.filter((name) => types.has(name));
    if (roots.length === 0) continue;
    let ours: JsonObject;
    try {
      ours = definitionsJsonSchema(roots, { types });
    } catch {
      continue;
    }
    const same =
      canonicalDefsJson(withoutDescriptions(defs) as JsonObject) ===
      canonicalDefsJson(withoutDescriptions(ours) as JsonObject);
    if (!same) continue;
    for (const [name, entry] of Object.entries(defs)) usable.set(name, entry as JsonObject);
  }
  return usable;
}

/** Tool parameters with their `$defs` entries replaced by the given ones, where given; key order kept. */
export function withDefs(parameters: JsonObject, replacements: ReadonlyMap<string, JsonObject>): JsonObject {
  const defs = parameters.$defs;
  if (defs === undefined || defs === null || typeof defs !== "object" || Array.isArray(defs))
    return parameters;
  const replaced: JsonObject = {};
  for (const [name, entry] of Object.entries(defs)) replaced[name] = replacements.get(name) ?? entry;
  return { ...parameters, $defs: replaced };
}

/** The names of the `$defs` entries of tool parameters. */
export function defNames(parameters: JsonObject): string[] {
  const defs = parameters.$defs;
  return defs !== null && typeof defs === "object" && !Array.isArray(defs) ? Object.keys(defs) : [];
}
