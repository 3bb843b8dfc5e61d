import type { z } from "zod";

/**
 * What a value looks like to Python once the reference (pydantic) has parsed it. τ²'s tool outputs and
 * DB hashes are Python `json.dumps` output, so passk must know what JavaScript's number type erases:
 * whether a number is a Python `float` (printed `100.0`) or `int` (`100`), whether a string is a
 * `datetime`, and whether an object is a pydantic model (fixed field order, every field dumped) or a
 * plain `dict`. The shape is derived once from the zod schema that describes the value:
 *
 * - `z.number()` is a float, `z.int()` / `z.number().int()` an int;
 * - `z.iso.datetime()` / `z.iso.date()` are datetimes / dates (stored as ISO strings);
 * - `z.object()` is a model; `z.record()` / `z.map()` a dict.
 */
export type PyShape =
  | { kind: "any" }
  | { kind: "int" }
  | { kind: "float" }
  | { kind: "str" }
  | { kind: "bool" }
  | { kind: "datetime" }
  | { kind: "date" }
  | { kind: "model"; fields: Array<[string, PyShape]>; cache: WeakMap<object, string> }
  | { kind: "dict"; value: PyShape; cache: WeakMap<object, string> }
  | { kind: "list"; item: PyShape }
  | { kind: "union"; options: PyShape[] }
  | { kind: "lazy"; resolve: () => PyShape };

export const ANY_SHAPE: PyShape = { kind: "any" };

const shapeCache = new WeakMap<object, PyShape>();

const INT_FORMATS = new Set(["safeint", "int32", "uint32", "int64", "uint64"]);

interface ZodDefLike {
  type: string;
  format?: string;
  checks?: Array<{ _zod: { def: { check?: string; format?: string } } }>;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  in?: z.ZodType;
  out?: z.ZodType;
  getter?: () => z.ZodType;
}

function defOf(schema: z.ZodType): ZodDefLike {
  return (schema as unknown as { _zod: { def: ZodDefLike } })._zod.def;
}

/** The Python shape of values described by a zod schema (memoised per schema). */
export function pyShapeOf(schema: z.ZodType): PyShape {
  const cached = shapeCache.get(schema);
  if (cached) return cached;
  const def = defOf(schema);
  let shape: PyShape;
  switch (def.type) {
    case "number": {
      const isInt =
        (def.format !== undefined && INT_FORMATS.has(def.format)) ||
        (def.checks ?? []).some(
          (c) => c._zod.def.check === "number_format" && INT_FORMATS.has(c._zod.def.format ?? ""),
        );
      shape = { kind: isInt ? "int" : "float" };
      break;
    }
    case "int":
    case "bigint":
      shape = { kind: "int" };
      break;
    case "boolean":
      shape = { kind: "bool" };
      break;
    case "string":
      shape = { kind: def.format === "datetime" ? "datetime" : def.format === "date" ? "date" : "str" };
      break;
    case "object": {
      const fields: Array<[string, PyShape]> = [];
      // Placeholder first so recursive schemas terminate.
      shape = { kind: "model", fields, cache: new WeakMap() };
      shapeCache.set(schema, shape);
      for (const [name, field] of Object.entries(def.shape ?? {})) fields.push([name, pyShapeOf(field)]);
      return shape;
    }
    case "record":
    case "map":
      shape = {
        kind: "dict",
        value: def.valueType ? pyShapeOf(def.valueType) : ANY_SHAPE,
        cache: new WeakMap(),
      };
      break;
    case "array":
      shape = { kind: "list", item: def.element ? pyShapeOf(def.element) : ANY_SHAPE };
      break;
    case "nullable":
    case "optional":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
    case "nonoptional":
      shape = def.innerType ? pyShapeOf(def.innerType) : ANY_SHAPE;
      break;
    case "pipe": {
      // z.preprocess(f, S) is pipe(transform, S): the value ends up shaped like S.
      const out = def.out ? defOf(def.out) : undefined;
      shape = out && out.type !== "transform" ? pyShapeOf(def.out!) : def.in ? pyShapeOf(def.in) : ANY_SHAPE;
      break;
    }
    case "union": {
      const options = (def.options ?? []).map(pyShapeOf);
      shape = options.length === 1 ? options[0]! : { kind: "union", options };
      break;
    }
    case "lazy": {
      const getter = def.getter!;
      let resolved: PyShape | undefined;
      shape = { kind: "lazy", resolve: () => (resolved ??= pyShapeOf(getter())) };
      break;
    }
    default:
      shape = ANY_SHAPE;
  }
  shapeCache.set(schema, shape);
  return shape;
}
