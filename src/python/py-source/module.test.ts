import { describe, expect, it } from "vitest";
import { PythonSyntaxError } from "./errors.js";
import { parsePythonExpression } from "./expression.js";
import { readPythonModule } from "./module.js";

const stringOf = (source: string, name = "X") => {
  const value = readPythonModule(source, "m.py").assignments.get(name);
  if (value?.kind !== "string") throw new Error(`${name} is not a string: ${JSON.stringify(value)}`);
  return value.value;
};

describe("string constants", () => {
  it("triple-quoted with .strip()", () => {
    expect(stringOf('X = """\n  Hello {name}\n  bye\n""".strip()\n')).toBe("Hello {name}\n  bye");
    expect(stringOf("X = '''\ta b\t'''.rstrip()")).toBe("\ta b");
  });

  it("implicit concatenation, parenthesised and across lines", () => {
    expect(
      stringOf(
        'X = (\n    "one "  # a comment with "quotes" and (brackets\n    \'two\'\n    """ three"""\n)',
      ),
    ).toBe("one two three");
    expect(stringOf('X = "a" "b"')).toBe("ab");
  });

  it("escapes", () => {
    expect(stringOf(String.raw`X = "t\tn\nb\\q\'d\"x\x41u\u00e9U\U0001F600o\101\7z"`)).toBe(
      "t\tn\nb\\q'd\"xAu\u00e9U\u{1F600}oA\x07z",
    );
    expect(stringOf('X = "one \\\ntwo"')).toBe("one two");
    expect(stringOf(String.raw`X = "keep \d and \w"`)).toBe("keep \\d and \\w");
  });

  it("prefixes", () => {
    expect(stringOf(String.raw`X = r"a\nb\"c"`)).toBe('a\\nb\\"c');
    expect(stringOf(String.raw`X = R'\x41'`)).toBe("\\x41");
    expect(stringOf('X = u"plain"')).toBe("plain");
    expect(stringOf('X = f"no fields {{here}}"')).toBe("no fields {here}");
    expect(stringOf('X = rf"{{\\n}}"')).toBe("{\\n}");
    const module = readPythonModule('Y = f"{name}!"\nZ = b"bytes"\n', "m.py");
    expect(module.assignments.get("Y")).toEqual({ kind: "expression", text: 'f"{name}!"' });
    expect(module.assignments.get("Z")).toEqual({ kind: "expression", text: 'b"bytes"' });
  });

  it("keeps other values as source text", () => {
    const module = readPythonModule(
      'Reason = Literal[\n    "a",  # first\n    # "commented",\n    "b",\n]\nP = DIR / "x.md"\nN: int = -1\n',
      "m.py",
    );
    expect(module.assignments.get("Reason")).toEqual({ kind: "expression", text: 'Literal["a", "b",]' });
    expect(module.assignments.get("P")).toEqual({ kind: "expression", text: 'DIR / "x.md"' });
    expect(module.assignments.get("N")).toEqual({ kind: "expression", text: "-1" });
  });
});

const toolkit = `
"""Module docstring."""
from typing import Optional

# class Commented:
#     pass


class Kit(Base, metaclass=Meta):  # trailing comment
    """Kit docstring."""

    STOP = "done"
    LABEL: str = 'x # not a comment'

    def __init__(self, db) -> None:
        super().__init__(db)

    @is_tool(ToolType.READ)
    def lookup(self, key: str, mode: Literal["a", "b)"] = "a,#", *args, limit: int = 3, **kwargs) -> str:
        """Look something up.

        Args:
            key: The key.
        """
        return key

    # @is_tool(ToolType.WRITE)
    # def hidden(self) -> str:
    #     """Commented out."""

    @staticmethod
    def helper(value: Optional[
        Dict[str, int]
    ] = None,
    ) -> Dict[
        str, int
    ]:
        return {}

    @decorated(
        "multi-line",
        flag=True,
    )
    def outer(self) -> None:
        """Outer."""
        if True:
            def inner(a, b: int = 2) -> str:
                'Inner docstring.'
                return ""
        def second(): pass

    def one_liner(self): """Inline docstring."""
`;

describe("classes and methods", () => {
  const module = readPythonModule(toolkit, "kit.py");
  const kit = module.classes[0]!;

  it("reads the class header, docstring and constants", () => {
    expect(module.docstring).toBe("Module docstring.");
    expect(module.classes.map((c) => c.name)).toEqual(["Kit"]);
    expect(kit.bases).toBe("Base, metaclass=Meta");
    expect(kit.docstring).toBe("Kit docstring.");
    expect(kit.constants.get("STOP")).toEqual({ kind: "string", value: "done" });
    expect(kit.constants.get("LABEL")).toEqual({ kind: "string", value: "x # not a comment" });
  });

  it("lists methods in source order, without commented-out code", () => {
    expect(kit.methods.map((m) => m.name)).toEqual(["__init__", "lookup", "helper", "outer", "one_liner"]);
  });

  it("reads decorators, parameters and return annotations", () => {
    const lookup = kit.methods[1]!;
    expect(lookup.decorators).toEqual(["is_tool(ToolType.READ)"]);
    expect(lookup.parameters).toEqual([
      { name: "key", annotation: "str", default: undefined },
      { name: "mode", annotation: 'Literal["a", "b)"]', default: '"a,#"' },
      { name: "limit", annotation: "int", default: "3" },
    ]);
    expect(lookup.returns).toBe("str");
    expect(lookup.docstring).toBe("Look something up.\n\n        Args:\n            key: The key.\n        ");

    const helper = kit.methods[2]!;
    expect(helper.decorators).toEqual(["staticmethod"]);
    expect(helper.parameters).toEqual([
      { name: "value", annotation: "Optional[Dict[str, int]]", default: "None" },
    ]);
    expect(helper.returns).toBe("Dict[str, int]");
    expect(helper.docstring).toBeUndefined();
  });

  it("finds nested functions and inline docstrings", () => {
    const outer = kit.methods[3]!;
    expect(outer.decorators).toEqual(['decorated("multi-line", flag=True,)']);
    expect(outer.docstring).toBe("Outer.");
    expect(outer.nested.map((f) => f.name)).toEqual(["inner", "second"]);
    expect(outer.nested[0]!.docstring).toBe("Inner docstring.");
    expect(outer.nested[0]!.parameters).toEqual([
      { name: "a", annotation: undefined, default: undefined },
      { name: "b", annotation: "int", default: "2" },
    ]);
    expect(kit.methods[4]!.docstring).toBe("Inline docstring.");
  });
});

describe("expressions and errors", () => {
  it("parses annotations", () => {
    expect(parsePythonExpression("List[FlightInfo | dict]")).toEqual({
      kind: "subscript",
      value: { kind: "name", id: "List" },
      index: [
        {
          kind: "binop",
          op: "|",
          left: { kind: "name", id: "FlightInfo" },
          right: { kind: "name", id: "dict" },
        },
      ],
    });
  });

  it("reports syntax errors with file and line", () => {
    expect(() => readPythonModule('X = 1\nY = "open\n', "bad.py")).toThrow(PythonSyntaxError);
    expect(() => readPythonModule('X = 1\nY = "open\n', "bad.py")).toThrow(/bad\.py:2: unterminated string/);
    expect(() => readPythonModule("X = (1,\n", "bad.py")).toThrow(/was never closed/);
    expect(() => readPythonModule("def f():\n    x = 1\n  y = 2\n", "bad.py")).toThrow(/bad\.py:3: unindent/);
  });
});

describe("class members", () => {
  it("lists assignments and annotated names in order, with annotation and value as source text", () => {
    const module = readPythonModule(
      `
class Model(Base):
    """Doc."""

    model_config = ConfigDict(extra="forbid")
    a: int
    b: Optional[
        str
    ] = Field(
        None,
        description="""Two
lines.""",
    )
    C = D = "x"
    if TYPE_CHECKING:
        hidden: int

    def method(self) -> None:
        inner: int = 1
`,
      "m.py",
    );
    const members = module.classes[0]!.members.map(({ name, annotation, value }) => ({
      name,
      annotation,
      value,
    }));
    expect(members).toEqual([
      { name: "model_config", annotation: undefined, value: 'ConfigDict(extra="forbid")' },
      { name: "a", annotation: "int", value: undefined },
      { name: "b", annotation: "Optional[str]", value: 'Field(None, description="""Two\nlines.""",)' },
      { name: "C", annotation: undefined, value: '"x"' },
      { name: "D", annotation: undefined, value: '"x"' },
    ]);
    // A value keeps its string literals' line breaks when parsed again.
    const field = parsePythonExpression(module.classes[0]!.members[2]!.value!);
    expect(field.kind === "call" && field.keywords[0]![1]).toEqual({
      kind: "string",
      value: "Two\nlines.",
      bytes: false,
    });
  });
});
