import { describe, expect, it } from "vitest";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { bankingKnowledgeDomain } from "../src/domains/banking/index.js";
import { PyFloat } from "../src/python/py-float-value.js";

// Behaviours of the reference's Python the fixtures do not show: how call_discoverable_agent_tool
// answers broken arguments, that an exception after a write keeps the write (Python has no rollback),
// numbers parsed as floats, and direct calls of discoverable tools.

const data = new DomainData(bankingKnowledgeDomain, tau2DataDir(), { config: "no_knowledge" });
const world = () => data.newWorld({ validation: "lenient", task: data.task("task_001") });
const agent = (w: ReturnType<typeof world>, name: string, args: Record<string, unknown>) =>
  w.callTool({ name, arguments: args, requestor: "assistant" });
const callTool = (w: ReturnType<typeof world>, tool: string, args: unknown) => {
  agent(w, "unlock_discoverable_agent_tool", { agent_tool_name: tool });
  return agent(w, "call_discoverable_agent_tool", { agent_tool_name: tool, arguments: JSON.stringify(args) });
};

describe("banking_knowledge tools beyond the fixtures", () => {
  it("arguments that are not a JSON object: Python's TypeError, as text", () => {
    const w = world();
    agent(w, "unlock_discoverable_agent_tool", { agent_tool_name: "get_user_dispute_history_7291" });
    expect(
      agent(w, "call_discoverable_agent_tool", {
        agent_tool_name: "get_user_dispute_history_7291",
        arguments: "[]",
      }),
    ).toMatchObject({
      content:
        "Error: Invalid arguments: tau2.domains.banking_knowledge.tools.KnowledgeTools.get_user_dispute_history_7291() argument after ** must be a mapping, not list",
      error: false,
    });
  });

  it("an error text of the tool is logged like any answer; a TypeError inside it is text, unlogged", () => {
    const w = world();
    const before = w.hash().agent;
    const result = callTool(w, "transfer_funds_between_bank_accounts_7291", {
      source_account_id: "a",
      destination_account_id: "b",
      amount: [1],
    });
    expect(result.content).toBe("Error: Invalid amount '[1.0]'. Must be a number.");
    // The reference logs the call of a state-changing tool that answered (even with an error text).
    expect(w.hash().agent).not.toBe(before);
    const other = world();
    const typeError = callTool(other, "file_debit_card_transaction_dispute_6281", {
      transaction_id: "t",
      account_id: "a",
      card_id: "c",
      user_id: "u",
      dispute_category: "duplicate_charge",
      transaction_date: "11/01/2025",
      discovery_date: "11/02/2025",
      disputed_amount: "ten",
      transaction_type: "pin_purchase",
      card_in_possession: true,
      pin_compromised: "no",
      contacted_merchant: false,
      police_report_filed: false,
      written_statement_provided: false,
      provisional_credit_eligible: false,
      customer_max_liability_amount: 0,
      card_action: "keep_active",
    });
    expect(typeError.content).toBe(
      "Error: Invalid arguments: '<=' not supported between instances of 'str' and 'int'",
    );
    expect(other.agentDb.agent_discoverable_tools.data.size).toBe(0);
  });

  it("an exception after a write fails the call yet keeps the write, unlogged (Python does not roll back)", () => {
    const w = world();
    const args = {
      transaction_id: "txn_x",
      card_action: "keep_active",
      card_last_4_digits: "1234",
      full_name: "A B",
      user_id: "u1",
      phone: "p",
      email: "e",
      address: "a",
      contacted_merchant: true,
      purchase_date: "11/01/2025",
      issue_noticed_date: "11/02/2025",
      dispute_reason: "incorrect_amount",
      resolution_requested: "partial_refund",
      eligible_for_provisional_credit: false,
      partial_refund_amount: "some",
    };
    const result = callTool(w, "file_credit_card_transaction_dispute_4829", args);
    expect(result).toMatchObject({
      content: "Error: Unknown format code 'f' for object of type 'str'",
      error: true,
    });
    expect(w.agentDb.transaction_disputes.data.size).toBe(2);
    expect(w.agentDb.agent_discoverable_tools.data.size).toBe(0);
  });

  it("JSON numbers reach the tools as floats (parse_int=float), so records and ids do not depend on 2500 vs 2500.0", () => {
    const w = world();
    const account = [...w.agentDb.credit_card_accounts.data.values()][0]!;
    const result = callTool(w, "submit_credit_limit_increase_request_7392", {
      credit_card_account_id: account.account_id,
      user_id: account.user_id,
      requested_increase_amount: 2500,
    });
    expect(result.content).toContain("  - Requested Increase: $2,500\n");
    const record = [...w.agentDb.credit_limit_increase_requests.data.values()][0]!;
    expect(record.requested_increase_amount).toBe(2500);
    const statement = callTool(world(), "apply_statement_credit_8472", {
      user_id: account.user_id,
      credit_card_account_id: account.account_id,
      amount: 25,
      reason: "goodwill_adjustment",
    });
    expect(statement.content).toContain("  - Credit Amount: $25.00\n");
  });

  it("a discoverable tool called directly by name runs without unlocking and is not logged", () => {
    const w = world();
    const result = agent(w, "get_user_dispute_history_7291", { user_id: "nobody" });
    expect(result.content).toContain("No transaction disputes found for this user.");
    expect(w.agentDb.agent_discoverable_tools.data.size).toBe(0);
    // Under passk's strict checking, its declared types apply.
    const strict = data
      .newWorld()
      .callTool({ name: "close_debit_card_4721", arguments: { card_id: 5 }, requestor: "assistant" });
    expect(strict.error).toBe(true);
    expect(strict.content).toContain("'card_id'");
  });

  it("unlocked tools live in the world's session: copied by fork, not in the DB hash", () => {
    const w = world();
    const before = w.hash();
    agent(w, "unlock_discoverable_agent_tool", { agent_tool_name: "get_user_dispute_history_7291" });
    expect(w.hash()).toEqual(before);
    const call = { agent_tool_name: "get_user_dispute_history_7291", arguments: '{"user_id": "u"}' };
    expect(agent(w.fork(), "call_discoverable_agent_tool", call).content).toContain("retrieved successfully");
    expect(agent(world(), "call_discoverable_agent_tool", call).content).toContain("has not been unlocked");
  });

  it("the user's deposit stores the call's arguments with floats and prints dollars", () => {
    const w = world();
    agent(w, "give_discoverable_user_tool", { discoverable_tool_name: "deposit_check_3847" });
    const account = [...w.agentDb.accounts.data.values()].find((a) => a.status === "OPEN")!;
    const result = w.callTool({
      name: "call_discoverable_user_tool",
      arguments: {
        discoverable_tool_name: "deposit_check_3847",
        arguments: `{"account_id": "${String(account.account_id)}", "check_amount": 100}`,
      },
      requestor: "user",
    });
    expect(result.content).toContain('"check_amount": 100.0');
    expect(result.content).toContain("  - Check Amount: $100.00\n");
    const logged = [...w.agentDb.user_discoverable_tool_calls.data.values()][0]!;
    expect((logged.arguments as Record<string, unknown>).check_amount).toEqual(new PyFloat(100));
  });
});
