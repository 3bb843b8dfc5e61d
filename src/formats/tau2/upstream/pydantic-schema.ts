import { z } from "zod";
import { parsePythonExpression, type PyExpr } from "../../../python/py-source/expression.js";

// The JSON schema pydantic 2.13 gives a tool's parameters: τ² builds `create_model("parameters",
// **fields)` from the signature (annotation, default, docstring description per parameter) and sends
// `model_json_schema()` to the model. Annotations are Python source text; the names they use resolve to
// builtins and `typing` forms, to type aliases of the same module, or to passk's zod schemas of the
// domain's pydantic models and enums. Those zod schemas carry passk's own wording, so nothing inside a
// named type gets a description: the reference's words for nested fields are not in the toolkit files.
// They are in the reference's data-model modules: read from there (pydantic-models.ts), a model or Enum
// class is a "source type", whose `$defs` entry carries its docstring and its fields' descriptions.

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export interface SchemaParameter {
  name: string;
  /** Annotation source text; undefined for an unannotated parameter (pydantic: `Any`). */
  annotation: string | undefined;
  /** Default value source text; undefined when the parameter is required. */
  default: string | undefined;
  /** The docstring's description, when the parameter is documented. */
  description: string | undefined;
}

/** A pydantic model or an Enum class as read from Python source (see `pythonSourceTypes`). */
export type SourceType = SourceModel | SourceEnum;

export interface SourceModel {
  kind: "model";
  /** The class name: the `$defs` key. */
  name: string;
  /** The schema title: `model_config`'s `title`, else the class name. */
  title: string;
  /** The cleaned class docstring. */
  description: string | undefined;
  /** `model_config`'s `extra`, inherited from the bases. */
  extra: "forbid" | "allow" | "ignore" | undefined;
  /** Fields in pydantic's order (inherited ones first, an overridden one where its base had it). */
  fields: SourceField[];
}

export interface SourceField {
  name: string;
  /** The annotation as source text. */
  annotation: string;
  /** The default value expression; undefined when required; "factory" for a `default_factory`. */
  default: PyExpr | "factory" | undefined;
  description: string | undefined;
  title: string | undefined;
}

export interface SourceEnum {
  kind: "enum";
  name: string;
  description: string | undefined;
  /** Members in definition order: name and value. */
  members: Array<[name: string, value: string | number]>;
}

export interface SchemaOptions {
  /** Named types (pydantic models, Enum classes, Literal aliases) as zod schemas, by Python name. */
  types?: ReadonlyMap<string, z.ZodType>;
  /** Models and Enum classes read from Python source, by name; they take precedence over `types`. */
  sourceTypes?: (name: string) => SourceType | undefined;
  /** Module-level type aliases of the same file (name → annotation text), e.g. `TransferReasonLiteral`. */
  aliases?: ReadonlyMap<string, string>;
  /** Where the annotations come from, for error messages (e.g. `tools.py: book_reservation`). */
  context?: string;
}

/** A Python type as pydantic sees it. */
type PyType =
  | { kind: "str" | "int" | "float" | "bool" | "none" | "any" }
  | { kind: "dict"; key: PyType | undefined; value: PyType | undefined }
  | { kind: "list" | "set"; item: PyType | undefined }
  | { kind: "tuple"; items: PyType[]; variadic: boolean }
  | { kind: "union"; members: PyType[] }
  | { kind: "literal"; values: JsonValue[] }
  | { kind: "enum"; name: string; values: Array<string | number>; description?: string }
  | { kind: "model"; name: string; schema: z.ZodObject }
  | { kind: "source-model"; name: string; model: SourceModel };

/** Python's `str.title()`: a cased character is upper-cased after an uncased one, lower-cased otherwise. */
export function pythonTitle(text: string): string {
  let out = "";
  let previousCased = false;
  for (const ch of text) {
    const lower = ch.toLowerCase();
    const upper = ch.toUpperCase();
    const cased = lower !== upper || ch !== lower;
    if (cased) {
      out += previousCased ? lower : upper;
      previousCased = true;
    } else {
      out += ch;
      previousCased = false;
    }
  }
  return out;
}

/** pydantic's default field title: `name.title().replace("_", " ").strip()`. */
export function fieldTitle(name: string): string {
  return pythonTitle(name).replace(/_/g, " ").trim();
}

/**
 * pydantic's `GenerateJsonSchema.sort`: keys alphabetically at every level, except directly under
 * `properties` and `default`, whose key order is meaningful.
 */
export function sortLikePydantic(value: JsonValue, parentKey?: string): JsonValue {
  if (Array.isArray(value)) return value.map((item) => sortLikePydantic(item, parentKey));
  if (value === null || typeof value !== "object") return value;
  const keys = Object.keys(value);
  if (parentKey !== "properties" && parentKey !== "default") keys.sort();
  const sorted: JsonObject = {};
  for (const key of keys) sorted[key] = sortLikePydantic(value[key]!, key);
  return sorted;
}

function metaId(schema: z.ZodType): string | undefined {
  const id = z.globalRegistry.get(schema)?.id;
  return typeof id === "string" ? id : undefined;
}

class SchemaBuilder {
  private readonly defs = new Map<string, JsonObject>();
  private readonly resolving = new Set<string>();

  constructor(private readonly options: SchemaOptions) {}

  fail(message: string): never {
    const where = this.options.context ? `${this.options.context}: ` : "";
    throw new Error(`${where}${message}`);
  }

  // --- annotations ----------------------------------------------------------------------------------

  typeOfAnnotation(text: string): PyType {
    let expr: PyExpr;
    try {
      expr = parsePythonExpression(text);
    } catch (error) {
      return this.fail(`cannot read the annotation '${text}': ${(error as Error).message}`);
    }
    return this.typeOf(expr, text);
  }

  private typeOf(expr: PyExpr, text: string): PyType {
    if (expr.kind === "constant" && expr.value === null) return { kind: "none" };
    if (expr.kind === "string") {
      if (expr.value === undefined) this.fail(`unsupported annotation '${text}'`);
      return this.typeOfAnnotation(expr.value);
    }
    if (expr.kind === "binop" && expr.op === "|") {
      return union([this.typeOf(expr.left, text), this.typeOf(expr.right, text)]);
    }
    const name = dottedName(expr);
    if (name !== undefined) return this.named(name, text);
    if (expr.kind === "subscript") {
      const base = dottedName(expr.value);
      if (base === undefined) this.fail(`unsupported annotation '${text}'`);
      const generic = stripTyping(base);
      const args = expr.index;
      const arg = (i: number) => this.typeOf(args[i]!, text);
      switch (generic) {
        case "Optional":
          if (args.length !== 1) this.fail(`Optional takes one argument in '${text}'`);
          return union([arg(0), { kind: "none" }]);
        case "Union":
          return union(args.map((_, i) => arg(i)));
        case "List":
        case "list":
        case "Sequence":
          return { kind: "list", item: arg(0) };
        case "Set":
        case "set":
        case "FrozenSet":
        case "frozenset":
          return { kind: "set", item: arg(0) };
        case "Dict":
        case "dict":
        case "Mapping":
          if (args.length !== 2) this.fail(`${generic} takes two arguments in '${text}'`);
          return { kind: "dict", key: arg(0), value: arg(1) };
        case "Tuple":
        case "tuple": {
          const variadic = args.length === 2 && args[1]!.kind === "ellipsis";
          return { kind: "tuple", items: variadic ? [arg(0)] : args.map((_, i) => arg(i)), variadic };
        }
        case "Literal":
          return literal(args.flatMap((a) => this.literalValues(a, text)));
        case "Annotated":
          return arg(0);
        default:
          return this.fail(`unsupported generic '${base}' in '${text}'`);
      }
    }
    return this.fail(`unsupported annotation '${text}'`);
  }

  private literalValues(expr: PyExpr, text: string): JsonValue[] {
    if (expr.kind === "string" && expr.value !== undefined && !expr.bytes) return [expr.value];
    if (expr.kind === "number" && expr.integer) return [expr.value];
    if (expr.kind === "unary" && expr.op === "-" && expr.operand.kind === "number" && expr.operand.integer)
      return [-expr.operand.value];
    if (expr.kind === "constant") return [expr.value];
    if (expr.kind === "subscript" && stripTyping(dottedName(expr.value) ?? "") === "Literal")
      return expr.index.flatMap((a) => this.literalValues(a, text));
    return this.fail(`unsupported Literal value in '${text}'`);
  }

  private named(name: string, text: string): PyType {
    switch (stripTyping(name)) {
      case "str":
        return { kind: "str" };
      case "int":
        return { kind: "int" };
      case "float":
        return { kind: "float" };
      case "bool":
        return { kind: "bool" };
      case "Any":
      case "object":
        return { kind: "any" };
      case "dict":
      case "Dict":
        return { kind: "dict", key: undefined, value: undefined };
      case "list":
      case "List":
        return { kind: "list", item: undefined };
      case "NoneType":
        return { kind: "none" };
    }
    const source = this.options.sourceTypes?.(name);
    if (source?.kind === "enum")
      return {
        kind: "enum",
        name: source.name,
        values: source.members.map(([, value]) => value),
        ...(source.description !== undefined ? { description: source.description } : {}),
      };
    if (source?.kind === "model") return { kind: "source-model", name: source.name, model: source };
    const zodType = this.options.types?.get(name);
    if (zodType) return this.fromZod(zodType, name);
    const alias = this.options.aliases?.get(name);
    if (alias !== undefined) {
      if (this.resolving.has(name)) this.fail(`type alias '${name}' refers to itself`);
      this.resolving.add(name);
      try {
        return this.typeOfAnnotation(alias);
      } finally {
        this.resolving.delete(name);
      }
    }
    return this.fail(`unknown type '${name}' in '${text}' (not a builtin, a module alias or a given type)`);
  }

  // --- zod schemas of the domain's models -----------------------------------------------------------

  private fromZod(schema: z.ZodType, name: string | undefined): PyType {
    const id = metaId(schema);
    if (schema instanceof z.ZodEnum) {
      const values = schema.options as Array<string | number>;
      return id ? { kind: "enum", name: id, values } : literal(values);
    }
    if (schema instanceof z.ZodLiteral) return literal([...schema.values] as JsonValue[]);
    if (schema instanceof z.ZodObject) {
      const modelName = id ?? name;
      if (!modelName) return this.fail("a nested zod object needs .meta({ id }) to name its pydantic model");
      return { kind: "model", name: modelName, schema };
    }
    if (schema instanceof z.ZodString) return { kind: "str" };
    if (schema instanceof z.ZodNumber) return { kind: schema.isInt ? "int" : "float" };
    if (schema instanceof z.ZodBoolean) return { kind: "bool" };
    if (schema instanceof z.ZodNull) return { kind: "none" };
    if (schema instanceof z.ZodAny || schema instanceof z.ZodUnknown) return { kind: "any" };
    if (schema instanceof z.ZodNullable)
      return union([this.fromZod(schema.unwrap() as z.ZodType, undefined), { kind: "none" }]);
    if (schema instanceof z.ZodDefault || schema instanceof z.ZodPrefault || schema instanceof z.ZodReadonly)
      return this.fromZod(schema.unwrap() as z.ZodType, name);
    if (schema instanceof z.ZodArray)
      return { kind: "list", item: this.fromZod(schema.element as z.ZodType, undefined) };
    if (schema instanceof z.ZodSet)
      return { kind: "set", item: this.fromZod(schema._zod.def.valueType as z.ZodType, undefined) };
    if (schema instanceof z.ZodRecord || schema instanceof z.ZodMap)
      return {
        kind: "dict",
        key: this.fromZod(schema._zod.def.keyType as z.ZodType, undefined),
        value: this.fromZod(schema._zod.def.valueType as z.ZodType, undefined),
      };
    if (schema instanceof z.ZodUnion)
      return union(schema.options.map((option) => this.fromZod(option as z.ZodType, undefined)));
    if (schema instanceof z.ZodPipe) {
      const input = schema._zod.def.in as z.ZodType;
      return this.fromZod(input instanceof z.ZodTransform ? (schema._zod.def.out as z.ZodType) : input, name);
    }
    if (schema instanceof z.ZodLazy) return this.fromZod(schema._zod.def.getter() as z.ZodType, name);
    return this.fail(`cannot express the zod type '${schema._zod.def.type}' as a pydantic type`);
  }

  // --- JSON schema ----------------------------------------------------------------------------------

  json(type: PyType): JsonObject {
    switch (type.kind) {
      case "str":
        return { type: "string" };
      case "int":
        return { type: "integer" };
      case "float":
        return { type: "number" };
      case "bool":
        return { type: "boolean" };
      case "none":
        return { type: "null" };
      case "any":
        return {};
      case "list":
        return { items: type.item ? this.json(type.item) : {}, type: "array" };
      case "set":
        return { items: type.item ? this.json(type.item) : {}, type: "array", uniqueItems: true };
      case "tuple":
        if (type.variadic) return { items: this.json(type.items[0]!), type: "array" };
        return {
          maxItems: type.items.length,
          minItems: type.items.length,
          prefixItems: type.items.map((item) => this.json(item)),
          type: "array",
        };
      case "dict":
        return this.dictJson(type.key, type.value);
      case "literal":
        return literalJson(type.values);
      case "union":
        return this.unionJson(type.members);
      case "enum":
        if (!this.defs.has(type.name))
          this.defs.set(type.name, enumJson(type.name, type.values, type.description));
        return { $ref: `#/$defs/${type.name}` };
      case "source-model":
        if (!this.defs.has(type.name)) {
          this.defs.set(type.name, {});
          this.defs.set(type.name, this.sourceModelJson(type.model));
        }
        return { $ref: `#/$defs/${type.name}` };
      case "model":
        if (!this.defs.has(type.name)) {
          this.defs.set(type.name, {});
          this.defs.set(type.name, this.modelJson(type.name, type.schema));
        }
        return { $ref: `#/$defs/${type.name}` };
    }
  }

  private dictJson(key: PyType | undefined, value: PyType | undefined): JsonObject {
    const schema: JsonObject = { type: "object" };
    const keySchema: JsonObject = key ? { ...this.json(key) } : {};
    let keyPattern: JsonValue | undefined;
    if (!("$ref" in keySchema)) {
      keyPattern = keySchema.pattern;
      delete keySchema.pattern;
      delete keySchema.title;
    }
    const valueSchema: JsonObject = value ? { ...this.json(value) } : {};
    delete valueSchema.title;
    if (Object.keys(valueSchema).length > 0 || keyPattern !== undefined) {
      if (keyPattern === undefined) schema.additionalProperties = valueSchema;
      else schema.patternProperties = { [String(keyPattern)]: valueSchema };
    } else {
      schema.additionalProperties = true;
    }
    if ((keySchema.type === "string" && Object.keys(keySchema).length > 1) || "$ref" in keySchema) {
      delete keySchema.type;
      schema.propertyNames = keySchema;
    }
    return schema;
  }

  private unionJson(members: PyType[]): JsonObject {
    const nullable = members.some((m) => m.kind === "none");
    const choices = members.filter((m) => m.kind !== "none").map((m) => this.json(m));
    const inner: JsonObject = choices.length === 1 ? choices[0]! : flattenedAnyOf(choices);
    if (!nullable) return inner;
    if (choices.length === 0) return { type: "null" };
    return flattenedAnyOf([inner, { type: "null" }]);
  }

  private modelJson(name: string, schema: z.ZodObject): JsonObject {
    const properties: JsonObject = {};
    const required: string[] = [];
    for (const [field, fieldSchema] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
      let inner: z.ZodType = fieldSchema;
      let defaultValue: JsonValue | undefined;
      for (;;) {
        if (inner instanceof z.ZodDefault || inner instanceof z.ZodPrefault) {
          if (defaultValue === undefined)
            defaultValue = toJsonValue(inner._zod.def.defaultValue, `${name}.${field}`);
          inner = inner.unwrap() as z.ZodType;
        } else if (inner instanceof z.ZodOptional) {
          this.fail(`${name}.${field}: an optional field without default has no pydantic equivalent`);
        } else {
          break;
        }
      }
      const type = this.fromZod(inner, undefined);
      const property = this.json(type);
      if (titleShouldBeSet(type)) property.title = fieldTitle(field);
      if (defaultValue !== undefined) property.default = defaultValue;
      else required.push(field);
      properties[field] = property;
    }
    const result: JsonObject = { properties, title: name, type: "object" };
    if (required.length > 0) result.required = required;
    const catchall = schema._zod.def.catchall;
    if (catchall instanceof z.ZodNever) result.additionalProperties = false;
    else if (catchall instanceof z.ZodUnknown || catchall instanceof z.ZodAny)
      result.additionalProperties = true;
    return result;
  }

  /** A model read from Python source, as pydantic's `model_json_schema` writes it into `$defs`. */
  private sourceModelJson(model: SourceModel): JsonObject {
    const properties: JsonObject = {};
    const required: string[] = [];
    for (const field of model.fields) {
      const where = `${model.name}.${field.name}`;
      let type: PyType;
      try {
        type = this.typeOfAnnotation(field.annotation);
      } catch (error) {
        return this.fail(`${where}: ${(error as Error).message}`);
      }
      const property = this.json(type);
      if (field.title !== undefined) property.title = field.title;
      else if (titleShouldBeSet(type)) property.title = fieldTitle(field.name);
      if (field.default === undefined) required.push(field.name);
      else if (field.default !== "factory")
        property.default = jsonOfDefault(
          field.default,
          renderExpr(field.default),
          (message) => this.fail(`${where}: ${message}`),
          (dotted) => this.enumMemberValue(dotted),
        );
      if (field.description !== undefined) property.description = field.description;
      properties[field.name] = property;
    }
    const result: JsonObject = { properties, title: model.title, type: "object" };
    if (required.length > 0) result.required = required;
    if (model.description !== undefined) result.description = model.description;
    if (model.extra === "forbid") result.additionalProperties = false;
    else if (model.extra === "allow") result.additionalProperties = true;
    return result;
  }

  /** `Enum.MEMBER` as a default: the member's value (pydantic shows the JSON form of a default). */
  private enumMemberValue(dotted: string): JsonValue | undefined {
    const dot = dotted.lastIndexOf(".");
    if (dot < 0) return undefined;
    const source = this.options.sourceTypes?.(dotted.slice(0, dot));
    if (source?.kind !== "enum") return undefined;
    const member = source.members.find(([name]) => name === dotted.slice(dot + 1));
    return member?.[1];
  }

  definitions(): JsonObject | undefined {
    if (this.defs.size === 0) return undefined;
    return Object.fromEntries(this.defs);
  }
}

function dottedName(expr: PyExpr): string | undefined {
  if (expr.kind === "name") return expr.id;
  if (expr.kind === "attribute") {
    const base = dottedName(expr.value);
    return base === undefined ? undefined : `${base}.${expr.attr}`;
  }
  return undefined;
}

function stripTyping(name: string): string {
  return name.replace(/^(?:typing|typing_extensions|collections\.abc|builtins)\./, "");
}

/** `typing.Union` semantics: nested unions flatten, duplicates collapse, a single member stands alone. */
function union(members: PyType[]): PyType {
  const flat: PyType[] = [];
  const seen = new Set<string>();
  for (const member of members.flatMap((m) => (m.kind === "union" ? m.members : [m]))) {
    const key = JSON.stringify(member, (k, v: unknown) => (k === "schema" || k === "model" ? undefined : v));
    if (seen.has(key)) continue;
    seen.add(key);
    flat.push(member);
  }
  return flat.length === 1 ? flat[0]! : { kind: "union", members: flat };
}

function literal(values: JsonValue[]): PyType {
  const unique: JsonValue[] = [];
  for (const value of values) if (!unique.some((u) => u === value)) unique.push(value);
  return { kind: "literal", values: unique };
}

function jsonTypeOf(values: readonly JsonValue[]): string | undefined {
  const types = new Set(
    values.map((v) =>
      v === null ? "null" : typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v,
    ),
  );
  if (types.size !== 1) return undefined;
  const [only] = types;
  return only === "string" || only === "integer" || only === "number" || only === "boolean" || only === "null"
    ? only
    : undefined;
}

function literalJson(values: JsonValue[]): JsonObject {
  const schema: JsonObject = values.length === 1 ? { const: values[0]! } : { enum: values };
  const type = jsonTypeOf(values);
  if (type) schema.type = type;
  return schema;
}

function enumJson(name: string, values: Array<string | number>, description?: string): JsonObject {
  const schema: JsonObject = { title: name, enum: values };
  if (description !== undefined) schema.description = description;
  const type = jsonTypeOf(values);
  if (type && type !== "null") schema.type = type;
  return schema;
}

function flattenedAnyOf(schemas: JsonObject[]): JsonObject {
  const members: JsonValue[] = [];
  for (const schema of schemas) {
    const keys = Object.keys(schema);
    if (keys.length === 1 && Array.isArray(schema.anyOf)) members.push(...schema.anyOf);
    else members.push(schema);
  }
  return { anyOf: members };
}

/** pydantic sets no title on a field whose schema is a reference (a model or an Enum class). */
function titleShouldBeSet(type: PyType): boolean {
  if (type.kind === "enum" || type.kind === "model" || type.kind === "source-model") return false;
  if (type.kind === "union" && type.members.some((m) => m.kind === "none")) {
    const rest = type.members.filter((m) => m.kind !== "none");
    if (rest.length === 1) return titleShouldBeSet(rest[0]!);
  }
  return true;
}

function toJsonValue(value: unknown, where: string): JsonValue {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (Array.isArray(value)) return value.map((item) => toJsonValue(item, where));
  if (value instanceof Map)
    return Object.fromEntries([...value].map(([k, v]) => [String(k), toJsonValue(v, where)]));
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJsonValue(v, where)]));
  throw new Error(`${where}: default ${String(value)} has no JSON form`);
}

/**
 * A default written in Python (`None`, `True`, `12`, `"other"`, `'{}'`, `[]`, `Color.RED`…) as the JSON
 * pydantic shows; `dotted` resolves `Enum.MEMBER` names to their values.
 */
function jsonOfDefault(
  root: PyExpr,
  label: string,
  fail: (message: string) => never,
  dotted?: (name: string) => JsonValue | undefined,
): JsonValue {
  const convert = (expr: PyExpr): JsonValue => {
    switch (expr.kind) {
      case "attribute": {
        const name = dottedName(expr);
        const value = name === undefined ? undefined : dotted?.(name);
        if (value !== undefined) return value;
        break;
      }
      case "constant":
        return expr.value;
      case "string":
        if (expr.value === undefined || expr.bytes) break;
        return expr.value;
      case "number":
        return expr.value;
      case "unary":
        if (expr.operand.kind === "number") return expr.op === "-" ? -expr.operand.value : expr.operand.value;
        break;
      case "list":
      case "tuple":
        return expr.elements.map(convert);
      case "dict": {
        const out: JsonObject = {};
        for (const [key, value] of expr.entries) {
          if (key.kind !== "string" || key.value === undefined) break;
          out[key.value] = convert(value);
        }
        if (Object.keys(out).length === expr.entries.length) return out;
        break;
      }
    }
    return fail(`unsupported default value '${label}'`);
  };
  return convert(root);
}

/** A parameter default written in Python source text, as JSON. */
function defaultValue(text: string, fail: (message: string) => never): JsonValue {
  let expr: PyExpr;
  try {
    expr = parsePythonExpression(text);
  } catch (error) {
    return fail(`cannot read the default '${text}': ${(error as Error).message}`);
  }
  return jsonOfDefault(expr, text, fail);
}

/** A short rendering of an expression for messages. */
function renderExpr(expr: PyExpr): string {
  switch (expr.kind) {
    case "name":
      return expr.id;
    case "attribute":
      return `${renderExpr(expr.value)}.${expr.attr}`;
    case "string":
      return JSON.stringify(expr.value ?? "");
    case "number":
      return expr.text;
    case "constant":
      return expr.value === null ? "None" : expr.value ? "True" : "False";
    case "call":
      return `${renderExpr(expr.func)}(…)`;
    default:
      return `<${expr.kind}>`;
  }
}

/**
 * The JSON schema of a tool's parameters as pydantic 2.13 generates it for
 * `create_model("parameters", **fields).model_json_schema()`.
 */
export function parametersJsonSchema(
  parameters: readonly SchemaParameter[],
  options: SchemaOptions = {},
): JsonObject {
  const builder = new SchemaBuilder(options);
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const parameter of parameters) {
    const type =
      parameter.annotation === undefined
        ? ({ kind: "any" } as const)
        : builder.typeOfAnnotation(parameter.annotation);
    const property = builder.json(type);
    if (titleShouldBeSet(type)) property.title = fieldTitle(parameter.name);
    if (parameter.default !== undefined)
      property.default = defaultValue(parameter.default, (message) =>
        builder.fail(`${parameter.name}: ${message}`),
      );
    else required.push(parameter.name);
    if (parameter.description !== undefined) property.description = parameter.description;
    properties[parameter.name] = property;
  }
  const schema: JsonObject = { properties, title: "parameters", type: "object" };
  if (required.length > 0) schema.required = required;
  const defs = builder.definitions();
  if (defs) schema.$defs = defs;
  return sortLikePydantic(schema) as JsonObject;
}

/**
 * The `$defs` entries pydantic 2.13 writes for named types (models and Enum classes, from Python source
 * or zod): every entry the roots need, roots included, by name. Fails when a root is not such a type.
 */
export function definitionsJsonSchema(roots: readonly string[], options: SchemaOptions = {}): JsonObject {
  const builder = new SchemaBuilder(options);
  for (const root of roots) {
    const reference = builder.json(builder.typeOfAnnotation(root));
    if (reference.$ref !== `#/$defs/${root}`) builder.fail(`${root} is not a model or an Enum class`);
  }
  return sortLikePydantic(builder.definitions() ?? {}) as JsonObject;
}
