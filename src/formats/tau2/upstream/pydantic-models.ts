import type { SourceField, SourceModel, SourceType } from "./pydantic-schema.js";
import { cleandoc } from "../../../python/py-docstring.js";
import { PythonSourceError } from "../../../python/py-source/errors.js";
import { parsePythonExpression, type PyExpr } from "../../../python/py-source/expression.js";
import type { PyClass, PyModule } from "../../../python/py-source/module.js";

// The pydantic models and Enum classes of a Python module, read from source without running it: what
// pydantic would collect for each class (its fields with annotation, default, description and title;
// its config; its docstring; an Enum's members). A class is read only when asked for, so a module may
// hold classes this reader does not understand as long as they are not needed. Anything that could change
// the JSON schema and is not modelled here (validators' constraints, aliases, `json_schema_extra`,
// unknown base classes…) is refused with an error rather than guessed.

const ENUM_BASES = new Set(["Enum", "StrEnum", "IntEnum", "enum.Enum", "enum.StrEnum", "enum.IntEnum"]);
/** Types an Enum may mix in (`class X(str, Enum)`): they do not change the schema pydantic writes. */
const ENUM_MIXINS = new Set(["str", "int"]);

type Extra = SourceModel["extra"];
interface ModelConfig {
  extra: Extra;
  title: string | undefined;
}

/**
 * Base classes of models defined outside the module, with the config they give. `BaseModelNoExtra` is
 * τ²-bench's own base (in its `tau2.utils.pydantic_utils`): a `BaseModel` that forbids extra fields.
 */
const MODEL_ROOTS: ReadonlyMap<string, Partial<ModelConfig>> = new Map([
  ["BaseModel", {}],
  ["pydantic.BaseModel", {}],
  ["BaseModelNoExtra", { extra: "forbid" }],
]);

/** `Field(...)` keywords that do not show in the JSON schema. */
const FIELD_KEYWORDS_WITHOUT_SCHEMA = new Set(["validate_default", "exclude", "repr", "init", "kw_only"]);
/** `model_config` keys that do not show in the JSON schema. */
const CONFIG_KEYS_WITHOUT_SCHEMA = new Set([
  "validate_assignment",
  "validate_default",
  "use_enum_values",
  "populate_by_name",
  "arbitrary_types_allowed",
  "str_strip_whitespace",
  "from_attributes",
]);

function dotted(expr: PyExpr): string | undefined {
  if (expr.kind === "name") return expr.id;
  if (expr.kind === "attribute") {
    const base = dotted(expr.value);
    return base === undefined ? undefined : `${base}.${expr.attr}`;
  }
  return undefined;
}

function isFieldCall(expr: PyExpr): expr is Extract<PyExpr, { kind: "call" }> {
  if (expr.kind !== "call") return false;
  const name = dotted(expr.func);
  return name === "Field" || name === "pydantic.Field";
}

/** Module-level assignments that are not strings: type aliases such as `X = Literal[...]`. */
export function moduleTypeAliases(module: PyModule): Map<string, string> {
  const aliases = new Map<string, string>();
  for (const [name, value] of module.assignments)
    if (value.kind === "expression") aliases.set(name, value.text);
  return aliases;
}

/**
 * The pydantic models and Enum classes of a module, by class name, read on first request. Unknown names
 * give undefined; a class that is there but cannot be read faithfully throws an `PythonSourceError`.
 */
export function pythonSourceTypes(module: PyModule): (name: string) => SourceType | undefined {
  const classes = new Map(module.classes.map((c) => [c.name, c]));
  const aliases = moduleTypeAliases(module);
  const cache = new Map<string, SourceType>();
  /** Each model's config as its subclasses inherit it (pydantic merges `model_config` down the MRO). */
  const configs = new Map<string, ModelConfig>();
  const reading = new Set<string>();

  const fail = (cls: PyClass, message: string): never => {
    throw new PythonSourceError(
      `${module.file}:${cls.line}: class ${cls.name}: ${message}`,
      module.file,
      cls.name,
    );
  };
  const parse = (cls: PyClass, text: string, what: string): PyExpr => {
    try {
      return parsePythonExpression(text, module.file);
    } catch (error) {
      return fail(cls, `cannot read ${what} '${text}': ${(error as Error).message}`);
    }
  };
  const stringOf = (cls: PyClass, expr: PyExpr, what: string): string => {
    if (expr.kind === "string" && !expr.bytes && expr.value !== undefined) return expr.value;
    return fail(cls, `${what} is not a string literal`);
  };

  function read(name: string): SourceType | undefined {
    const cached = cache.get(name);
    if (cached) return cached;
    const cls = classes.get(name);
    if (!cls) return undefined;
    if (reading.has(name)) fail(cls, "inherits from itself");
    reading.add(name);
    try {
      const type = readClass(cls);
      cache.set(name, type);
      return type;
    } finally {
      reading.delete(name);
    }
  }

  function readClass(cls: PyClass): SourceType {
    if (cls.decorators.length > 0) fail(cls, `decorators (@${cls.decorators[0]}) are not supported`);
    const header = parse(cls, `_(${cls.bases ?? ""})`, "the base classes");
    if (header.kind !== "call") return fail(cls, "cannot read the base classes");
    const bases = header.args.map((arg) => {
      const baseName = dotted(arg);
      return baseName ?? fail(cls, "a base class is not a name");
    });
    const description = cls.docstring ? cleandoc(cls.docstring) : undefined;
    if (bases.some((b) => ENUM_BASES.has(b))) {
      if (header.keywords.length > 0) fail(cls, "keywords in an Enum's class header are not supported");
      for (const base of bases)
        if (!ENUM_BASES.has(base) && !ENUM_MIXINS.has(base)) fail(cls, `unsupported Enum base '${base}'`);
      return { kind: "enum", name: cls.name, description, members: enumMembers(cls) };
    }
    return readModel(cls, bases, header.keywords, description);
  }

  function enumMembers(cls: PyClass): Array<[string, string | number]> {
    const members: Array<[string, string | number]> = [];
    for (const member of cls.members) {
      if (member.name.startsWith("_") || member.value === undefined) continue;
      if (member.annotation !== undefined) fail(cls, `annotated Enum member ${member.name}`);
      const expr = parse(cls, member.value, `the value of ${member.name}`);
      let value: string | number;
      if (expr.kind === "string" && !expr.bytes && expr.value !== undefined) value = expr.value;
      else if (expr.kind === "number" && expr.integer) value = expr.value;
      else if (
        expr.kind === "unary" &&
        expr.op === "-" &&
        expr.operand.kind === "number" &&
        expr.operand.integer
      )
        value = -expr.operand.value;
      else return fail(cls, `unsupported Enum member value ${member.name} = ${member.value}`);
      // A repeated value makes an alias of the first member, not a member of its own.
      if (!members.some(([, existing]) => existing === value)) members.push([member.name, value]);
    }
    if (members.length === 0) fail(cls, "an Enum without members");
    return members;
  }

  function readModel(
    cls: PyClass,
    bases: string[],
    keywords: Array<[string, PyExpr]>,
    description: string | undefined,
  ): SourceModel {
    const config: ModelConfig = { extra: undefined, title: undefined };
    const fields = new Map<string, SourceField>();
    if (bases.length === 0) fail(cls, "not a pydantic model (no base class)");
    // Python's MRO for these single-chain hierarchies: the last base first, so earlier bases win.
    for (const base of [...bases].reverse()) {
      const root = MODEL_ROOTS.get(base);
      if (root) {
        if (root.extra !== undefined) config.extra = root.extra;
        continue;
      }
      const parent = read(base);
      if (parent?.kind !== "model")
        fail(cls, `unsupported base class '${base}' (not a model of this module)`);
      const model = parent as SourceModel;
      const inheritedConfig = configs.get(model.name)!;
      if (inheritedConfig.extra !== undefined) config.extra = inheritedConfig.extra;
      if (inheritedConfig.title !== undefined) config.title = inheritedConfig.title;
      for (const field of model.fields) fields.set(field.name, field);
    }
    const inherited = new Set(fields.keys());
    // The class's own config: `model_config`, then the class keywords (`class M(BaseModel, extra=…)`).
    for (const member of cls.members.filter((m) => m.name === "model_config")) {
      if (member.value === undefined) fail(cls, "model_config without a value");
      readConfig(cls, config, parse(cls, member.value!, "model_config"));
    }
    for (const [key, value] of keywords) applyConfig(cls, config, key, value);
    for (const member of cls.members) {
      if (member.name === "model_config" || member.name.startsWith("_")) continue;
      if (member.annotation === undefined) {
        if (inherited.has(member.name))
          fail(cls, `field ${member.name} of a base class is overridden without an annotation`);
        fail(cls, `non-annotated attribute ${member.name}`);
      }
      const annotation = parse(cls, member.annotation!, `the annotation of ${member.name}`);
      if (
        /^(?:typing\.)?ClassVar$/.test(
          dotted(annotation.kind === "subscript" ? annotation.value : annotation) ?? "",
        )
      )
        continue;
      fields.set(member.name, readField(cls, member.name, member.annotation!, annotation, member.value));
    }
    configs.set(cls.name, config);
    return {
      kind: "model",
      name: cls.name,
      title: config.title ?? cls.name,
      description,
      extra: config.extra,
      fields: [...fields.values()],
    };
  }

  function readConfig(cls: PyClass, config: ModelConfig, expr: PyExpr): void {
    if (expr.kind === "call" && ["ConfigDict", "pydantic.ConfigDict"].includes(dotted(expr.func) ?? "")) {
      if (expr.args.length > 0) fail(cls, "positional arguments to ConfigDict");
      for (const [key, value] of expr.keywords) applyConfig(cls, config, key, value);
      return;
    }
    if (expr.kind === "dict") {
      for (const [key, value] of expr.entries)
        applyConfig(cls, config, stringOf(cls, key, "a model_config key"), value);
      return;
    }
    fail(cls, "model_config is neither ConfigDict(...) nor a dict");
  }

  function applyConfig(cls: PyClass, config: ModelConfig, key: string, value: PyExpr): void {
    if (key === "extra") {
      const extra = stringOf(cls, value, "model_config extra");
      if (extra !== "forbid" && extra !== "allow" && extra !== "ignore")
        fail(cls, `unknown extra '${extra}'`);
      config.extra = extra as Extra;
    } else if (key === "title") {
      config.title = stringOf(cls, value, "model_config title");
    } else if (!CONFIG_KEYS_WITHOUT_SCHEMA.has(key)) {
      fail(cls, `unsupported model_config key '${key}'`);
    }
  }

  /** `Annotated[T, Field(...)]`, written out or through a module alias: its Field's description and title. */
  function annotatedMetadata(cls: PyClass, annotation: PyExpr, seen: Set<string>): Partial<SourceField> {
    const name = dotted(annotation);
    if (name !== undefined) {
      const alias = aliases.get(name);
      if (alias === undefined || seen.has(name)) return {};
      seen.add(name);
      return annotatedMetadata(cls, parse(cls, alias, `the alias ${name}`), seen);
    }
    if (annotation.kind !== "subscript" || !/^(?:typing\.)?Annotated$/.test(dotted(annotation.value) ?? ""))
      return {};
    const metadata: Partial<SourceField> = annotatedMetadata(cls, annotation.index[0]!, seen);
    for (const extra of annotation.index.slice(1)) {
      if (!isFieldCall(extra)) fail(cls, "Annotated metadata other than Field(...) is not supported");
      const call = extra as Extract<PyExpr, { kind: "call" }>;
      if (call.args.length > 0) fail(cls, "a default inside Annotated[..., Field(...)] is not supported");
      for (const [key, value] of call.keywords) {
        if (key === "description") metadata.description = stringOf(cls, value, "description");
        else if (key === "title") metadata.title = stringOf(cls, value, "title");
        else if (!FIELD_KEYWORDS_WITHOUT_SCHEMA.has(key))
          fail(cls, `unsupported Field keyword '${key}' in Annotated`);
      }
    }
    return metadata;
  }

  function readField(
    cls: PyClass,
    name: string,
    annotationText: string,
    annotation: PyExpr,
    valueText: string | undefined,
  ): SourceField {
    const fromAnnotated = annotatedMetadata(cls, annotation, new Set());
    const field: SourceField = {
      name,
      annotation: annotationText,
      default: undefined,
      description: fromAnnotated.description,
      title: fromAnnotated.title,
    };
    if (valueText === undefined) return field;
    const value = parse(cls, valueText, `the default of ${name}`);
    if (!isFieldCall(value)) {
      field.default = value.kind === "ellipsis" ? undefined : value;
      return field;
    }
    if (value.args.length > 1) fail(cls, `${name}: Field() takes one positional argument`);
    const positional = value.args[0];
    if (positional !== undefined && positional.kind !== "ellipsis") field.default = positional;
    for (const [key, argument] of value.keywords) {
      switch (key) {
        case "default":
          field.default = argument.kind === "ellipsis" ? undefined : argument;
          break;
        case "default_factory":
          field.default = "factory";
          break;
        case "description":
          field.description = stringOf(cls, argument, `${name}: description`);
          break;
        case "title":
          field.title = stringOf(cls, argument, `${name}: title`);
          break;
        default:
          if (!FIELD_KEYWORDS_WITHOUT_SCHEMA.has(key))
            fail(cls, `${name}: unsupported Field keyword '${key}'`);
      }
    }
    return field;
  }

  return read;
}
