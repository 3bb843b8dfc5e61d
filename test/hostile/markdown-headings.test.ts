import { describe, expect, it } from "vitest";
import { parseMarkdown } from "../../web/src/components/markdown-parse.js";

// Every text the web app renders as Markdown (a task's persona in an uploaded results file, a policy,
// knowledge-base hits) comes from someone else. A line built to make the heading pattern backtrack
// (a heading of thousands of spaces) once froze every viewer's tab; it is parsed in one pass now.

const spaces = (n: number) => " ".repeat(n);

describe("headings an uploader wrote to freeze the page", () => {
  it.each([
    [
      "a heading padded with 20,000 spaces before its last word",
      `# a${spaces(20_000)}b`,
      `a${spaces(20_000)}b`,
    ],
    ["20,000 spaces then closing #s", `## a${spaces(20_000)}###`, "a"],
    ["20,000 tabs and spaces, no text after", `### a${"\t ".repeat(10_000)}`, "a"],
    ["a heading of 50,000 #s after its marker", `# ${"#".repeat(50_000)}`, ""],
    ["a heading of alternating spaces and #s", `# a${" #".repeat(20_000)}x`, `a${" #".repeat(20_000)}x`],
  ])("%s: parsed, with its text", (_what, line, text) => {
    expect(parseMarkdown(`${line}\n\nafter`)).toEqual([
      { kind: "heading", level: line.indexOf(" "), text },
      { kind: "paragraph", text: "after" },
    ]);
  });

  it.each([
    ["# Title", "Title"],
    ["## Title ##", "Title"],
    ["### Title #####   ", "Title"],
    ["# C#", "C#"],
    ["#   spaced   ", "spaced"],
    ["# #", ""],
  ])("%j keeps the meaning of a heading: %j", (line, text) => {
    expect(parseMarkdown(line)[0]).toEqual({ kind: "heading", level: line.indexOf(" "), text });
  });
});
