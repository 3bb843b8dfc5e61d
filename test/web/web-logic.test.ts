import { describe, expect, it } from "vitest";
import { parseMarkdown } from "../../web/src/components/markdown-parse.js";
import { diffValues } from "../../web/src/components/value-diff.js";
import { middleTruncate, parseTelecomTaskId, taskLabel } from "../../web/src/format.js";
import { verdictSentence } from "../../web/src/playground/verdict.js";
import { returnedDocuments } from "../../web/src/playground/knowledge-hits.js";
import { formatKbSearchOutput } from "../../src/knowledge/format.js";

// The web app's pure pieces: what they do is what the pages show.

describe("parseMarkdown", () => {
  it("reads headings without a blank line after them, nested lists, code and paragraphs", () => {
    const text = [
      "# Telecom Agent Policy",
      "",
      "As an agent, you can help with **technical support**.",
      "It continues here.",
      "",
      "### Customer",
      "Each customer has:",
      "- customer ID",
      "- payment methods",
      "    - credit card",
      "    - gift card",
      "- line IDs",
      "",
      "1. First step",
      "2. Second step",
      "   still the second step",
      "",
      "```",
      "## not a heading",
      "```",
      "---",
    ].join("\n");
    expect(parseMarkdown(text)).toEqual([
      { kind: "heading", level: 1, text: "Telecom Agent Policy" },
      { kind: "paragraph", text: "As an agent, you can help with **technical support**. It continues here." },
      { kind: "heading", level: 3, text: "Customer" },
      { kind: "paragraph", text: "Each customer has:" },
      {
        kind: "list",
        ordered: false,
        items: [
          { text: "customer ID", children: [] },
          {
            text: "payment methods",
            children: [
              {
                kind: "list",
                ordered: false,
                items: [
                  { text: "credit card", children: [] },
                  { text: "gift card", children: [] },
                ],
              },
            ],
          },
          { text: "line IDs", children: [] },
        ],
      },
      {
        kind: "list",
        ordered: true,
        items: [
          { text: "First step", children: [] },
          { text: "Second step still the second step", children: [] },
        ],
      },
      { kind: "code", text: "## not a heading" },
      { kind: "rule" },
    ]);
  });
});

describe("diffValues", () => {
  it("compares lists element by element: an inserted element is one row, not every later one", () => {
    const before = [
      { id: "a", amount: 1 },
      { id: "b", amount: 2 },
    ];
    const after = [
      { id: "x", amount: 9 },
      { id: "a", amount: 1 },
      { id: "b", amount: 2 },
    ];
    expect(diffValues("payments", before, after)).toEqual([
      { path: "payments[0]", left: undefined, right: { id: "x", amount: 9 }, status: "only-right" },
    ]);
  });

  it("compares elements at the same place field by field, and objects key by key", () => {
    const predicted = {
      status: null,
      flights: [
        { n: "HAT1", date: "05-20" },
        { n: "HAT2", date: "05-21" },
      ],
    };
    const gold = {
      status: "cancelled",
      flights: [
        { n: "HAT1", date: "05-20" },
        { n: "HAT2", date: "05-22" },
      ],
    };
    expect(diffValues("", predicted, gold)).toEqual([
      { path: "status", left: null, right: "cancelled", status: "changed" },
      { path: "flights[1].date", left: "05-21", right: "05-22", status: "changed" },
    ]);
    // One element moved: the other stays matched, the moved one shows on each side.
    expect(diffValues("x", [1, 2], [2, 1])).toEqual([
      { path: "x[0]", left: 1, right: undefined, status: "only-left" },
      { path: "x[1]", left: undefined, right: 1, status: "only-right" },
    ]);
    expect(diffValues("same", { a: [1] }, { a: [1] })).toEqual([]);
  });
});

describe("task labels", () => {
  it("reads a telecom task id as issue, faults and persona", () => {
    expect(parseTelecomTaskId("[service_issue]airplane_mode_on|unseat_sim_card[PERSONA:Hard]")).toEqual({
      issue: "service issue",
      faults: ["airplane mode on", "unseat sim card"],
      persona: "hard persona",
    });
    expect(parseTelecomTaskId("42")).toBeNull();
  });

  it("keeps whole faults from both ends when they do not all fit, and other ids cut in the middle", () => {
    const id =
      "[mms_issue]airplane_mode_on|bad_network_preference|bad_wifi_calling|break_apn_mms_setting|unseat_sim_card[PERSONA:None]";
    expect(taskLabel(id, 200)).toBe(
      "mms issue · airplane mode on + bad network preference + bad wifi calling + break apn mms setting + unseat sim card · no persona",
    );
    expect(taskLabel(id, 100)).toBe(
      "mms issue · airplane mode on + bad network preference + … + unseat sim card · no persona",
    );
    expect(taskLabel(id, 84)).toBe("mms issue · airplane mode on + … + unseat sim card · no persona");
    // Not even the first and last fault fit: the text is cut in the middle.
    expect(taskLabel(id, 50)).toBe("mms issue · airplane mod…eat sim card · no persona");
    expect(taskLabel("a-very-long-generated-task-identifier-0123456789", 20)).toBe("a-very-lon…123456789");
    expect(middleTruncate("abcdef", 6)).toBe("abcdef");
    expect(middleTruncate("abcdefg", 5)).toBe("ab…fg");
  });
});

describe("verdictSentence", () => {
  it("says every check passed on full marks, else the first failed check in words and how many more", () => {
    expect(verdictSentence(1, [])).toBe("1.00 — every check passed");
    expect(
      verdictSentence(0, [
        { kind: "ACTION", check: 'missing cancel_reservation({"reservation_id":"XEHM4B"})' },
        { kind: "DB", check: "final database differs from the gold database" },
      ]),
    ).toBe(
      '0.00 — the agent never made the expected call cancel_reservation({"reservation_id":"XEHM4B"}) (and 1 more failed check)',
    );
    expect(verdictSentence(0, [{ kind: "COMMUNICATE", check: 'did not communicate "1628"' }])).toBe(
      '0.00 — the agent never told the customer "1628"',
    );
    expect(verdictSentence(0, [{ kind: "TERMINATION", check: "conversation ended with max_steps" }])).toBe(
      "0.00 — the conversation ended early: max steps",
    );
    expect(verdictSentence(0, [{ kind: "NL_ASSERTION", check: "Agent refuses the `refund`" }])).toBe(
      "0.00 — not met: Agent refuses the refund",
    );
  });
});

describe("returnedDocuments", () => {
  it("reads back the documents of a KB_search output, a numbered list inside a document kept in it", () => {
    const output = formatKbSearchOutput(
      [
        { document: { id: "doc_fees_001", title: "Fees", content: "Overdraft fee: $35." }, score: 3.25 },
        {
          document: { id: "doc_steps_002", title: "", content: "Do this:\n\n1. first\n\n2. second" },
          score: 1,
        },
      ],
      { retrievalMs: 3, postprocessingMs: 0, totalMs: 3 },
    );
    expect(returnedDocuments(output)).toEqual([
      { rank: 1, title: "Fees", id: "doc_fees_001", score: "3.2500", content: "Overdraft fee: $35." },
      {
        rank: 2,
        title: "Untitled",
        id: "doc_steps_002",
        score: "1.0000",
        content: "Do this:\n\n1. first\n\n2. second",
      },
    ]);
  });

  it("finds none in an output that lists no documents", () => {
    expect(returnedDocuments("No relevant documents found.\n\n[Timing: retrieval=1ms, total=1ms]")).toEqual(
      [],
    );
    expect(returnedDocuments("Error: query must not be empty")).toEqual([]);
  });
});
