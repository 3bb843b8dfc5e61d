import { describe, expect, it } from "vitest";
import { fillTemplate, parseTemplate } from "./fill-template.js";

describe("templates", () => {
  it("fills {placeholders} and reads {{ }} as literal braces, like str.format", () => {
    expect(fillTemplate("You are {name} ({{id}}: {id}).", { name: "Ada", id: "M1" })).toBe(
      "You are Ada ({id}: M1).",
    );
  });

  it("points at braces that are not placeholders", () => {
    expect(parseTemplate("a { b")).toEqual({
      error: '"{" at character 2 does not start a {placeholder}; write "{{" for a literal brace',
    });
    expect(parseTemplate("a } b")).toEqual({
      error: 'single "}" at character 2; write "}}" for a literal brace',
    });
  });

  it("refuses a placeholder without a value", () => {
    expect(() => fillTemplate("{missing}", {})).toThrow("template placeholder {missing} has no value");
  });
});
