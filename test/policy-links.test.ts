import { describe, expect, it } from "vitest";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import {
  POLICY_LINK_THRESHOLD,
  createPolicyLinker,
  isRefusal,
  policyPassages,
  stem,
} from "../src/knowledge/index.js";
import type { Message } from "../src/core/message.js";
import { toolSummaries } from "../src/server/domain-views.js";
import { simulationPolicyLinks } from "../src/server/policy-links.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";

// Linking actions to the policy passage they exercise: the passage split, then BM25 over passages and
// headings. The tables are the measurement behind POLICY_LINK_THRESHOLD.

const domainData = (name: string) => new DomainData(builtinDomains.get(name)!, tau2DataDir());

function linkerFor(name: string) {
  const data = domainData(name);
  const linker = createPolicyLinker(data.policy);
  const tools = toolSummaries(data.domain, data.config).filter((tool) => tool.side === "agent");
  const link = (toolName: string) => {
    const tool = tools.find((t) => t.name === toolName)!;
    const properties = (tool.parameters as { properties?: Record<string, unknown> }).properties ?? {};
    return linker.linkToolCall({
      name: tool.name,
      description: tool.description,
      argumentNames: Object.keys(properties),
    });
  };
  const text = (l: { start: number; end: number } | null) => (l ? data.policy.slice(l.start, l.end) : null);
  return { data, linker, tools, link, text };
}

describe("policyPassages", () => {
  it("splits at headings and blank lines, keeps a list with the line introducing it, and covers tags", () => {
    const policy = [
      "<main_policy>",
      "# Policy",
      "",
      "Intro line one.",
      "Intro line two.",
      "",
      "## Cancel flight",
      "",
      "Otherwise, a flight can be cancelled if:",
      "",
      "- booked today",
      "- business class",
      "",
      "Refund: in 5 days.",
      "</main_policy>",
      "### Loose",
      "text",
    ].join("\n");
    const passages = policyPassages(policy);
    expect(passages.map((p) => policy.slice(p.start, p.end))).toEqual([
      "Intro line one.\nIntro line two.",
      "Otherwise, a flight can be cancelled if:\n\n- booked today\n- business class",
      "Refund: in 5 days.",
      "text",
    ]);
    expect(passages.map((p) => p.headings)).toEqual([
      ["Main policy", "Policy"],
      ["Main policy", "Policy", "Cancel flight"],
      ["Main policy", "Policy", "Cancel flight"],
      ["Loose"],
    ]);
    expect(passages.map((p) => p.index)).toEqual([0, 1, 2, 3]);
  });

  it("passages never overlap and are never blank, on every τ² policy", () => {
    for (const name of ["airline", "retail", "telecom", "banking_knowledge"]) {
      const { policy } = domainData(name);
      const passages = policyPassages(policy);
      expect(passages.length).toBeGreaterThan(10);
      passages.forEach((p, i) => {
        expect(policy.slice(p.start, p.end).trim()).not.toBe("");
        if (i > 0) expect(p.start).toBeGreaterThan(passages[i - 1]!.end);
      });
    }
  });
});

describe("stem", () => {
  it("meets inflections of one word", () => {
    expect(new Set(["cancel", "cancelled", "cancellation", "cancelling"].map(stem))).toEqual(
      new Set(["cancel"]),
    );
    expect(stem("compensation")).toBe(stem("compensate"));
    expect(stem("modified")).toBe(stem("modify"));
  });
});

/** Each write tool → the section (last heading) and a phrase of the passage it links to; null: no link. */
const AIRLINE_WRITES: Record<string, [string, string] | null> = {
  book_reservation: ["Book flight", "free checked bag"],
  cancel_reservation: ["Cancel flight", "flight can be cancelled if any of the following is true"],
  update_reservation_baggages: ["Modify flight", "Change baggage and insurance"],
  update_reservation_flights: ["Modify flight", "Change cabin"],
  update_reservation_passengers: ["Modify flight", "Change passengers"],
  // Its words (a certificate, a payment method) are the booking rules': a link there would be wrong,
  // and it scores under the threshold.
  send_certificate: null,
};
const RETAIL_WRITES: Record<string, [string, string] | null> = {
  cancel_pending_order: ["Cancel pending order", "order status will be changed to 'cancelled'"],
  exchange_delivered_order_items: [
    "Exchange delivered order",
    "can only be exchanged if its status is 'delivered'",
  ],
  modify_pending_order_address: ["Modify pending order", "modify its shipping address"],
  modify_pending_order_items: ["Modify items", "each item can be modified"],
  modify_pending_order_payment: ["Modify payment", "order status will be kept as 'pending'"],
  modify_user_address: ["User", "default address"],
  return_delivered_order_items: ["Return delivered order", "status will be changed to 'return requested'"],
};

describe("linkToolCall", () => {
  it.each([
    ["airline", AIRLINE_WRITES],
    ["retail", RETAIL_WRITES],
  ] as const)("links every %s write tool to its section", (domain, table) => {
    const { tools, link, text } = linkerFor(domain);
    const writes = tools.filter((tool) => tool.kind === "write").map((tool) => tool.name);
    expect(writes.sort()).toEqual(Object.keys(table).sort());
    for (const [tool, want] of Object.entries(table)) {
      const got = link(tool);
      if (want === null) {
        expect(got, tool).toBeNull();
        continue;
      }
      expect(got?.section.split(" › ").at(-1), tool).toBe(want[0]);
      expect(text(got), tool).toContain(want[1]);
      expect(got!.score).toBeGreaterThanOrEqual(POLICY_LINK_THRESHOLD);
    }
  });

  it("gives no link for tools the policy never speaks of", () => {
    const airline = linkerFor("airline");
    const retail = linkerFor("retail");
    for (const tool of ["calculate", "list_all_airports", "search_onestop_flight"])
      expect(airline.link(tool), tool).toBeNull();
    expect(retail.link("calculate")).toBeNull();
  });

  it("links read tools to what the policy says of their records, and telecom's writes to their sections", () => {
    const airline = linkerFor("airline");
    expect(airline.link("get_reservation_details")?.section).toMatch(/Domain Basic › Reservation$/);
    expect(airline.link("get_user_details")?.section).toMatch(/Domain Basic › User$/);
    expect(airline.text(airline.link("transfer_to_human_agents"))).toContain(
      "transfer the user to a human agent",
    );
    const telecom = linkerFor("telecom");
    expect(telecom.link("refuel_data")?.section).toMatch(/› Data Refueling$/);
    expect(telecom.link("send_payment_request")?.section).toMatch(/› Overdue Bill Payment$/);
    expect(telecom.link("enable_roaming")?.section).toMatch(/› Data Roaming$/);
    expect(telecom.link("suspend_line")?.section).toMatch(/^Main policy › .* › Line Suspension$/);
  });
});

describe("linkRefusal", () => {
  const airline = linkerFor("airline");
  it("links a refusal to the rule it rests on", () => {
    const link = airline.linker.linkRefusal("I'm sorry, but basic economy flights cannot be modified.");
    expect(link?.section).toMatch(/Modify flight$/);
    expect(airline.text(link)).toContain("Basic economy flights cannot be modified.");
    const cancel = airline.linker.linkRefusal(
      "I'm afraid I can't cancel this reservation: it was booked more than 24 hours ago, it is not business class and it has no travel insurance.",
    );
    expect(cancel?.section).toMatch(/Cancel flight$/);
    expect(airline.text(cancel)).toContain("The booking was made within the last 24 hrs");
  });

  it("links nothing for a reply that declines nothing, or declines what the policy does not speak of", () => {
    expect(isRefusal("Sure, I can help you cancel that. What is your user id?")).toBe(false);
    expect(
      airline.linker.linkRefusal("Your reservation EHGLP3 is cancelled; the refund takes 5 to 7 days."),
    ).toBeNull();
    expect(airline.linker.linkRefusal("Sorry, I cannot tell you the weather in Paris.")).toBeNull();
    expect(isRefusal("I'm unable to remove checked bags.")).toBe(true);
    expect(isRefusal("That isn't possible, I'm afraid.")).toBe(true);
  });
});

describe("simulationPolicyLinks (the explorer's simulation page)", () => {
  it("notes each agent tool call's and refusal's passage, with its text, by message", () => {
    const data = domainData("airline");
    const messages: Message[] = [
      { role: "assistant", content: "Hi! How can I help you today?" },
      { role: "user", content: "Cancel EHGLP3, and change my basic economy flight." },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "1",
            name: "cancel_reservation",
            arguments: { reservation_id: "EHGLP3" },
            requestor: "assistant",
          },
        ],
      },
      { role: "tool", id: "1", content: "{}", requestor: "assistant", error: false },
      { role: "assistant", content: "I'm sorry, but basic economy flights cannot be modified." },
    ];
    const notes = simulationPolicyLinks(data, messages);
    expect(notes.map((n) => [n.messageIndex, n.by, n.link.section.split(" › ").at(-1)])).toEqual([
      [2, "cancel_reservation", "Cancel flight"],
      [4, "the agent's refusal", "Modify flight"],
    ]);
    expect(notes[1]!.excerpt).toContain("Basic economy flights cannot be modified.");
    expect(notes[0]!.excerpt).toBe(data.policy.slice(notes[0]!.link.start, notes[0]!.link.end));
  });
});
