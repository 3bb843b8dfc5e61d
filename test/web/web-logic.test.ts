import { describe, expect, it } from "vitest";
import { parseMarkdown } from "../../web/src/components/markdown-parse.js";
import { diffValues } from "../../web/src/components/value-diff.js";
import { middleTruncate, parseTelecomTaskId, taskLabel } from "../../web/src/format.js";
import { verdictSentence } from "../../web/src/playground/verdict.js";
import { returnedDocuments } from "../../web/src/playground/knowledge-hits.js";
import { formatKbSearchOutput } from "../../src/knowledge/format.js";
import { agentWrote, describeValue, touchedRecords } from "../../web/src/playground/world-records.js";
import type { SequencedEvent } from "../../src/server/api-schemas.js";

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

describe("the records in play (world cards)", () => {
  const reservation = (cabin: string, status: string | null = null) => ({
    reservation_id: "GV1N64",
    cabin,
    status,
    flights: [{ flight_number: "HAT003", origin: "LAS", destination: "DEN", date: "2024-05-19", price: 561 }],
  });
  const call = (
    name: string,
    args: Record<string, unknown>,
    requestor: "assistant" | "user" = "assistant",
  ) => ({
    call: { id: name, name, arguments: args, requestor },
    result: { id: name, role: "tool" as const, content: "{}", requestor, error: false },
    latencyMs: 1,
  });
  const events: SequencedEvent[] = [
    {
      seq: 0,
      type: "tool-call-end",
      ...call("get_reservation_details", { reservation_id: "GV1N64" }),
      records: [
        { collection: "reservations", id: "GV1N64", record: reservation("business") },
        { collection: "users", id: "james_1", record: { name: "James" } },
      ],
    },
    {
      seq: 1,
      type: "tool-call-end",
      ...call("get_order_details", { order_id: "#W1" }),
      records: [{ collection: "orders", id: "#W1", record: { order_id: "#W1", status: "pending" } }],
    },
    {
      seq: 2,
      type: "world-change",
      side: "agent",
      records: [
        {
          collection: "reservations",
          id: "GV1N64",
          kind: "changed",
          fields: [{ path: "cabin", before: "business", after: "economy" }],
        },
      ],
      current: [{ collection: "reservations", id: "GV1N64", record: reservation("economy") }],
    },
    {
      seq: 3,
      type: "world-change",
      side: "agent",
      records: [
        {
          collection: "reservations",
          id: "GV1N64",
          kind: "changed",
          fields: [
            { path: "cabin", before: "economy", after: "basic_economy" },
            { path: "status", before: null, after: "cancelled" },
          ],
        },
      ],
      current: [
        { collection: "reservations", id: "GV1N64", record: reservation("basic_economy", "cancelled") },
      ],
    },
  ];

  it("keeps each record of the shown collections whole, newest touched first, with changes from first before to last after", () => {
    const touched = touchedRecords(events, new Set(["reservations", "orders"]));
    expect(touched.map((t) => t.id)).toEqual(["GV1N64", "#W1"]);
    expect(touched[0]!.record).toEqual(reservation("basic_economy", "cancelled"));
    expect(touched[0]!.changes).toEqual([
      { path: "cabin", before: "business", after: "basic_economy" },
      { path: "status", before: null, after: "cancelled" },
    ]);
    expect(touched[1]!.changes).toEqual([]);
    // A field changed back where it started is no change.
    const back: SequencedEvent = {
      seq: 4,
      type: "world-change",
      side: "agent",
      records: [
        {
          collection: "reservations",
          id: "GV1N64",
          kind: "changed",
          fields: [{ path: "cabin", before: "basic_economy", after: "business" }],
        },
      ],
    };
    expect(
      touchedRecords([...events, back], new Set(["reservations"]))[0]!.changes.map((c) => c.path),
    ).toEqual(["status"]);
  });

  it("marks a record the conversation created as new, without a before", () => {
    const booked: SequencedEvent = {
      seq: 0,
      type: "world-change",
      side: "agent",
      records: [
        {
          collection: "reservations",
          id: "NEW111",
          kind: "added",
          fields: [{ path: "cabin", before: null, after: "economy" }],
        },
      ],
      current: [{ collection: "reservations", id: "NEW111", record: reservation("economy") }],
    };
    expect(touchedRecords([booked], new Set(["reservations"]))).toEqual([
      {
        collection: "reservations",
        id: "NEW111",
        record: reservation("economy"),
        changes: [],
        added: true,
        seq: 0,
      },
    ]);
  });

  it("tells whether the agent called a write tool (the customer's own calls do not count)", () => {
    const writes = new Set(["cancel_reservation"]);
    expect(agentWrote(events, writes)).toBe(false);
    const customer: SequencedEvent = {
      seq: 9,
      type: "tool-call-end",
      ...call("cancel_reservation", {}, "user"),
    };
    expect(agentWrote([...events, customer], writes)).toBe(false);
    const agent: SequencedEvent = {
      seq: 9,
      type: "tool-call-end",
      ...call("cancel_reservation", { reservation_id: "GV1N64" }),
    };
    expect(agentWrote([...events, agent], writes)).toBe(true);
  });

  it("says flights, passengers, payments and items by what names them", () => {
    expect(
      describeValue([
        { flight_number: "HAT003", origin: "LAS", destination: "DEN", date: "2024-05-19", price: 561 },
      ]),
    ).toBe("HAT003 LAS→DEN 2024-05-19");
    expect(describeValue({ first_name: "Ann", last_name: "Lee", dob: "1990-01-01" })).toBe("Ann Lee");
    expect(
      describeValue({ transaction_type: "refund", amount: 12.5, payment_method_id: "gift_card_1" }),
    ).toBe("refund $12.5 gift_card_1");
    expect(describeValue({ payment_id: "credit_card_7", amount: 1339 })).toBe("$1,339 credit_card_7");
    expect(describeValue("basic_economy")).toBe("basic economy");
    expect(describeValue(null)).toBe("—");
  });
});
