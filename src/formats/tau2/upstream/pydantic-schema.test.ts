import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  parametersJsonSchema,
  pythonTitle,
  sortLikePydantic,
  type SchemaParameter,
} from "./pydantic-schema.js";

const param = (
  name: string,
  annotation?: string,
  defaultText?: string,
  description?: string,
): SchemaParameter => ({
  name,
  annotation,
  default: defaultText,
  description,
});
const text = (value: unknown) => JSON.stringify(value);

describe("titles and key order", () => {
  it("Python's str.title()", () => {
    expect(pythonTitle("mms apn")).toBe("Mms Apn");
    expect(pythonTitle("abc2def")).toBe("Abc2Def");
    expect(pythonTitle("KB search")).toBe("Kb Search");
    expect(pythonTitle("don't")).toBe("Don'T");
  });

  it("sorts keys except under properties and default", () => {
    const sorted = sortLikePydantic({
      type: "object",
      properties: { b: { type: "x", a: 1 }, a: {} },
      default: { z: 1, a: 2 },
    });
    expect(text(sorted)).toBe(
      text({ default: { z: 1, a: 2 }, properties: { b: { a: 1, type: "x" }, a: {} }, type: "object" }),
    );
  });
});

describe("parameter schemas", () => {
  it("builtins, defaults, descriptions and required", () => {
    const schema = parametersJsonSchema([
      param("user_id", "str", undefined, "The id."),
      param("count", "int", "12"),
      param("ratio", "float", "-1.5"),
      param("flag", "bool", "True"),
      param("note", "str", "None"),
      param("args", "str", "'{}'"),
      param("anything"),
    ]);
    expect(text(schema)).toBe(
      text({
        properties: {
          user_id: { description: "The id.", title: "User Id", type: "string" },
          count: { default: 12, title: "Count", type: "integer" },
          ratio: { default: -1.5, title: "Ratio", type: "number" },
          flag: { default: true, title: "Flag", type: "boolean" },
          note: { default: null, title: "Note", type: "string" },
          args: { default: "{}", title: "Args", type: "string" },
          anything: { title: "Anything" },
        },
        required: ["user_id", "anything"],
        title: "parameters",
        type: "object",
      }),
    );
  });

  it("no parameters", () => {
    expect(text(parametersJsonSchema([]))).toBe(
      text({ properties: {}, title: "parameters", type: "object" }),
    );
  });

  it("typing forms", () => {
    const schema = parametersJsonSchema([
      param("a", "Optional[int]", "None"),
      param("b", "List[str]"),
      param("c", "Dict[str, Any]"),
      param("d", "dict[str, int]"),
      param("e", "Union[str, int, None]"),
      param("f", 'Literal["x", "y"]'),
      param("g", 'Literal["only"]'),
      param("h", "Literal[1, 2]"),
      param("i", "str | None", "None"),
      param("j", "list"),
    ]);
    const properties = schema.properties as Record<string, unknown>;
    expect(properties.a).toEqual({
      anyOf: [{ type: "integer" }, { type: "null" }],
      default: null,
      title: "A",
    });
    expect(properties.b).toEqual({ items: { type: "string" }, title: "B", type: "array" });
    expect(properties.c).toEqual({ additionalProperties: true, title: "C", type: "object" });
    expect(properties.d).toEqual({ additionalProperties: { type: "integer" }, title: "D", type: "object" });
    expect(properties.e).toEqual({
      anyOf: [{ type: "string" }, { type: "integer" }, { type: "null" }],
      title: "E",
    });
    expect(properties.f).toEqual({ enum: ["x", "y"], title: "F", type: "string" });
    expect(properties.g).toEqual({ const: "only", title: "G", type: "string" });
    expect(properties.h).toEqual({ enum: [1, 2], title: "H", type: "integer" });
    expect(properties.i).toEqual({
      anyOf: [{ type: "string" }, { type: "null" }],
      default: null,
      title: "I",
    });
    expect(properties.j).toEqual({ items: {}, title: "J", type: "array" });
  });

  it("module aliases and zod types", () => {
    const Color = z.enum(["red", "blue"]).meta({ id: "ColorTest" });
    const Shade = z.enum(["dark", "light"]);
    const Point = z
      .strictObject({
        x: z.int().describe("passk's words, never shown"),
        color: Color.default("red"),
        label: z.string().nullable().default(null),
        shade: Shade,
      })
      .meta({ id: "PointTest", description: "passk's words" });
    const types = new Map<string, z.ZodType>([
      ["Color", Color],
      ["Shade", Shade],
      ["Point", Point],
    ]);
    const schema = parametersJsonSchema(
      [
        param("kind", "Kind", '"b"', "Which kind."),
        param("color", "Color", undefined, "The color."),
        param("maybe", "Optional[Point]", "None"),
        param("points", "List[Point | dict]"),
        param("shade", "Shade"),
      ],
      { types, aliases: new Map([["Kind", 'Literal["a", "b"]']]) },
    );
    expect(text(schema)).toBe(
      text({
        $defs: {
          ColorTest: { enum: ["red", "blue"], title: "ColorTest", type: "string" },
          PointTest: {
            additionalProperties: false,
            properties: {
              x: { title: "X", type: "integer" },
              color: { $ref: "#/$defs/ColorTest", default: "red" },
              label: { anyOf: [{ type: "string" }, { type: "null" }], default: null, title: "Label" },
              shade: { enum: ["dark", "light"], title: "Shade", type: "string" },
            },
            required: ["x", "shade"],
            title: "PointTest",
            type: "object",
          },
        },
        properties: {
          kind: { default: "b", description: "Which kind.", enum: ["a", "b"], title: "Kind", type: "string" },
          color: { $ref: "#/$defs/ColorTest", description: "The color." },
          maybe: { anyOf: [{ $ref: "#/$defs/PointTest" }, { type: "null" }], default: null },
          points: {
            items: { anyOf: [{ $ref: "#/$defs/PointTest" }, { additionalProperties: true, type: "object" }] },
            title: "Points",
            type: "array",
          },
          shade: { enum: ["dark", "light"], title: "Shade", type: "string" },
        },
        required: ["color", "points", "shade"],
        title: "parameters",
        type: "object",
      }),
    );
  });

  it("names what it cannot resolve", () => {
    expect(() => parametersJsonSchema([param("x", "Mystery")], { context: "kit.py: tool" })).toThrow(
      /kit\.py: tool: unknown type 'Mystery'/,
    );
    expect(() => parametersJsonSchema([param("x", "int", "make()")])).toThrow(
      /unsupported default value 'make\(\)'/,
    );
  });
});
