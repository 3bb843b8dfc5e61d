import { describe, expect, it } from "vitest";
import { moduleTypeAliases, pythonSourceTypes } from "./pydantic-models.js";
import { definitionsJsonSchema } from "./pydantic-schema.js";
import { PythonSourceError } from "../../../python/py-source/errors.js";
import { readPythonModule } from "../../../python/py-source/module.js";

// Small modules of our own: what pydantic 2.13's `model_json_schema()` writes for them is spelled out
// by hand below (key order included, as JSON text).

const defsOf = (source: string, roots: string[]) => {
  const module = readPythonModule(source, "models.py");
  return definitionsJsonSchema(roots, {
    sourceTypes: pythonSourceTypes(module),
    aliases: moduleTypeAliases(module),
  });
};
const text = (value: unknown) => JSON.stringify(value);

const shop = `
from enum import Enum
from typing import ClassVar, Dict, List, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

Size = Literal["s", "m", "l"]
Note = Annotated[str, Field(description="A free note")]


class Colour(str, Enum):
    """Colours we sell.

    Second line.
        Indented more.
    """

    RED = "red"
    GREEN = "green"
    CRIMSON = "red"  # an alias, not a member
    _ignore_ = "x"


class Level(Enum):
    LOW = 1
    HIGH = 2


class Base(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    sku: str = Field(description="Stock keeping unit")
    size: Size = "m"


class Item(Base):
    """An item."""

    KIND: ClassVar[str] = "item"
    _cache: dict = {}

    colour: Colour = Field(Colour.GREEN, description="Its colour.")
    size: Optional[Size] = Field(default=None, title="Item size")
    tags: List[str] = Field(default_factory=list)
    level: Level | None = None
    extras: Dict[str, int] = {}
    note: Note
    parts: list["Part"] = Field(..., description="Parts, in order.")

    def price(self) -> int:
        return 1


class Part(BaseModel, extra="allow"):
    name: str
`;

describe("pydantic models read from source", () => {
  it("fields, defaults, descriptions, titles, config and inheritance, as pydantic writes them", () => {
    const defs = defsOf(shop, ["Item"]);
    expect(Object.keys(defs)).toEqual(["Colour", "Item", "Level", "Part"]);
    expect(text(defs.Item)).toBe(
      text({
        additionalProperties: false,
        description: "An item.",
        properties: {
          sku: { description: "Stock keeping unit", title: "Sku", type: "string" },
          // Overridden in the subclass: a new field, in its base's position.
          size: {
            anyOf: [{ enum: ["s", "m", "l"], type: "string" }, { type: "null" }],
            default: null,
            title: "Item size",
          },
          colour: { $ref: "#/$defs/Colour", default: "green", description: "Its colour." },
          tags: { items: { type: "string" }, title: "Tags", type: "array" },
          level: { anyOf: [{ $ref: "#/$defs/Level" }, { type: "null" }], default: null },
          extras: { additionalProperties: { type: "integer" }, default: {}, title: "Extras", type: "object" },
          note: { description: "A free note", title: "Note", type: "string" },
          parts: {
            description: "Parts, in order.",
            items: { $ref: "#/$defs/Part" },
            title: "Parts",
            type: "array",
          },
        },
        required: ["sku", "note", "parts"],
        title: "Item",
        type: "object",
      }),
    );
    expect(text(defs.Part)).toBe(
      text({
        additionalProperties: true,
        properties: { name: { title: "Name", type: "string" } },
        required: ["name"],
        title: "Part",
        type: "object",
      }),
    );
  });

  it("Enum classes: members in order without aliases, cleaned docstring, value type", () => {
    const defs = defsOf(shop, ["Colour", "Level"]);
    expect(text(defs.Colour)).toBe(
      text({
        description: "Colours we sell.\n\nSecond line.\n    Indented more.",
        enum: ["red", "green"],
        title: "Colour",
        type: "string",
      }),
    );
    expect(text(defs.Level)).toBe(text({ enum: [1, 2], title: "Level", type: "integer" }));
  });

  it("τ²'s BaseModelNoExtra forbids extra fields; model_config as a dict and a title", () => {
    const defs = defsOf(
      `
class Settings(BaseModelNoExtra):
    """
    Settings.
    """
    on: bool = False


class Named(BaseModel):
    model_config = {"title": "Other name", "extra": "ignore"}
    x: int = -3
`,
      ["Settings", "Named"],
    );
    expect(text(defs.Settings)).toBe(
      text({
        additionalProperties: false,
        description: "Settings.",
        properties: { on: { default: false, title: "On", type: "boolean" } },
        title: "Settings",
        type: "object",
      }),
    );
    expect(text(defs.Named)).toBe(
      text({
        properties: { x: { default: -3, title: "X", type: "integer" } },
        title: "Other name",
        type: "object",
      }),
    );
  });

  it("reads only the classes it is asked for", () => {
    const source = `
class Needed(BaseModel):
    a: str


class Opaque(SomethingElse):
    rows: dict = Field(default_factory=lambda: {"a": 1})
`;
    expect(Object.keys(defsOf(source, ["Needed"]))).toEqual(["Needed"]);
    expect(() => defsOf(source, ["Opaque"])).toThrow(/class Opaque: unsupported base class 'SomethingElse'/);
  });

  it.each([
    ["a Field keyword that changes the schema", "class M(BaseModel):\n    a: int = Field(ge=0)\n", /'ge'/],
    ["a Field alias", 'class M(BaseModel):\n    a: int = Field(alias="b")\n', /'alias'/],
    [
      "an unknown config key",
      "class M(BaseModel):\n    model_config = ConfigDict(json_schema_extra={})\n    a: int\n",
      /json_schema_extra/,
    ],
    ["a non-annotated attribute", "class M(BaseModel):\n    a = 1\n", /non-annotated attribute a/],
    [
      "a default that is not a literal",
      "class M(BaseModel):\n    a: int = compute()\n",
      /unsupported default value/,
    ],
    ["a computed Enum value", "class E(Enum):\n    A = auto()\n", /unsupported Enum member value/],
    ["a decorated class", "@dataclass\nclass M(BaseModel):\n    a: int\n", /decorators/],
  ])("refuses %s rather than guess", (_, source, message) => {
    const name = source.includes("class E") ? "E" : "M";
    expect(() => defsOf(source, [name])).toThrow(message);
  });

  it("errors are PythonSourceErrors naming file, line and class", () => {
    const module = readPythonModule("\n\nclass M(Unknown):\n    a: int\n", "models.py");
    let error: unknown;
    try {
      pythonSourceTypes(module)("M");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(PythonSourceError);
    expect((error as PythonSourceError).message).toMatch(/^models\.py:3: class M: /);
    expect((error as PythonSourceError).item).toBe("M");
  });

  it("a name that is not a model or an Enum is no `$defs` entry", () => {
    expect(() => defsOf(shop, ["Size"])).toThrow(/Size is not a model or an Enum class/);
    expect(pythonSourceTypes(readPythonModule(shop, "m.py"))("Missing")).toBeUndefined();
  });
});
