import { describe, expect, it } from "vitest";
import { cleandoc, docstringParamMap, parseDocstring } from "./py-docstring.js";

describe("cleandoc", () => {
  it("strips the first line, removes the common margin and blank edges", () => {
    expect(cleandoc("  First.\n\n      Indented more.\n    Body.\n    ")).toBe(
      "First.\n\n  Indented more.\nBody.",
    );
    expect(cleandoc("\n\n    Only body.\n\n")).toBe("Only body.");
    expect(cleandoc("A\n\tB")).toBe("A\nB");
  });

  it("keeps a whitespace line deeper than the margin", () => {
    expect(cleandoc("A\n    B\n        ")).toBe("A\nB\n    ");
  });
});

describe("Google-style docstrings", () => {
  const doc = parseDocstring(`Fetch the widget.

    Longer story
      with an indented line.

    Args:
        widget_id (str): The widget id.
        verbose: Whether to talk.
            Continued here,
              and indented deeper.
        mode (int, optional): The mode. Defaults to 3.

    Returns:
        The widget.

    Raises:
        ValueError: If missing.
    `);

  it("splits short and long descriptions", () => {
    expect(doc.style).toBe("google");
    expect(doc.shortDescription).toBe("Fetch the widget.");
    expect(doc.longDescription).toBe("Longer story\n  with an indented line.");
  });

  it("reads parameters with types, optional flags, defaults and multi-line descriptions", () => {
    expect(doc.params).toEqual([
      {
        argName: "widget_id",
        typeName: "str",
        description: "The widget id.",
        isOptional: false,
        default: null,
      },
      {
        argName: "verbose",
        typeName: null,
        // cleandoc of the continuation lines: its first line loses all its indentation.
        description: "Whether to talk.\nContinued here,\nand indented deeper.",
        isOptional: null,
        default: null,
      },
      {
        argName: "mode",
        typeName: "int",
        description: "The mode. Defaults to 3.",
        isOptional: true,
        default: "3",
      },
    ]);
    expect(doc.meta.map((m) => m.key)).toEqual(["param", "param", "param", "returns", "raises"]);
    expect(doc.meta[3]!.description).toBe("The widget.");
    expect(doc.meta[4]).toEqual({ key: "raises", description: "If missing.", typeName: "ValueError" });
  });

  it("ends a section at a non-indented line", () => {
    const parsed = parseDocstring("Do.\n\nArgs:\n    a: First.\nTrailing words.\n    b: Ignored.\n");
    expect(docstringParamMap(parsed).has("b")).toBe(false);
    expect(parsed.params.map((p) => p.argName)).toEqual(["a"]);
  });

  it("needs the title alone on its line", () => {
    const parsed = parseDocstring("Do.\n\nArgs: none here\n");
    expect(parsed.meta).toEqual([]);
    expect(parsed.longDescription).toBe("Args: none here");
  });
});

describe("AUTO style", () => {
  it("a docstring without sections is all description", () => {
    const doc = parseDocstring("\n    One line.\n    Second line.\n    ");
    expect(doc.shortDescription).toBe("One line.");
    expect(doc.longDescription).toBe("Second line.");
  });

  it("falls back when the Google parser fails (an argument without a colon)", () => {
    const doc = parseDocstring("Do.\n\nArgs:\n    a the thing\n");
    expect(doc.style).toBe("rest");
    expect(doc.params).toEqual([]);
    expect(doc.longDescription).toBe("Args:\n    a the thing");
  });

  it("prefers reST when it finds more fields, and on a tie", () => {
    const rest = parseDocstring("Do.\n\n:param a: First.\n:param int b: Second.\n");
    expect(rest.style).toBe("rest");
    expect(rest.params.map((p) => [p.argName, p.typeName, p.description])).toEqual([
      ["a", null, "First."],
      ["b", "int", "Second."],
    ]);
    const tie = parseDocstring("Do.\n\nReturns:\n    Something.\n:note: one field\n");
    expect(tie.style).toBe("rest");
  });

  it("no docstring: no descriptions; a short one alone has no long description", () => {
    const none = parseDocstring(undefined);
    expect([none.shortDescription, none.longDescription, none.params]).toEqual([null, null, []]);
    const short = parseDocstring("Only short.\n\n");
    expect([short.shortDescription, short.longDescription]).toEqual(["Only short.", null]);
  });
});
