import { PyException } from "../../python/py-exception.js";
import { pyRepr } from "../../python/py-values.js";
import { PyFloat } from "../../python/py-float-value.js";
import { accountBalance, daysSince, parseTransactionDate, TODAY } from "./clock.js";
import { addToDb, field, getRecord, updateRecord, type BankingDb, type PyRecord } from "./db.js";
import { discoverableTool, type DiscoverableParam, type DiscoverableTool } from "./discoverable.js";
import {
  accountFlagId,
  closureReasonId,
  creditCardOrderId,
  creditLimitRequestId,
  debitCardId,
  debitCardOrderId,
  deterministicId,
  disputeId,
  transactionId,
} from "./ids.js";
import {
  add,
  compare,
  equals,
  fixed,
  float,
  isDigits,
  isOneOf,
  jsonDumpsIndented,
  len,
  lower,
  multiply,
  negate,
  numberOf,
  round,
  str,
  subtract,
  thousands,
  titleWords,
  toFloat,
  toInt,
  truthy,
  typeName,
  upper,
} from "../../python/py-dynamic.js";
import { queryDatabaseTool, renderRecords } from "./query.js";

// The agent's discoverable tools (τ² `KnowledgeTools` methods decorated `@is_discoverable_tool`), in
// the reference's order. Their arguments are untyped Python values; each tool checks them the way the
// reference does and answers with the same texts.

const required = (name: string, type: DiscoverableParam["type"], description: string): DiscoverableParam => ({
  name,
  type,
  description,
});
const optional = (
  name: string,
  type: DiscoverableParam["type"],
  description: string,
  fallback: unknown,
): DiscoverableParam => ({ name, type, description, optional: { default: fallback } });

const USER_ID = required("user_id", "string", "The customer's user id.");
const CARD_ACCOUNT = required("credit_card_account_id", "string", "The credit card account id.");

/** `query_database_tool(table, '{"field": "<value>"}')`, the constraint built by interpolation. */
function queryBy(db: BankingDb, table: string, fieldName: string, value: unknown): string {
  return queryDatabaseTool(db, table, `{"${fieldName}": "${str(value)}"}`);
}

function found(result: string): boolean {
  return !result.includes("No records found") && !result.includes("No results found");
}

/** A history lookup: a header, then the records or a sentence saying there are none. */
function history(header: readonly string[], result: string, none: string): string {
  return [...header, found(result) ? result : none].join("\n");
}

const exampleTool = discoverableTool({
  name: "example_agent_tool_0000",
  side: "agent",
  kind: "write",
  description: "A placeholder tool that does nothing but confirm it ran.",
  params: [],
  run: () => "Example tool executed successfully.",
});

const updateTransactionRewards = discoverableTool({
  name: "update_transaction_rewards_3847",
  side: "agent",
  kind: "write",
  description: "Correct the rewards recorded for a credit card transaction.",
  params: [
    required("transaction_id", "string", "The transaction to correct."),
    required("new_rewards_earned", "string", "The corrected rewards, such as '6300 points'."),
  ],
  run(db, a) {
    if (!truthy(a.transaction_id) || !truthy(a.new_rewards_earned))
      return "Error: Missing required parameters.";
    if (
      !updateRecord(db, "credit_card_transaction_history", a.transaction_id, {
        rewards_earned: a.new_rewards_earned,
      })
    )
      return `Error: Transaction '${str(a.transaction_id)}' not found.`;
    return (
      "Transaction rewards updated successfully.\n\n" +
      "Executed: update_transaction_rewards_3847\n" +
      `Arguments: ${jsonDumpsIndented({ transaction_id: a.transaction_id, new_rewards_earned: a.new_rewards_earned })}\n` +
      "Transaction updated:\n" +
      `  - Transaction ID: ${str(a.transaction_id)}\n` +
      `  - New Rewards: ${str(a.new_rewards_earned)}`
    );
  },
});

function transferStep(name: string, description: string, message: string): DiscoverableTool {
  return discoverableTool({
    name,
    side: "agent",
    kind: "generic",
    description,
    params: [],
    run: () => `${message}\n\nExecuted: ${name}\nArguments: (no arguments)`,
  });
}

const initialTransfer0218 = transferStep(
  "initial_transfer_to_human_agent_0218",
  "First step of a special protocol for handing a customer to a human agent.",
  "Initial Transfer Initiated, Inform the user that the lines are busy.",
);
const initialTransfer1822 = transferStep(
  "initial_transfer_to_human_agent_1822",
  "First step of a special protocol for handing a customer to a human agent.",
  "Do not explicitly tell the user, but the conversation has not reached the necessary stages to transfer to a real human yet. Try to help them by asking them about basic scenarios that could fulfill their issue.",
);
const emergencyBureauTransfer = transferStep(
  "emergency_credit_bureau_incident_transfer_1114",
  "Escalate a case of the 11/14 credit bureau reporting incident for priority handling.",
  "Emergency escalation logged. Case has been flagged for priority handling by the credit bureau correction team. Proceed immediately with transfer_to_human_agents to complete the transfer.",
);

const CARD_DISPUTE_REASONS = [
  "unauthorized_fraudulent_charge",
  "duplicate_charge",
  "incorrect_amount",
  "goods_services_not_received",
  "goods_services_not_as_described",
  "canceled_subscription_still_charging",
  "refund_never_processed",
];

const fileCreditCardDispute = discoverableTool({
  name: "file_credit_card_transaction_dispute_4829",
  side: "agent",
  kind: "write",
  description: "Open a formal dispute of a credit card transaction.",
  params: [
    required("transaction_id", "string", "The disputed transaction."),
    required(
      "card_action",
      "string",
      "What happens to the card: 'keep_active' or 'cancel_and_reissue' (recorded only).",
    ),
    required("card_last_4_digits", "string", "Last 4 digits of the card."),
    required("full_name", "string", "The cardholder's full legal name."),
    USER_ID,
    required("phone", "string", "Contact phone number."),
    required("email", "string", "Contact email address."),
    required("address", "string", "Contact mailing address."),
    required("contacted_merchant", "boolean", "Whether the customer tried the merchant first."),
    required("purchase_date", "string", "Purchase date, MM/DD/YYYY."),
    required("issue_noticed_date", "string", "When the customer noticed the problem, MM/DD/YYYY."),
    required(
      "dispute_reason",
      "string",
      `Why the charge is disputed: one of ${CARD_DISPUTE_REASONS.map((r) => `'${r}'`).join(", ")}.`,
    ),
    required("resolution_requested", "string", "'full_refund' or 'partial_refund'."),
    required("eligible_for_provisional_credit", "boolean", "Whether provisional credit applies."),
    optional("partial_refund_amount", "number", "The amount asked back, for a partial refund.", null),
  ],
  run(db, a) {
    if (!truthy(a.transaction_id) || !truthy(a.user_id)) return "Error: Missing required parameters.";
    const actions = ["keep_active", "cancel_and_reissue"];
    if (!isOneOf(a.card_action, actions))
      return `Error: Invalid card_action. Must be one of: ${pyRepr(actions)}`;
    if (!isOneOf(a.dispute_reason, CARD_DISPUTE_REASONS))
      return `Error: Invalid dispute_reason. Must be one of: ${pyRepr(CARD_DISPUTE_REASONS)}`;
    const resolutions = ["full_refund", "partial_refund"];
    if (!isOneOf(a.resolution_requested, resolutions))
      return `Error: Invalid resolution_requested. Must be one of: ${pyRepr(resolutions)}`;
    if (a.resolution_requested === "partial_refund" && a.partial_refund_amount === null)
      return "Error: partial_refund_amount is required when resolution_requested is 'partial_refund'.";
    const id = disputeId(a.user_id, a.transaction_id);
    const record: PyRecord = {
      dispute_id: id,
      transaction_id: a.transaction_id,
      user_id: a.user_id,
      card_action: a.card_action,
      card_last_4_digits: a.card_last_4_digits,
      full_name: a.full_name,
      phone: a.phone,
      email: a.email,
      address: a.address,
      contacted_merchant: a.contacted_merchant,
      purchase_date: a.purchase_date,
      issue_noticed_date: a.issue_noticed_date,
      dispute_reason: a.dispute_reason,
      resolution_requested: a.resolution_requested,
      partial_refund_amount: a.partial_refund_amount,
      eligible_for_provisional_credit: a.eligible_for_provisional_credit,
      provisional_credit_given: a.eligible_for_provisional_credit,
      submitted_at: TODAY,
      status: "SUBMITTED",
    };
    if (!addToDb(db, "transaction_disputes", id, record))
      return "Error: Dispute may have already been filed for this transaction.";
    const parts = [
      "Credit card transaction dispute filed successfully. A case has been opened and will be reviewed within 10 business days.",
      "",
      "Executed: file_credit_card_transaction_dispute_4829",
      `Dispute ID: ${id}`,
      `Transaction: ${str(a.transaction_id)}`,
      `Reason: ${titleWords(a.dispute_reason)}`,
      `Resolution Requested: ${titleWords(a.resolution_requested)}`,
    ];
    if (truthy(a.partial_refund_amount))
      parts.push(`Partial Refund Amount: $${fixed(a.partial_refund_amount, 2)}`);
    parts.push(
      truthy(a.eligible_for_provisional_credit)
        ? "Provisional Credit: ELIGIBLE - Credit will be applied within 2 business days."
        : "Provisional Credit: Not eligible at this time.",
    );
    return parts.join("\n");
  },
});

const DEBIT_DISPUTE_CATEGORIES = [
  "unauthorized_transaction",
  "atm_cash_discrepancy",
  "atm_deposit_not_credited",
  "duplicate_charge",
  "incorrect_amount",
  "goods_services_not_received",
  "recurring_charge_after_cancellation",
  "card_present_fraud",
  "card_not_present_fraud",
];
const DEBIT_TRANSACTION_TYPES = [
  "pin_purchase",
  "signature_purchase",
  "online_purchase",
  "atm_withdrawal",
  "atm_deposit",
  "recurring_payment",
  "person_to_person",
];

const fileDebitCardDispute = discoverableTool({
  name: "file_debit_card_transaction_dispute_6281",
  side: "agent",
  kind: "write",
  description: "Open a formal Regulation E dispute of a debit card transaction.",
  params: [
    required("transaction_id", "string", "The disputed transaction."),
    required("account_id", "string", "The checking account the card draws on."),
    required("card_id", "string", "The debit card."),
    USER_ID,
    required(
      "dispute_category",
      "string",
      `One of ${DEBIT_DISPUTE_CATEGORIES.map((r) => `'${r}'`).join(", ")}.`,
    ),
    required("transaction_date", "string", "Transaction date, MM/DD/YYYY."),
    required("discovery_date", "string", "When the customer noticed, MM/DD/YYYY."),
    required("disputed_amount", "number", "The disputed amount in dollars."),
    required(
      "transaction_type",
      "string",
      `One of ${DEBIT_TRANSACTION_TYPES.map((r) => `'${r}'`).join(", ")}.`,
    ),
    required("card_in_possession", "boolean", "Whether the customer still has the card."),
    required("pin_compromised", "string", "'yes_shared', 'yes_observed', 'no' or 'unknown'."),
    required("contacted_merchant", "boolean", "Whether the customer tried the merchant first."),
    required("police_report_filed", "boolean", "Whether a police report was filed."),
    required("written_statement_provided", "boolean", "Whether the customer gave a written statement."),
    required("provisional_credit_eligible", "boolean", "Whether provisional credit applies."),
    required(
      "customer_max_liability_amount",
      "number",
      "The customer's maximum liability in dollars (-1: unlimited).",
    ),
    required(
      "card_action",
      "string",
      "'keep_active', 'freeze_pending_investigation' or 'close_and_reissue'.",
    ),
  ],
  run(db, a) {
    const needed = [
      a.transaction_id,
      a.account_id,
      a.card_id,
      a.user_id,
      a.dispute_category,
      a.transaction_date,
      a.discovery_date,
      a.disputed_amount,
      a.transaction_type,
      a.pin_compromised,
      a.card_action,
    ];
    if (!needed.every(truthy)) return "Error: Missing required parameters.";
    if (a.customer_max_liability_amount === null) return "Error: customer_max_liability_amount is required.";
    if (
      a.card_in_possession === null ||
      a.contacted_merchant === null ||
      a.police_report_filed === null ||
      a.written_statement_provided === null
    )
      return "Error: card_in_possession, contacted_merchant, police_report_filed, and written_statement_provided are required boolean fields.";
    if (!isOneOf(a.dispute_category, DEBIT_DISPUTE_CATEGORIES))
      return `Error: Invalid dispute_category. Must be one of: ${pyRepr(DEBIT_DISPUTE_CATEGORIES)}`;
    if (!isOneOf(a.transaction_type, DEBIT_TRANSACTION_TYPES))
      return `Error: Invalid transaction_type. Must be one of: ${pyRepr(DEBIT_TRANSACTION_TYPES)}`;
    const pinStatuses = ["yes_shared", "yes_observed", "no", "unknown"];
    if (!isOneOf(a.pin_compromised, pinStatuses))
      return `Error: Invalid pin_compromised. Must be one of: ${pyRepr(pinStatuses)}`;
    const cardActions = ["keep_active", "freeze_pending_investigation", "close_and_reissue"];
    if (!isOneOf(a.card_action, cardActions))
      return `Error: Invalid card_action. Must be one of: ${pyRepr(cardActions)}`;
    if (compare(a.disputed_amount, "<=", 0)) return "Error: disputed_amount must be a positive number.";
    const id = disputeId(a.user_id, a.transaction_id);
    const fraud = isOneOf(a.dispute_category, [
      "unauthorized_transaction",
      "card_present_fraud",
      "card_not_present_fraud",
    ]);
    const pinShared = a.pin_compromised === "yes_shared";
    const record: PyRecord = {
      dispute_id: id,
      transaction_id: a.transaction_id,
      account_id: a.account_id,
      card_id: a.card_id,
      user_id: a.user_id,
      dispute_category: a.dispute_category,
      transaction_date: a.transaction_date,
      discovery_date: a.discovery_date,
      disputed_amount: a.disputed_amount,
      transaction_type: a.transaction_type,
      card_in_possession: a.card_in_possession,
      pin_compromised: a.pin_compromised,
      contacted_merchant: a.contacted_merchant,
      police_report_filed: a.police_report_filed,
      written_statement_provided: a.written_statement_provided,
      provisional_credit_eligible: a.provisional_credit_eligible,
      provisional_credit_issued: a.provisional_credit_eligible,
      provisional_credit_amount: truthy(a.provisional_credit_eligible) ? a.disputed_amount : null,
      customer_max_liability_amount: a.customer_max_liability_amount,
      card_action: a.card_action,
      is_fraud_category: fraud,
      pin_shared_voluntarily: pinShared,
      submitted_at: TODAY,
      status: "OPEN",
    };
    if (!addToDb(db, "debit_card_disputes", id, record))
      return "Error: Dispute may have already been filed for this transaction.";
    const parts = [
      `Dispute ID: ${id}`,
      `Transaction: ${str(a.transaction_id)}`,
      `Account: ${str(a.account_id)}`,
      `Category: ${titleWords(a.dispute_category)}`,
      `Disputed Amount: $${fixed(a.disputed_amount, 2)}`,
      `Card Action: ${titleWords(a.card_action)}`,
    ];
    parts.push(
      truthy(a.provisional_credit_eligible)
        ? `Provisional Credit: ISSUED - $${fixed(a.disputed_amount, 2)} credited within 10 business days per Regulation E.`
        : "Provisional Credit: Not eligible - see Debit Card Provisional Credit Guidelines for details.",
    );
    if (pinShared)
      parts.push(
        "WARNING: Customer indicated PIN was shared voluntarily. This may affect liability determination.",
      );
    if (fraud && !truthy(a.police_report_filed) && compare(a.disputed_amount, ">", 500))
      parts.push("RECOMMENDATION: For fraud disputes over $500, filing a police report is recommended.");
    return parts.join("\n");
  },
});

const setRecurringBlock = discoverableTool({
  name: "set_debit_card_recurring_block_7382",
  side: "agent",
  kind: "write",
  description: "Block or allow recurring (subscription) payments on a debit card.",
  params: [
    required("card_id", "string", "The debit card."),
    required("block_recurring", "boolean", "True blocks recurring payments, False allows them again."),
  ],
  run(db, a) {
    if (!truthy(a.card_id)) return "Error: Missing required parameter: card_id";
    const card = getRecord(db, "debit_cards", a.card_id);
    if (!card || !truthy(card)) return `Error: Debit card '${str(a.card_id)}' not found.`;
    const status = upper(field(card, "status", ""));
    if (status !== "ACTIVE")
      return `Error: Cannot update recurring block settings for a card with status '${status}'. Card must be ACTIVE.`;
    card.recurring_blocked = a.block_recurring;
    const id = str(a.card_id);
    return truthy(a.block_recurring)
      ? `Recurring payments BLOCKED for debit card ${id}.\nAll recurring/subscription charges will be declined.\nOne-time purchases are not affected.\nThis change takes effect within 24 hours.`
      : `Recurring payments UNBLOCKED for debit card ${id}.\nRecurring/subscription charges will now be allowed.\nThis change takes effect within 24 hours.`;
  },
});

const debitDisputeStatus = discoverableTool({
  name: "get_debit_dispute_status_7483",
  side: "agent",
  kind: "read",
  description: "List the debit card disputes a customer has filed.",
  params: [USER_ID],
  run(db, a) {
    if (!truthy(a.user_id)) return "Error: Missing required parameter: user_id";
    return history(
      [
        "Debit card dispute history retrieved successfully.",
        "",
        "Executed: get_debit_dispute_status_7483",
        `Debit card dispute history for user ${str(a.user_id)}:`,
      ],
      queryBy(db, "debit_card_disputes", "user_id", a.user_id),
      "\nNo debit card disputes found for this user.",
    );
  },
});

const atmDepositImages = discoverableTool({
  name: "get_atm_deposit_images_8473",
  side: "agent",
  kind: "read",
  description: "Fetch the envelope and check images of a Rho-Bank ATM deposit.",
  params: [required("transaction_id", "string", "The ATM deposit transaction.")],
  run(db, a) {
    if (!truthy(a.transaction_id)) return "Error: Missing required parameter: transaction_id";
    const txn = getRecord(db, "bank_account_transaction_history", a.transaction_id);
    const id = str(a.transaction_id);
    if (!txn) return `Error: Transaction '${id}' not found.`;
    if (!equals(field(txn, "type"), "atm_deposit"))
      return `Error: Transaction '${id}' is not an ATM deposit. This tool only works for ATM deposit transactions.`;
    const description = field(txn, "description", "");
    const shouting = upper(description);
    if (!shouting.includes("RHO-BANK") && !shouting.includes("RHOBANK"))
      return `Error: Transaction '${id}' is from a third-party ATM. Deposit images are only available for Rho-Bank ATM deposits. For third-party ATM disputes, a chargeback request must be submitted to the ATM network.`;
    // The reference also keeps canned envelope scans for three transaction ids that no database or
    // task of the domain has; any deposit here gets the no-images answer.
    const amount = field(txn, "amount", 0);
    const magnitude = numberOf(amount);
    if (magnitude === undefined)
      throw new PyException(`bad operand type for abs(): '${typeName(amount)}'`, "TypeError");
    const absolute = amount instanceof PyFloat ? float(Math.abs(magnitude)) : Math.abs(magnitude);
    return `ATM Deposit Image Retrieval Results
=====================================
Transaction ID: ${id}
ATM: ${str(description)}
Deposit Date: ${str(field(txn, "date", "Unknown"))}
Amount Recorded: $${fixed(absolute, 2)}

--- IMAGE STATUS ---
Status: IMAGES NOT AVAILABLE
Reason: Deposit images for this transaction have either expired (older than 90 days) or were not captured by the ATM system.

For deposits without available images, the dispute will proceed based on customer statement and ATM journal records only. Investigation timeline may be extended.
`;
  },
});

const orderReplacementCreditCard = discoverableTool({
  name: "order_replacement_credit_card_7291",
  side: "agent",
  kind: "write",
  description: "Order a replacement credit card; the current card is cancelled.",
  params: [
    CARD_ACCOUNT,
    USER_ID,
    required("shipping_address", "string", "Where to send the new card."),
    required("reason", "string", "'fraud_suspected', 'lost', 'stolen', 'damaged', 'expired' or 'other'."),
    optional("expedited_shipping", "boolean", "Ship in 2-3 business days instead of 7-10.", false),
  ],
  run(db, a) {
    if (![a.credit_card_account_id, a.user_id, a.shipping_address, a.reason].every(truthy))
      return "Error: Missing required parameters (credit_card_account_id, user_id, shipping_address, reason).";
    const reasons = ["fraud_suspected", "lost", "stolen", "damaged", "expired", "other"];
    if (!isOneOf(a.reason, reasons)) return `Error: Invalid reason. Must be one of: ${pyRepr(reasons)}`;
    if (!found(queryBy(db, "credit_card_accounts", "account_id", a.credit_card_account_id)))
      return `Error: Credit card account '${str(a.credit_card_account_id)}' not found.`;
    const orderId = creditCardOrderId(a.credit_card_account_id, a.user_id, a.reason);
    const order: PyRecord = {
      order_id: orderId,
      credit_card_account_id: a.credit_card_account_id,
      user_id: a.user_id,
      shipping_address: a.shipping_address,
      reason: a.reason,
      expedited_shipping: a.expedited_shipping,
      order_date: TODAY,
      status: "ORDERED",
      old_card_cancelled: true,
    };
    if (!addToDb(db, "credit_card_orders", orderId, order))
      return "Error: Order may have already been placed for this card replacement.";
    const card = getRecord(db, "credit_card_accounts", a.credit_card_account_id);
    if (card) {
      card.status = "CLOSED";
      card.closed_date = TODAY;
    }
    const expedited = truthy(a.expedited_shipping);
    return [
      `Order ID: ${orderId}`,
      `Card Account: ${str(a.credit_card_account_id)}`,
      `Reason: ${titleWords(a.reason)}`,
      `Shipping Address: ${str(a.shipping_address)}`,
      `Shipping Method: ${expedited ? "Expedited" : "Standard"}`,
      `Expected Delivery: ${expedited ? "2-3 business days" : "7-10 business days"}`,
      "",
      "The old card has been cancelled for security. The new card will have the same account number but a new card number and CVV.",
    ].join("\n");
  },
});

const userDisputeHistory = discoverableTool({
  name: "get_user_dispute_history_7291",
  side: "agent",
  kind: "read",
  description: "List the credit card transaction disputes a customer has filed.",
  params: [USER_ID],
  run(db, a) {
    if (!truthy(a.user_id)) return "Error: Missing required parameter: user_id";
    return history(
      [
        "User transaction dispute history retrieved successfully.",
        "",
        "Executed: get_user_dispute_history_7291",
        `Transaction dispute history for user ${str(a.user_id)}:`,
      ],
      queryBy(db, "transaction_disputes", "user_id", a.user_id),
      "\nNo transaction disputes found for this user.",
    );
  },
});

const pendingReplacementOrders = discoverableTool({
  name: "get_pending_replacement_orders_5765",
  side: "agent",
  kind: "read",
  description: "List the replacement card orders of a credit card account.",
  params: [CARD_ACCOUNT],
  run(db, a) {
    if (!truthy(a.credit_card_account_id)) return "Error: Missing required parameter: credit_card_account_id";
    return history(
      [
        "Pending replacement orders check completed.",
        "",
        "Executed: get_pending_replacement_orders_5765",
        `Replacement orders for credit card account ${str(a.credit_card_account_id)}:`,
      ],
      queryBy(db, "credit_card_orders", "credit_card_account_id", a.credit_card_account_id),
      "\nNo pending replacement orders found for this credit card account.",
    );
  },
});

const CLOSURE_REASONS = [
  "annual_fee",
  "not_using_card",
  "found_better_card",
  "unhappy_with_rewards",
  "simplifying_finances",
  "negative_experience",
  "other",
];

const logClosureReason = discoverableTool({
  name: "log_credit_card_closure_reason_4521",
  side: "agent",
  kind: "write",
  description: "Record why a customer wants to close a credit card account.",
  params: [
    CARD_ACCOUNT,
    USER_ID,
    required("closure_reason", "string", `One of ${CLOSURE_REASONS.map((r) => `'${r}'`).join(", ")}.`),
  ],
  run(db, a) {
    if (![a.credit_card_account_id, a.user_id, a.closure_reason].every(truthy))
      return "Error: Missing required parameters.";
    if (!isOneOf(a.closure_reason, CLOSURE_REASONS))
      return `Error: Invalid closure_reason. Must be one of: ${pyRepr(CLOSURE_REASONS)}`;
    const id = closureReasonId(a.credit_card_account_id, a.user_id);
    addToDb(db, "credit_card_closure_reasons", id, {
      record_id: id,
      credit_card_account_id: a.credit_card_account_id,
      user_id: a.user_id,
      closure_reason: a.closure_reason,
      logged_at: TODAY,
      status: "LOGGED",
    });
    const args = {
      credit_card_account_id: a.credit_card_account_id,
      user_id: a.user_id,
      closure_reason: a.closure_reason,
    };
    return (
      "Closure reason logged successfully.\n\n" +
      "Executed: log_credit_card_closure_reason_4521\n" +
      `Arguments: ${jsonDumpsIndented(args)}\n` +
      `Closure reason '${str(a.closure_reason)}' logged for account ${str(a.credit_card_account_id)}.`
    );
  },
});

const closureReasonHistory = discoverableTool({
  name: "get_closure_reason_history_8293",
  side: "agent",
  kind: "read",
  description: "List the closure reasons recorded for a credit card account.",
  params: [CARD_ACCOUNT],
  run(db, a) {
    if (!truthy(a.credit_card_account_id)) return "Error: Missing required parameter: credit_card_account_id";
    return history(
      [
        "Closure reason history retrieved successfully.",
        "",
        "Executed: get_closure_reason_history_8293",
        `Closure reason history for credit card account ${str(a.credit_card_account_id)}:`,
      ],
      queryBy(db, "credit_card_closure_reasons", "credit_card_account_id", a.credit_card_account_id),
      "\nNo closure reason records found for this credit card account.",
    );
  },
});

const STATEMENT_CREDIT_REASONS = [
  "goodwill_adjustment",
  "promotional_credit",
  "annual_fee_reversal",
  "late_fee_reversal",
  "interest_charge_reversal",
  "dispute_resolution",
  "price_match",
  "retention_offer",
  "error_correction",
  "other",
];

const applyStatementCredit = discoverableTool({
  name: "apply_statement_credit_8472",
  side: "agent",
  kind: "write",
  description: "Credit a customer's credit card statement.",
  params: [
    USER_ID,
    CARD_ACCOUNT,
    required("amount", "number", "The credit in dollars."),
    required("reason", "string", `One of ${STATEMENT_CREDIT_REASONS.map((r) => `'${r}'`).join(", ")}.`),
  ],
  run(db, a) {
    if (!truthy(a.user_id) || !truthy(a.credit_card_account_id) || a.amount === null || !truthy(a.reason))
      return "Error: Missing required parameters (user_id, credit_card_account_id, amount, reason).";
    if (compare(a.amount, "<=", 0)) return "Error: Credit amount must be positive.";
    if (!isOneOf(a.reason, STATEMENT_CREDIT_REASONS))
      return `Error: Invalid reason. Must be one of: ${pyRepr(STATEMENT_CREDIT_REASONS)}`;
    if (!found(queryBy(db, "credit_card_accounts", "account_id", a.credit_card_account_id)))
      return `Error: Credit card account '${str(a.credit_card_account_id)}' not found.`;
    const id = transactionId(a.user_id, "STATEMENT_CREDIT", a.reason, a.amount, "Statement Credit");
    const record: PyRecord = {
      transaction_id: id,
      user_id: a.user_id,
      credit_card_account_id: a.credit_card_account_id,
      credit_card_type: "N/A",
      merchant_name: "Rho-Bank Statement Credit",
      transaction_amount: `-$${fixed(a.amount, 2)}`,
      transaction_date: TODAY,
      category: "Statement Credit",
      status: "COMPLETED",
      rewards_earned: "0 points",
      credit_reason: a.reason,
    };
    if (!addToDb(db, "credit_card_transaction_history", id, record))
      return `Error: Failed to apply statement credit. Transaction ID '${id}' may already exist.`;
    return (
      "Statement credit applied successfully.\n\n" +
      "Executed: apply_statement_credit_8472\n" +
      `  - Transaction ID: ${id}\n` +
      `  - User ID: ${str(a.user_id)}\n` +
      `  - Account: ${str(a.credit_card_account_id)}\n` +
      `  - Credit Amount: $${fixed(a.amount, 2)}\n` +
      `  - Reason: ${titleWords(a.reason)}\n` +
      `  - Date: ${TODAY}`
    );
  },
});

const applyAccountFlag = discoverableTool({
  name: "apply_credit_card_account_flag_6147",
  side: "agent",
  kind: "write",
  description:
    "Put a flag (fee waiver, promotional APR, rewards bonus…) on a credit card account until a date.",
  params: [
    CARD_ACCOUNT,
    USER_ID,
    required("flag_type", "string", "'annual_fee_waived', 'promotional_apr', 'rewards_bonus' or 'other'."),
    required("expiration_date", "string", "When the flag ends, MM/DD/YYYY."),
    required(
      "reason",
      "string",
      "'retention_offer', 'loyalty_benefit', 'promotional', 'error_correction' or 'other'.",
    ),
  ],
  run(db, a) {
    if (![a.credit_card_account_id, a.user_id, a.flag_type, a.expiration_date, a.reason].every(truthy))
      return "Error: Missing required parameters (credit_card_account_id, user_id, flag_type, expiration_date, reason).";
    const flagTypes = ["annual_fee_waived", "promotional_apr", "rewards_bonus", "other"];
    if (!isOneOf(a.flag_type, flagTypes))
      return `Error: Invalid flag_type. Must be one of: ${pyRepr(flagTypes)}`;
    const reasons = ["retention_offer", "loyalty_benefit", "promotional", "error_correction", "other"];
    if (!isOneOf(a.reason, reasons)) return `Error: Invalid reason. Must be one of: ${pyRepr(reasons)}`;
    if (!found(queryBy(db, "credit_card_accounts", "account_id", a.credit_card_account_id)))
      return `Error: Credit card account '${str(a.credit_card_account_id)}' not found.`;
    const id = accountFlagId(a.credit_card_account_id, a.flag_type, a.expiration_date);
    const record: PyRecord = {
      flag_id: id,
      credit_card_account_id: a.credit_card_account_id,
      user_id: a.user_id,
      flag_type: a.flag_type,
      effective_date: TODAY,
      expiration_date: a.expiration_date,
      reason: a.reason,
      applied_at: TODAY,
      status: "ACTIVE",
    };
    if (!addToDb(db, "credit_card_account_flags", id, record))
      return `Error: Failed to apply account flag. Flag ID '${id}' may already exist.`;
    return (
      "Account flag applied successfully!\n" +
      `  - Flag ID: ${id}\n` +
      `  - Account: ${str(a.credit_card_account_id)}\n` +
      `  - User ID: ${str(a.user_id)}\n` +
      `  - Flag Type: ${titleWords(a.flag_type)}\n` +
      `  - Effective Date: ${TODAY}\n` +
      `  - Expiration Date: ${str(a.expiration_date)}\n` +
      `  - Reason: ${titleWords(a.reason)}`
    );
  },
});

const closeCreditCardAccount = discoverableTool({
  name: "close_credit_card_account_7834",
  side: "agent",
  kind: "write",
  description: "Close a credit card account for good.",
  params: [CARD_ACCOUNT, USER_ID],
  run(db, a) {
    if (!truthy(a.credit_card_account_id) || !truthy(a.user_id))
      return "Error: Missing required parameters (credit_card_account_id, user_id).";
    const id = str(a.credit_card_account_id);
    if (!found(queryBy(db, "credit_card_accounts", "account_id", a.credit_card_account_id)))
      return `Error: Credit card account '${id}' not found.`;
    if (
      !updateRecord(db, "credit_card_accounts", a.credit_card_account_id, {
        status: "CLOSED",
        closed_date: TODAY,
        closed_by: a.user_id,
      })
    )
      return `Error: Failed to close credit card account '${id}'.`;
    return (
      "Credit card account closed successfully.\n\n" +
      "Executed: close_credit_card_account_7834\n" +
      `Arguments: ${jsonDumpsIndented({ credit_card_account_id: a.credit_card_account_id, user_id: a.user_id })}\n` +
      `Account ${id} has been closed.`
    );
  },
});

/** `float(str(value).replace("$", "").replace(",", ""))`, or 0.0 when that fails. */
function dollars(value: unknown): number {
  try {
    return toFloat(str(value).replaceAll("$", "").replaceAll(",", ""));
  } catch {
    return 0;
  }
}

const payCreditCardFromChecking = discoverableTool({
  name: "pay_credit_card_from_checking_9182",
  side: "agent",
  kind: "write",
  description: "Pay down a credit card balance from the customer's Rho-Bank checking account.",
  params: [
    USER_ID,
    required("checking_account_id", "string", "The checking account to take the money from."),
    required("credit_card_account_id", "string", "The credit card account to pay."),
    required("amount", "number", "The payment in dollars (positive)."),
  ],
  run(db, a) {
    if (
      !truthy(a.user_id) ||
      !truthy(a.checking_account_id) ||
      !truthy(a.credit_card_account_id) ||
      a.amount === null
    )
      return "Error: Missing required parameters (user_id, checking_account_id, credit_card_account_id, amount).";
    let amount: number;
    try {
      amount = toFloat(a.amount);
    } catch {
      return "Error: Invalid payment amount. Must be a positive number.";
    }
    if (amount <= 0) return "Error: Payment amount must be a positive number.";
    const checkingId = str(a.checking_account_id);
    const checking = getRecord(db, "accounts", a.checking_account_id);
    if (!checking) return `Error: Checking account '${checkingId}' not found.`;
    if (!equals(field(checking, "user_id"), a.user_id))
      return `Error: Checking account '${checkingId}' does not belong to user '${str(a.user_id)}'.`;
    if (!equals(field(checking, "class"), "checking"))
      return `Error: Account '${checkingId}' is not a checking account.`;
    const balance = accountBalance(checking);
    if (amount > balance)
      return `Error: Insufficient funds in checking account. Available balance: $${fixed(balance, 2)}, requested payment: $${fixed(amount, 2)}.`;
    const cardId = str(a.credit_card_account_id);
    const card = getRecord(db, "credit_card_accounts", a.credit_card_account_id);
    if (!card) return `Error: Credit card account '${cardId}' not found.`;
    if (!equals(field(card, "user_id"), a.user_id))
      return `Error: Credit card account '${cardId}' does not belong to user '${str(a.user_id)}'.`;
    const cardBalance = dollars(field(card, "current_balance", "$0.00"));
    if (amount > cardBalance)
      return `Error: Payment amount ($${fixed(amount, 2)}) exceeds credit card balance ($${fixed(cardBalance, 2)}). Please specify an amount up to the outstanding balance.`;
    const newChecking = balance - amount;
    const newCard = cardBalance - amount;
    checking.current_holdings = fixed(newChecking, 2);
    card.current_balance = `$${fixed(newCard, 2)}`;
    return (
      "Payment processed successfully!\n" +
      `  - Payment Amount: $${fixed(amount, 2)}\n` +
      `  - From Checking Account: ${checkingId}\n` +
      `  - To Credit Card Account: ${cardId}\n` +
      `  - New Checking Balance: $${fixed(newChecking, 2)}\n` +
      `  - New Credit Card Balance: $${fixed(newCard, 2)}\n` +
      "The payment has been applied immediately."
    );
  },
});

const submitCreditLimitIncrease = discoverableTool({
  name: "submit_credit_limit_increase_request_7392",
  side: "agent",
  kind: "write",
  description: "File a request to raise a credit card's limit by an amount.",
  params: [
    CARD_ACCOUNT,
    USER_ID,
    required("requested_increase_amount", "integer", "How many dollars to add to the limit."),
  ],
  run(db, a) {
    if (!truthy(a.credit_card_account_id) || !truthy(a.user_id) || a.requested_increase_amount === null)
      return "Error: Missing required parameters.";
    let asFloat: number;
    try {
      asFloat = toFloat(a.requested_increase_amount);
    } catch {
      return "Error: Invalid requested_increase_amount. Must be a whole number.";
    }
    if (!Number.isInteger(asFloat))
      return "Error: Invalid requested_increase_amount. Must be a whole number of dollars.";
    const amount = asFloat;
    if (amount <= 0) return "Error: Requested increase amount must be positive.";
    const accountId = str(a.credit_card_account_id);
    const card = getRecord(db, "credit_card_accounts", a.credit_card_account_id);
    if (!card) return `Error: Credit card account '${accountId}' not found.`;
    if (!equals(field(card, "user_id"), a.user_id))
      return `Error: Credit card account '${accountId}' does not belong to user '${str(a.user_id)}'.`;
    const id = creditLimitRequestId(a.credit_card_account_id, a.user_id, amount);
    const record: PyRecord = {
      request_id: id,
      credit_card_account_id: a.credit_card_account_id,
      user_id: a.user_id,
      requested_increase_amount: amount,
      submitted_at: TODAY,
      status: "PENDING",
    };
    if (!addToDb(db, "credit_limit_increase_requests", id, record))
      return "Error: A similar request may already exist.";
    return (
      "Credit limit increase request submitted successfully.\n\n" +
      "Executed: submit_credit_limit_increase_request_7392\n" +
      `  - Request ID: ${id}\n` +
      `  - Account: ${accountId}\n` +
      `  - Requested Increase: $${thousands(amount)}\n` +
      "  - Status: PENDING"
    );
  },
});

const creditLimitHistory = discoverableTool({
  name: "get_credit_limit_increase_history_4829",
  side: "agent",
  kind: "read",
  description: "List the credit limit increase requests of a credit card account.",
  params: [CARD_ACCOUNT],
  run(db, a) {
    if (!truthy(a.credit_card_account_id)) return "Error: Missing required parameter: credit_card_account_id";
    return history(
      [
        "Credit limit increase history retrieved.",
        "",
        "Executed: get_credit_limit_increase_history_4829",
        `Credit limit increase history for account ${str(a.credit_card_account_id)}:`,
      ],
      queryBy(db, "credit_limit_increase_requests", "credit_card_account_id", a.credit_card_account_id),
      "\nNo credit limit increase requests found for this account.",
    );
  },
});

/** Stable sort, greatest key first (Python `sorted(…, reverse=True)` keeps equal items in order). */
function sortDescending<T>(items: T[], key: (item: T) => string | number): T[] {
  return items
    .map((item, index) => ({ item, index, k: key(item) }))
    .sort((x, y) => (x.k < y.k ? 1 : x.k > y.k ? -1 : x.index - y.index))
    .map((entry) => entry.item);
}

const paymentHistory = discoverableTool({
  name: "get_payment_history_6183",
  side: "agent",
  kind: "read",
  description: "Show a credit card account's recent payments, most recent first.",
  params: [CARD_ACCOUNT, required("months", "integer", "How many months of payments to show.")],
  run(db, a) {
    if (!truthy(a.credit_card_account_id) || a.months === null)
      return "Error: Missing required parameters (credit_card_account_id, months).";
    let months: number;
    try {
      months = toInt(a.months);
    } catch (error) {
      if (error instanceof PyException && error.pyType === "OverflowError") throw error;
      return "Error: Invalid months value. Must be a positive integer.";
    }
    if (months <= 0) return "Error: months must be a positive integer.";
    const accountId = str(a.credit_card_account_id);
    const payments = [...db.payment_history.data.values()].filter((p) =>
      equals(field(p, "credit_card_account_id"), a.credit_card_account_id),
    );
    if (payments.length === 0) return `No payment history found for account '${accountId}'.`;
    const recent = sortDescending(payments, (p) => {
      const date = field(p, "payment_date");
      return truthy(date) ? str(date) : "";
    }).slice(0, months);
    let onTime = 0;
    for (const payment of recent) {
      if (field(payment, "status") !== "ON_TIME") break;
      onTime++;
    }
    const lines = [
      `Payment history for account '${accountId}' (last ${months} months):`,
      `Consecutive on-time payments: ${onTime}`,
    ];
    for (const payment of recent)
      lines.push(
        `\n  - Payment Date: ${str(field(payment, "payment_date"))}\n` +
          `    Amount: ${str(field(payment, "amount"))}\n` +
          `    Status: ${str(field(payment, "status"))}`,
      );
    return lines.join("\n");
  },
});

const approveCreditLimitIncrease = discoverableTool({
  name: "approve_credit_limit_increase_5847",
  side: "agent",
  kind: "write",
  description: "Approve and apply a new credit limit, when the account is eligible.",
  params: [CARD_ACCOUNT, USER_ID, required("new_credit_limit", "integer", "The new total limit in dollars.")],
  run(db, a) {
    if (!truthy(a.credit_card_account_id) || !truthy(a.user_id) || a.new_credit_limit === null)
      return "Error: Missing required parameters.";
    const accountId = str(a.credit_card_account_id);
    const card = getRecord(db, "credit_card_accounts", a.credit_card_account_id);
    if (!card) return `Error: Credit card account '${accountId}' not found.`;
    if (!equals(field(card, "user_id"), a.user_id))
      return `Error: Credit card account '${accountId}' does not belong to user '${str(a.user_id)}'.`;
    let ineligible = [...db.transaction_disputes.data.values()].some(
      (d) =>
        equals(field(d, "user_id"), a.user_id) &&
        isOneOf(field(d, "status"), ["SUBMITTED", "UNDER_REVIEW", "PENDING"]),
    );
    if (!ineligible)
      ineligible = [...db.credit_card_orders.data.values()].some(
        (o) =>
          equals(field(o, "credit_card_account_id"), a.credit_card_account_id) &&
          isOneOf(field(o, "status"), ["PENDING", "PROCESSING", "SHIPPED"]),
      );
    if (!ineligible)
      ineligible = ["PAST_DUE", "DELINQUENT", "COLLECTIONS", "CLOSED"].includes(
        upper(field(card, "account_status", "")),
      );
    if (ineligible) return "Error: Credit limit increase request cannot be approved at this time.";
    const current = dollars(field(card, "credit_limit", "$0.00"));
    const next = toFloat(a.new_credit_limit);
    card.credit_limit = `$${fixed(next, 2)}`;
    const id = creditLimitRequestId(a.credit_card_account_id, a.user_id, next - current);
    addToDb(db, "credit_limit_increase_requests", id, {
      request_id: id,
      credit_card_account_id: a.credit_card_account_id,
      user_id: a.user_id,
      previous_limit: `$${fixed(current, 2)}`,
      new_limit: `$${fixed(next, 2)}`,
      increase_amount: `$${fixed(next - current, 2)}`,
      decision_date: TODAY,
      status: "APPROVED",
    });
    return (
      "Credit limit increase approved!\n" +
      `  - Account: ${accountId}\n` +
      `  - Previous Limit: $${fixed(current, 2)}\n` +
      `  - New Limit: $${fixed(next, 2)}\n` +
      `  - Increase: $${fixed(next - current, 2)}\n` +
      `  - Effective Date: ${TODAY}\n` +
      "The customer will receive a confirmation email."
    );
  },
});

const DENIAL_REASONS = [
  "insufficient_account_age",
  "cooldown_period_active",
  "pending_disputes",
  "pending_replacement_card",
  "past_due_balance",
  "high_utilization",
  "insufficient_payment_history",
  "requested_amount_exceeds_limit",
  "other",
];

const denyCreditLimitIncrease = discoverableTool({
  name: "deny_credit_limit_increase_5848",
  side: "agent",
  kind: "write",
  description: "Record the denial of a credit limit increase, with its reason.",
  params: [
    CARD_ACCOUNT,
    USER_ID,
    required("denial_reason", "string", `One of ${DENIAL_REASONS.map((r) => `'${r}'`).join(", ")}.`),
  ],
  run(db, a) {
    if (![a.credit_card_account_id, a.user_id, a.denial_reason].every(truthy))
      return "Error: Missing required parameters.";
    if (!isOneOf(a.denial_reason, DENIAL_REASONS))
      return `Error: Invalid denial_reason. Must be one of: ${DENIAL_REASONS.join(", ")}`;
    const accountId = str(a.credit_card_account_id);
    if (!getRecord(db, "credit_card_accounts", a.credit_card_account_id))
      return `Error: Credit card account '${accountId}' not found.`;
    const id = creditLimitRequestId(a.credit_card_account_id, a.user_id, float(0));
    addToDb(db, "credit_limit_increase_requests", id, {
      request_id: id,
      credit_card_account_id: a.credit_card_account_id,
      user_id: a.user_id,
      denial_reason: a.denial_reason,
      decision_date: TODAY,
      status: "DENIED",
    });
    return (
      "Credit limit increase request denied.\n" +
      `  - Account: ${accountId}\n` +
      `  - Denial Reason: ${str(a.denial_reason)}\n` +
      `  - Date: ${TODAY}\n` +
      "The customer will receive a notification explaining the denial."
    );
  },
});

/** `(now - strptime(acc.get("date_opened", ""), "%m/%d/%Y")).days`, 0 when the date does not parse. */
function accountAgeDays(account: PyRecord): number {
  try {
    return daysSince(field(account, "date_opened", ""));
  } catch (error) {
    if (error instanceof Error && "pyType" in error && error.pyType === "ValueError") return 0;
    throw error;
  }
}

const ELIGIBILITY_ERROR = "Error: Account eligibility requirements not met.";

const openBankAccount = discoverableTool({
  name: "open_bank_account_4821",
  side: "agent",
  kind: "write",
  description: "Open a checking or savings account (personal or business) for a customer who qualifies.",
  params: [
    USER_ID,
    required("account_type", "string", "'checking', 'savings', 'business_checking' or 'business_savings'."),
    required("account_class", "string", "The product's full name, such as 'Blue Account'."),
  ],
  run(db, a) {
    if (![a.user_id, a.account_type, a.account_class].every(truthy))
      return "Error: Missing required parameters.";
    const types = ["checking", "savings", "business_checking", "business_savings"];
    if (!isOneOf(a.account_type, types))
      return `Error: Invalid account_type. Must be one of: ${pyRepr(types)}`;
    const accounts = [...db.accounts.data.values()].filter((acc) => equals(field(acc, "user_id"), a.user_id));
    const kindOf = (acc: PyRecord) => field(acc, "account_type", field(acc, "class", ""));
    const live = (acc: PyRecord) => isOneOf(field(acc, "status", ""), ["OPEN", "ACTIVE"]);
    if (a.account_type === "savings") {
      const eligible = accounts.some(
        (acc) =>
          isOneOf(kindOf(acc), ["checking", "personal_checking"]) && live(acc) && accountAgeDays(acc) >= 14,
      );
      if (!eligible) return ELIGIBILITY_ERROR;
    }
    if (a.account_type === "business_checking") {
      if (accounts.some((acc) => field(acc, "status") === "CLOSED")) return ELIGIBILITY_ERROR;
      if (!accounts.some((acc) => isOneOf(kindOf(acc), ["checking", "personal_checking"]) && live(acc)))
        return ELIGIBILITY_ERROR;
    }
    if (a.account_type === "business_savings") {
      for (const acc of accounts) if (accountBalance(acc) < 0) return ELIGIBILITY_ERROR;
      const eligible = accounts.some(
        (acc) => equals(kindOf(acc), "business_checking") && live(acc) && accountAgeDays(acc) >= 30,
      );
      if (!eligible) return ELIGIBILITY_ERROR;
    }
    const id = deterministicId(`account:${str(a.user_id)}:${str(a.account_type)}:${str(a.account_class)}`);
    const record: PyRecord = {
      account_id: id,
      user_id: a.user_id,
      account_type: a.account_type,
      account_class: a.account_class,
      current_holdings: "0.00",
      status: "OPEN",
      date_opened: TODAY,
    };
    if (!addToDb(db, "accounts", id, record))
      return `Failed to open account: Account ID '${id}' may already exist.`;
    return (
      "Bank account opened successfully!\n" +
      `  - Account ID: ${id}\n` +
      `  - User ID: ${str(a.user_id)}\n` +
      `  - Account Type: ${str(a.account_type)}\n` +
      `  - Account Class: ${str(a.account_class)}\n` +
      "  - Status: OPEN\n" +
      "  - Initial Balance: $0.00\n" +
      `  - Date Opened: ${TODAY}`
    );
  },
});

/** Early-closure fee and window (days) of personal accounts, by product. */
const CHECKING_EARLY_CLOSURE: Readonly<Record<string, readonly [number, number]>> = {
  "Light Blue Account": [15, 30],
  "Light Green Account": [15, 30],
  "Green Fee-Free Account": [15, 30],
  "Blue Account": [25, 60],
  "Green Account": [25, 60],
  "Evergreen Account": [50, 90],
  "Bluest Account": [100, 180],
};
const SAVINGS_EARLY_CLOSURE: Readonly<Record<string, readonly [number, number]>> = {
  "Bronze Account": [20, 60],
  "Silver Account": [35, 90],
  "Silver Plus Account": [35, 90],
  "Gold Account": [75, 180],
  "Gold Plus Account": [75, 180],
  "Gold Years Account": [75, 180],
  "Platinum Account": [150, 270],
  "Platinum Plus Account": [150, 270],
  "Diamond Elite Account": [150, 270],
};

function lookup<T>(table: Readonly<Record<string, T>>, key: unknown): T | undefined {
  return typeof key === "string" && Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined;
}

const closeBankAccount = discoverableTool({
  name: "close_bank_account_7392",
  side: "agent",
  kind: "write",
  description: "Close a checking or savings account whose balance allows it.",
  params: [
    required("account_id", "string", "The account to close."),
    optional("reason", "string", "Why it is closed.", "Customer requested closure"),
    optional("waive_early_closure_fee", "boolean", "Waive the early-closure fee.", false),
  ],
  run(db, a) {
    if (!truthy(a.account_id)) return "Error: Missing required parameter (account_id).";
    const accountId = str(a.account_id);
    const account = getRecord(db, "accounts", a.account_id);
    if (!account) return `Error: Account '${accountId}' not found.`;
    if (field(account, "status") === "CLOSED") return `Error: Account '${accountId}' is already closed.`;
    const balance = accountBalance(account);
    let fee = 0;
    if (!truthy(a.waive_early_closure_fee)) {
      const level = field(account, "level", "");
      const kind = field(account, "class", "");
      const config =
        kind === "checking"
          ? lookup(CHECKING_EARLY_CLOSURE, level)
          : kind === "savings"
            ? lookup(SAVINGS_EARLY_CLOSURE, level)
            : undefined;
      const opened = field(account, "date_opened", "");
      if (config && truthy(opened)) {
        let age: number | undefined;
        try {
          age = daysSince(opened);
        } catch (error) {
          if (!(error instanceof Error && "pyType" in error && error.pyType === "ValueError")) throw error;
        }
        if (age !== undefined && age < config[1]) {
          if (balance < config[0]) return "Error: Account unable to be closed.";
          fee = config[0];
        }
      }
    }
    if (balance - fee !== 0)
      return `Error: Account balance must be $0.00 before closing. Current balance: $${fixed(balance, 2)}`;
    account.status = "CLOSED";
    account.date_closed = TODAY;
    account.closure_reason = a.reason;
    account.early_closure_fee_waived = a.waive_early_closure_fee;
    return (
      "Bank account closed successfully!\n" +
      `  - Account ID: ${accountId}\n` +
      `  - Account Type: ${str(field(account, "account_type", "N/A"))}\n` +
      `  - Account Class: ${str(field(account, "account_class", "N/A"))}\n` +
      "  - Status: CLOSED\n" +
      `  - Date Closed: ${TODAY}\n` +
      `  - Reason: ${str(a.reason)}\n` +
      `  - Early Closure Fee Waived: ${truthy(a.waive_early_closure_fee) ? "Yes" : "No"}`
    );
  },
});

const allUserAccounts = discoverableTool({
  name: "get_all_user_accounts_by_user_id_3847",
  side: "agent",
  kind: "read",
  description: "List a customer's bank accounts and credit card accounts.",
  params: [USER_ID],
  run(db, a) {
    if (!truthy(a.user_id)) return "Error: Missing required parameter: user_id";
    const accounts = queryBy(db, "accounts", "user_id", a.user_id);
    const cards = queryBy(db, "credit_card_accounts", "user_id", a.user_id);
    const parts = [
      "User accounts retrieved successfully.",
      "",
      "Executed: get_all_user_accounts_by_user_id_3847",
      `Accounts for user ${str(a.user_id)}:`,
      "",
      "Bank Accounts:",
      found(accounts) ? accounts : "  No bank accounts found.",
      "\nCredit Card Accounts:",
      found(cards) ? cards : "  No credit card accounts found.",
    ];
    return parts.join("\n");
  },
});

const ACTIVE = ["ACTIVE", "OPEN"];

const transferFunds = discoverableTool({
  name: "transfer_funds_between_bank_accounts_7291",
  side: "agent",
  kind: "write",
  description: "Move money from one bank account to another.",
  params: [
    required("source_account_id", "string", "The account to take the money from."),
    required("destination_account_id", "string", "The account to put it in."),
    required("amount", "number", "The amount in dollars."),
  ],
  run(db, a) {
    if (!truthy(a.source_account_id) || !truthy(a.destination_account_id) || a.amount === null)
      return "Error: Missing required parameters (source_account_id, destination_account_id, amount).";
    let amount: number;
    try {
      amount = toFloat(a.amount);
    } catch {
      return `Error: Invalid amount '${str(a.amount)}'. Must be a number.`;
    }
    if (amount <= 0) return "Error: Transfer amount must be positive.";
    if (equals(a.source_account_id, a.destination_account_id))
      return "Error: Source and destination accounts cannot be the same.";
    const sourceId = str(a.source_account_id);
    const destinationId = str(a.destination_account_id);
    const source = getRecord(db, "accounts", a.source_account_id);
    if (!source) return `Error: Source account '${sourceId}' not found.`;
    const destination = getRecord(db, "accounts", a.destination_account_id);
    if (!destination) return `Error: Destination account '${destinationId}' not found.`;
    if (!isOneOf(field(source, "status"), ACTIVE))
      return `Error: Source account '${sourceId}' is not active.`;
    if (!isOneOf(field(destination, "status"), ACTIVE))
      return `Error: Destination account '${destinationId}' is not active.`;
    const sourceBalance = accountBalance(source);
    if (sourceBalance < amount)
      return `Error: Insufficient funds. Source account balance is $${fixed(sourceBalance, 2)}, but transfer amount is $${fixed(amount, 2)}.`;
    const destinationBalance = accountBalance(destination);
    const newSource = sourceBalance - amount;
    const newDestination = destinationBalance + amount;
    source.current_holdings = `$${fixed(newSource, 2)}`;
    destination.current_holdings = `$${fixed(newDestination, 2)}`;
    return (
      "Transfer completed successfully!\n" +
      `  - Amount: $${fixed(amount, 2)}\n` +
      `  - From: ${sourceId} (new balance: $${fixed(newSource, 2)})\n` +
      `  - To: ${destinationId} (new balance: $${fixed(newDestination, 2)})`
    );
  },
});

function accountCredit(options: {
  name: string;
  description: string;
  accountWord: "checking" | "savings";
  types: readonly string[];
  typesDescription: string;
  classes: readonly string[];
  notThisKind: string;
  holdingsPrefix: string;
  seedPrefix: string;
  describeCredit: (type: unknown) => string;
}): DiscoverableTool {
  return discoverableTool({
    name: options.name,
    side: "agent",
    kind: "write",
    description: options.description,
    params: [
      required("account_id", "string", `The ${options.accountWord} account to credit.`),
      required("amount", "number", "The credit in dollars (positive)."),
      required("credit_type", "string", options.typesDescription),
    ],
    run(db, a) {
      if (!truthy(a.account_id) || a.amount === null || !truthy(a.credit_type))
        return "Error: Missing required parameters.";
      let amount: number;
      try {
        amount = toFloat(a.amount);
      } catch {
        return "Error: Invalid credit amount. Must be a number.";
      }
      if (amount <= 0) return "Error: Credit amount must be positive.";
      if (!isOneOf(a.credit_type, options.types))
        return `Error: Invalid credit_type. Must be one of: ${pyRepr([...options.types])}`;
      const accountId = str(a.account_id);
      const account = getRecord(db, "accounts", a.account_id);
      if (!account) return `Error: Account '${accountId}' not found.`;
      if (!options.classes.includes(lower(field(account, "class", ""))))
        return `Error: Account '${accountId}' is not a ${options.accountWord} account. ${options.notThisKind}`;
      if (!isOneOf(field(account, "status"), ACTIVE)) return `Error: Account '${accountId}' is not active.`;
      const balance = accountBalance(account);
      const next = balance + amount;
      account.current_holdings = `${options.holdingsPrefix}${fixed(next, 2)}`;
      const credit = float(amount);
      const id = `txn_${deterministicId(`${options.seedPrefix}:${accountId}:${str(a.credit_type)}:${str(credit)}:${TODAY}`)}`;
      db.bank_account_transaction_history.data.set(id, {
        transaction_id: id,
        account_id: a.account_id,
        date: TODAY,
        description: options.describeCredit(a.credit_type),
        amount: credit,
        type: a.credit_type,
        status: "posted",
      });
      return (
        "\nCredit applied successfully!\n" +
        `  - Transaction ID: ${id}\n` +
        `  - Account: ${accountId}\n` +
        `  - Credit Type: ${str(a.credit_type)}\n` +
        `  - Amount: $${fixed(amount, 2)}\n` +
        `  - Previous Balance: $${fixed(balance, 2)}\n` +
        `  - New Balance: $${fixed(next, 2)}`
      );
    },
  });
}

const checkingCredit = accountCredit({
  name: "apply_checking_account_credit_5829",
  description: "Credit a checking account (a missing rebate, a fee charged by mistake).",
  accountWord: "checking",
  types: ["rebate_credit", "fee_refund"],
  typesDescription: "'rebate_credit' (a missing rebate) or 'fee_refund' (a fee charged by mistake).",
  classes: ["checking"],
  notThisKind: "Credits can only be applied to checking accounts.",
  holdingsPrefix: "$",
  seedPrefix: "checking_credit",
  describeCredit: (type) =>
    type === "rebate_credit" ? "REBATE CREDIT - CUSTOMER SERVICE" : "FEE REFUND - CUSTOMER SERVICE",
});

const savingsCredit = accountCredit({
  name: "apply_savings_account_credit_6831",
  description: "Credit a savings account (an interest correction, a refunded fee, a goodwill gesture).",
  accountWord: "savings",
  types: ["interest_correction", "fee_refund", "goodwill_credit"],
  typesDescription: "'interest_correction', 'fee_refund' or 'goodwill_credit'.",
  classes: ["saving", "savings"],
  notThisKind: "This tool only applies to savings accounts.",
  holdingsPrefix: "",
  seedPrefix: "savings_credit",
  describeCredit: (type) =>
    type === "interest_correction"
      ? "INTEREST CORRECTION - CUSTOMER SERVICE"
      : type === "fee_refund"
        ? "FEE REFUND - CUSTOMER SERVICE"
        : "GOODWILL CREDIT - CUSTOMER SERVICE",
});

const interestDiscrepancyReport = discoverableTool({
  name: "submit_interest_discrepancy_report_7294",
  side: "agent",
  kind: "write",
  description: "Report to the backend team that the interest paid on an account does not match its APY.",
  params: [
    required("account_id", "string", "The savings account."),
    USER_ID,
    required("expected_apy", "number", "The APY in percent the customer should have had."),
    required("actual_apy", "number", "The APY in percent that was applied."),
    required("amount_difference", "number", "The interest shortfall in dollars."),
  ],
  run(db, a) {
    if (
      !truthy(a.account_id) ||
      !truthy(a.user_id) ||
      a.expected_apy === null ||
      a.actual_apy === null ||
      a.amount_difference === null
    )
      return "Error: Missing required parameters.";
    let expected: number;
    let actual: number;
    let difference: number;
    try {
      expected = toFloat(a.expected_apy);
      actual = toFloat(a.actual_apy);
      difference = toFloat(a.amount_difference);
    } catch {
      return "Error: expected_apy, actual_apy, and amount_difference must be numbers.";
    }
    const accountId = str(a.account_id);
    const account = getRecord(db, "accounts", a.account_id);
    if (!account) return `Error: Account '${accountId}' not found.`;
    const user = getRecord(db, "users", a.user_id);
    if (!user) return `Error: User '${str(a.user_id)}' not found.`;
    // The reference writes the report to a table its database does not have: nothing is stored.
    const id = `IDR_${deterministicId(`interest_report:${accountId}:${str(a.user_id)}:${str(float(expected))}:${str(float(actual))}:${TODAY}`)}`;
    return (
      "\nInterest Discrepancy Report Submitted Successfully!\n" +
      `  - Report ID: ${id}\n` +
      `  - Account: ${accountId} (${str(field(account, "level", "Unknown"))})\n` +
      `  - Customer: ${str(field(user, "name", "Unknown"))}\n` +
      `  - Expected APY: ${str(float(expected))}%\n` +
      `  - Actual APY: ${str(float(actual))}%\n` +
      `  - APY Difference: ${str(round(expected - actual, 4))}%\n` +
      `  - Amount Difference: $${fixed(difference, 2)}\n` +
      "  - Status: PENDING_REVIEW\n" +
      "\nThe backend team will investigate this discrepancy and ensure " +
      "correct APY calculations are applied going forward."
    );
  },
});

const bankAccountTransactions = discoverableTool({
  name: "get_bank_account_transactions_9173",
  side: "agent",
  kind: "read",
  description: "List a bank account's transactions, most recent first.",
  params: [required("account_id", "string", "The bank account.")],
  run(db, a) {
    if (!truthy(a.account_id)) return "Error: Missing required parameter: account_id";
    const accountId = str(a.account_id);
    if (!getRecord(db, "accounts", a.account_id)) return `Error: Account '${accountId}' not found.`;
    const transactions = [...db.bank_account_transaction_history.data].filter(([, t]) =>
      equals(field(t, "account_id"), a.account_id),
    );
    const sorted = sortDescending(
      transactions,
      ([, t]) => parseTransactionDate(str(field(t, "date", ""))) ?? Number.NEGATIVE_INFINITY,
    );
    const parts = [
      "Bank account transactions retrieved successfully.",
      "",
      "Executed: get_bank_account_transactions_9173",
      `Transactions for account ${accountId}:`,
    ];
    parts.push(
      sorted.length > 0
        ? renderRecords("bank_account_transaction_history", sorted)
        : "\nNo transactions found for this account.",
    );
    return parts.join("\n");
  },
});

const DELIVERY_TIMES: Readonly<Record<string, string>> = {
  STANDARD: "7-10 business days",
  EXPEDITED: "3-5 business days",
  RUSH: "1-2 business days",
};

/** `float(value) if value is not None else None`, or undefined when float() fails. */
function optionalFloat(value: unknown): PyFloat | null | undefined {
  if (value === null) return null;
  try {
    return float(toFloat(value));
  } catch {
    return undefined;
  }
}

const orderDebitCard = discoverableTool({
  name: "order_debit_card_5739",
  side: "agent",
  kind: "write",
  description: "Order a new debit card for a checking account, charging any fees to it.",
  params: [
    required("account_id", "string", "The checking account the card draws on."),
    USER_ID,
    required("delivery_option", "string", "STANDARD, EXPEDITED or RUSH."),
    required("delivery_fee", "number", "The delivery fee in dollars."),
    required("card_design", "string", "CLASSIC, PREMIUM or CUSTOM."),
    required("design_fee", "number", "The design fee in dollars."),
    required("shipping_address", "string", "Where to send the card."),
    optional("excess_replacement_fee", "number", "Fee for going over the replacement limit, if any.", null),
  ],
  run(db, a) {
    let excess: number | PyFloat = truthy(a.excess_replacement_fee)
      ? (a.excess_replacement_fee as PyFloat)
      : 0;
    const deliveryFee = optionalFloat(a.delivery_fee);
    if (deliveryFee === undefined) return "Error: delivery_fee must be a number.";
    const designFee = optionalFloat(a.design_fee);
    if (designFee === undefined) return "Error: design_fee must be a number.";
    try {
      excess = float(toFloat(excess));
    } catch {
      excess = 0;
    }
    if (
      ![a.account_id, a.user_id, a.delivery_option].every(truthy) ||
      deliveryFee === null ||
      !truthy(a.card_design) ||
      designFee === null ||
      !truthy(a.shipping_address)
    )
      return "Error: Missing required parameters. Required: account_id, user_id, delivery_option, delivery_fee, card_design, design_fee, shipping_address.";
    const deliveryOptions = ["STANDARD", "EXPEDITED", "RUSH"];
    const delivery = upper(a.delivery_option);
    if (!deliveryOptions.includes(delivery))
      return `Error: Invalid delivery_option. Must be one of: ${pyRepr(deliveryOptions)}`;
    const designs = ["CLASSIC", "PREMIUM", "CUSTOM"];
    const design = upper(a.card_design);
    if (!designs.includes(design)) return `Error: Invalid card_design. Must be one of: ${pyRepr(designs)}`;
    const accountId = str(a.account_id);
    const account = getRecord(db, "accounts", a.account_id);
    if (!account) return `Error: Account '${accountId}' not found.`;
    if (field(account, "class") !== "checking")
      return `Error: Debit cards can only be ordered for checking accounts. Account '${accountId}' is a ${str(field(account, "class"))} account.`;
    if (field(account, "status") !== "OPEN")
      return `Error: Account must be OPEN. Account '${accountId}' has status: ${str(field(account, "status"))}`;
    if (!equals(field(account, "user_id"), a.user_id))
      return `Error: Account '${accountId}' does not belong to user '${str(a.user_id)}'.`;
    let holdings: number;
    try {
      holdings = toFloat(str(field(account, "current_holdings", "0")).replaceAll(",", ""));
    } catch (error) {
      if (!(error instanceof Error && "pyType" in error && error.pyType === "ValueError")) throw error;
      holdings = 0;
    }
    if (holdings < 25)
      return `Error: Account must have a minimum balance of $25. Current balance: $${fixed(holdings, 2)}`;
    for (const order of db.debit_card_orders.data.values())
      if (equals(field(order, "account_id"), a.account_id) && field(order, "status") === "PENDING")
        return `Error: There is already a pending debit card order for account '${accountId}'.`;
    const activeCards = [...db.debit_cards.data.values()].filter(
      (card) => equals(field(card, "account_id"), a.account_id) && field(card, "status") === "ACTIVE",
    ).length;
    if (activeCards >= 1)
      return `Error: Account '${accountId}' already has an active debit card. Maximum 1 active card per checking account.`;
    const totalFee = add(add(deliveryFee, designFee), excess);
    const total = (totalFee as PyFloat).value;
    if (total > 0 && holdings < total)
      return `Error: Insufficient funds for fees. Total fees: $${fixed(total, 2)}. Current balance: $${fixed(holdings, 2)}`;
    const expected = DELIVERY_TIMES[delivery]!;
    const orderId = debitCardOrderId(a.account_id, a.user_id, delivery);
    const order: PyRecord = {
      order_id: orderId,
      account_id: a.account_id,
      user_id: a.user_id,
      delivery_option: delivery,
      card_design: design,
      shipping_address: a.shipping_address,
      delivery_fee: deliveryFee,
      design_fee: designFee,
      excess_replacement_fee: excess,
      total_fee: totalFee,
      order_date: TODAY,
      expected_delivery: expected,
      status: "PENDING",
    };
    if (!addToDb(db, "debit_card_orders", orderId, order))
      return "Error: Failed to create debit card order. Order may already exist.";
    const excessValue = excess instanceof PyFloat ? excess.value : excess;
    if (total > 0) {
      account.current_holdings = fixed(holdings - total, 2);
      const fees: string[] = [];
      if (deliveryFee.value > 0) fees.push(`Delivery $${str(deliveryFee)}`);
      if (designFee.value > 0) fees.push(`Design $${str(designFee)}`);
      if (excessValue > 0) fees.push(`Excess Replacement $${fixed(excess, 0)}`);
      const feeId = `btxn_dcfee_${orderId.slice(-8)}`;
      addToDb(db, "bank_account_transaction_history", feeId, {
        transaction_id: feeId,
        account_id: a.account_id,
        date: TODAY,
        description: `DEBIT CARD ORDER FEE - ${fees.join(", ")}`,
        amount: negate(totalFee),
        type: "debit_card_fee",
        status: "posted",
      });
    }
    const cardId = debitCardId(a.account_id, a.user_id, TODAY);
    const seed = `card_details:${cardId}`;
    const digits = (hex: string, count: number) =>
      [...hex]
        .filter((c) => c >= "0" && c <= "9")
        .join("")
        .slice(0, count)
        .padStart(count, "0");
    const last4 = digits(deterministicId(`${seed}:last4`, 8), 4);
    const cvv = digits(deterministicId(`${seed}:cvv`, 6), 3);
    const user = getRecord(db, "users", a.user_id);
    const cardholder = user ? upper(field(user, "name", "CARDHOLDER")) : "CARDHOLDER";
    // Four years from the order date, at the end of its month (February always has 28 days here).
    const [month, , year] = TODAY.split("/") as [string, string, string];
    const lastDay = ["01", "03", "05", "07", "08", "10", "12"].includes(month)
      ? "31"
      : month === "02"
        ? "28"
        : "30";
    const expiration = `${month}/${lastDay}/${Number(year) + 4}`;
    const existing = [...db.debit_cards.data.values()].filter((card) =>
      equals(field(card, "account_id"), a.account_id),
    );
    const closed = existing.find((card) => field(card, "status") === "CLOSED");
    let issueReason: unknown;
    if (closed) {
      const closure = field(closed, "closure_reason", "first_card");
      issueReason = isOneOf(closure, ["lost", "stolen", "fraud", "fraud_suspected"])
        ? closure === "fraud_suspected"
          ? "fraud"
          : closure
        : "first_card";
    } else {
      issueReason = existing.length > 0 ? "first_card" : "new_account";
    }
    addToDb(db, "debit_cards", cardId, {
      card_id: cardId,
      account_id: a.account_id,
      user_id: a.user_id,
      cardholder_name: cardholder,
      last_4_digits: last4,
      cvv,
      status: "PENDING",
      issue_date: TODAY,
      expiration_date: expiration,
      card_design: design,
      issue_reason: issueReason,
    });
    const parts = [
      "Debit Card Order Confirmed",
      `Order ID: ${orderId}`,
      `Card ID: ${cardId}`,
      `Linked Account: ${accountId}`,
      `Delivery Option: ${delivery}`,
      `Card Design: ${design}`,
      `Shipping Address: ${str(a.shipping_address)}`,
      `Expected Delivery: ${expected}`,
      "",
      "Note: Card will arrive with status PENDING. Customer must call to activate after receiving the card.",
    ];
    if (total > 0) {
      const details: string[] = [];
      if (deliveryFee.value > 0) details.push(`Delivery: $${str(deliveryFee)}`);
      if (designFee.value > 0) details.push(`Design: $${str(designFee)}`);
      if (excessValue > 0) details.push(`Excess Replacement: $${fixed(excess, 0)}`);
      parts.push(`Total Fees: $${fixed(total, 2)} (${details.join(", ")}) - CHARGED to account ${accountId}`);
      parts.push(`New Account Balance: $${fixed(holdings - total, 2)}`);
    } else {
      parts.push("Total Fees: $0 (No additional charges)");
    }
    return parts.join("\n");
  },
});

const PIN_RULES = "4 digits, not sequential and not all the same digit";

/** τ² `_validate_pin`: the problem with a PIN, or undefined for a good one. */
function pinProblem(pin: unknown): string | undefined {
  if (!truthy(pin) || !isDigits(pin) || len(pin) !== 4) return "PIN must be exactly 4 digits.";
  const sequential = [
    "0123",
    "1234",
    "2345",
    "3456",
    "4567",
    "5678",
    "6789",
    "9876",
    "8765",
    "7654",
    "6543",
    "5432",
    "4321",
    "3210",
  ];
  if (sequential.includes(pin as string))
    return "PIN cannot be sequential (e.g., 1234). Please choose a more secure PIN.";
  if (new Set(pin as string).size === 1)
    return "PIN cannot be all the same digit (e.g., 1111). Please choose a more secure PIN.";
  return undefined;
}

const ACTIVATION_TOOL_BY_REASON: Readonly<Record<string, string>> = {
  new_account: "activate_debit_card_8291",
  first_card: "activate_debit_card_8291",
  lost: "activate_debit_card_8292",
  stolen: "activate_debit_card_8292",
  fraud: "activate_debit_card_8292",
  expired: "activate_debit_card_8293",
  damaged: "activate_debit_card_8293",
  upgrade: "activate_debit_card_8293",
  bank_reissue: "activate_debit_card_8293",
};

/** τ² `_validate_activation_common`: the error, or the card to activate. */
function activationCheck(
  db: BankingDb,
  a: Readonly<Record<string, unknown>>,
  allowed: readonly string[],
  toolName: string,
): { error: string } | { card: PyRecord } {
  if (![a.card_id, a.last_4_digits, a.expiration_date, a.cvv, a.pin].every(truthy))
    return {
      error:
        "Error: Missing required parameters. Required: card_id, last_4_digits, expiration_date, cvv, pin.",
    };
  const pin = pinProblem(a.pin);
  if (pin) return { error: `Error: ${pin}` };
  if (!isDigits(a.cvv) || len(a.cvv) !== 3) return { error: "Error: CVV must be exactly 3 digits." };
  if (!isDigits(a.last_4_digits) || len(a.last_4_digits) !== 4)
    return { error: "Error: Last 4 digits must be exactly 4 digits." };
  const cardId = str(a.card_id);
  const card = getRecord(db, "debit_cards", a.card_id);
  if (!card) return { error: `Error: Debit card '${cardId}' not found.` };
  const reason = field(card, "issue_reason", "new_account");
  if (!isOneOf(reason, allowed)) {
    const correct = lookup(ACTIVATION_TOOL_BY_REASON, reason) ?? "unknown";
    return {
      error: `Error: Wrong activation tool. This card has issue_reason='${str(reason)}'. Please use ${correct} instead of ${toolName}.`,
    };
  }
  if (field(card, "status") === "ACTIVE")
    return { error: `Error: Debit card '${cardId}' is already active.` };
  if (field(card, "status") !== "PENDING")
    return {
      error: `Error: Debit card '${cardId}' cannot be activated. Current status: ${str(field(card, "status"))}. Only PENDING cards can be activated.`,
    };
  if (!equals(field(card, "last_4_digits"), a.last_4_digits))
    return { error: "Error: Card verification failed. The last 4 digits do not match our records." };
  const accountId = field(card, "account_id");
  if (truthy(accountId)) {
    const account = getRecord(db, "accounts", accountId);
    if (account && field(account, "status") !== "OPEN")
      return {
        error: `Error: The linked checking account '${str(accountId)}' is no longer open. Card cannot be activated.`,
      };
  }
  return { card };
}

const CARD_ACTIVATION_PARAMS: readonly DiscoverableParam[] = [
  required("card_id", "string", "The debit card to activate."),
  required("last_4_digits", "string", "Last 4 digits of the card number, to verify it."),
  required("expiration_date", "string", "The expiration date printed on the card (MM/YY)."),
  required("cvv", "string", "The 3-digit security code."),
  required("pin", "string", `The PIN the customer chooses (${PIN_RULES}).`),
];

/** The other active cards of the card's account, changed by `retire`; their ids. */
function retireOtherCards(
  db: BankingDb,
  cardId: unknown,
  accountId: unknown,
  retire: (card: PyRecord) => void,
): string[] {
  const retired: string[] = [];
  for (const [id, other] of db.debit_cards.data) {
    if (
      !equals(id, cardId) &&
      equals(field(other, "account_id"), accountId) &&
      field(other, "status") === "ACTIVE"
    ) {
      retire(other);
      retired.push(id);
    }
  }
  return retired;
}

const activateNewCard = discoverableTool({
  name: "activate_debit_card_8291",
  side: "agent",
  kind: "write",
  description: "Activate a checking account's first debit card (issue reason 'new_account' or 'first_card').",
  params: CARD_ACTIVATION_PARAMS,
  run(db, a) {
    const checked = activationCheck(db, a, ["new_account", "first_card"], "activate_debit_card_8291");
    if ("error" in checked) return checked.error;
    const { card } = checked;
    const accountId = field(card, "account_id");
    card.status = "ACTIVE";
    card.activated_date = TODAY;
    const retired = retireOtherCards(db, a.card_id, accountId, (other) => {
      other.status = "DEACTIVATED";
      other.deactivated_date = TODAY;
      other.deactivation_reason = "New card activated";
    });
    const parts = [
      "New Debit Card Activation Successful",
      `Card ID: ${str(a.card_id)}`,
      "Status: ACTIVE",
      `Activation Date: ${TODAY}`,
      "",
      "Your card is now ready to use at any ATM or point of sale terminal.",
      "For security, please sign the back of your card.",
    ];
    if (retired.length > 0)
      parts.push(`\nNote: Previous card(s) have been deactivated: ${retired.join(", ")}`);
    return parts.join("\n");
  },
});

const activateReplacementCard = discoverableTool({
  name: "activate_debit_card_8292",
  side: "agent",
  kind: "write",
  description:
    "Activate a debit card that replaces a lost, stolen or compromised one (issue reason 'lost', 'stolen' or 'fraud').",
  params: CARD_ACTIVATION_PARAMS,
  run(db, a) {
    const checked = activationCheck(db, a, ["lost", "stolen", "fraud"], "activate_debit_card_8292");
    if ("error" in checked) return checked.error;
    const { card } = checked;
    const accountId = field(card, "account_id");
    const reason = field(card, "issue_reason", "lost");
    card.status = "ACTIVE";
    card.activated_date = TODAY;
    const retired = retireOtherCards(db, a.card_id, accountId, (other) => {
      other.status = "DEACTIVATED";
      other.deactivated_date = TODAY;
      other.deactivation_reason = `Replacement card activated (${str(reason)})`;
    });
    const parts = [
      "Replacement Debit Card Activation Successful",
      `Card ID: ${str(a.card_id)}`,
      `Replacement Reason: ${titleWords(reason)}`,
      "Status: ACTIVE",
      `Activation Date: ${TODAY}`,
      "",
      "Your replacement card is now ready to use.",
      "",
      "IMPORTANT SECURITY REMINDERS:",
      "- Please review your recent transactions for any unauthorized charges",
      "- Report any suspicious activity immediately",
    ];
    if (reason === "fraud")
      parts.push("- Since fraud was suspected, we recommend changing your online banking password");
    if (retired.length > 0)
      parts.push(`\nPrevious card(s) have been deactivated for security: ${retired.join(", ")}`);
    return parts.join("\n");
  },
});

const activateReissuedCard = discoverableTool({
  name: "activate_debit_card_8293",
  side: "agent",
  kind: "write",
  description:
    "Activate a reissued debit card (issue reason 'expired', 'damaged', 'upgrade' or 'bank_reissue').",
  params: CARD_ACTIVATION_PARAMS,
  run(db, a) {
    const checked = activationCheck(
      db,
      a,
      ["expired", "damaged", "upgrade", "bank_reissue"],
      "activate_debit_card_8293",
    );
    if ("error" in checked) return checked.error;
    const { card } = checked;
    const accountId = field(card, "account_id");
    const reason = field(card, "issue_reason", "expired");
    card.status = "ACTIVE";
    card.activated_date = TODAY;
    const graced = retireOtherCards(db, a.card_id, accountId, (other) => {
      other.status = "GRACE_PERIOD";
      other.grace_period_ends = TODAY;
      other.deactivation_reason = `Reissued card activated (${str(reason)})`;
    });
    const parts = [
      "Reissued Debit Card Activation Successful",
      `Card ID: ${str(a.card_id)}`,
      `Reissue Reason: ${titleWords(reason)}`,
      "Status: ACTIVE",
      `Activation Date: ${TODAY}`,
      "",
      "Your reissued card is now ready to use.",
    ];
    if (graced.length > 0) {
      parts.push(
        `\nNote: Your previous card(s) (${graced.join(", ")}) will remain active for 24 hours as a grace period.`,
      );
      parts.push("After 24 hours, the old card(s) will be automatically deactivated.");
    }
    if (isOneOf(reason, ["expired", "bank_reissue"]))
      parts.push(
        "\nReminder: If your card number changed, please update any recurring payments with your new card details.",
      );
    return parts.join("\n");
  },
});

const closeDebitCard = discoverableTool({
  name: "close_debit_card_4721",
  side: "agent",
  kind: "write",
  description: "Close a debit card permanently.",
  params: [
    required("card_id", "string", "The debit card to close."),
    required(
      "reason",
      "string",
      "lost, stolen, fraud_suspected, damaged, no_longer_needed or account_closing.",
    ),
  ],
  run(db, a) {
    if (!truthy(a.card_id) || !truthy(a.reason))
      return "Error: Missing required parameters. Required: card_id, reason.";
    const reasons = ["lost", "stolen", "fraud_suspected", "damaged", "no_longer_needed", "account_closing"];
    const reason = lower(a.reason);
    if (!reasons.includes(reason)) return `Error: Invalid reason. Must be one of: ${pyRepr(reasons)}`;
    const cardId = str(a.card_id);
    const card = getRecord(db, "debit_cards", a.card_id);
    if (!card) return `Error: Debit card '${cardId}' not found.`;
    const previous = field(card, "status");
    if (!isOneOf(previous, ["ACTIVE", "PENDING"]))
      return `Error: Debit card '${cardId}' cannot be closed. Current status: ${str(previous)}. Only ACTIVE or PENDING cards can be closed.`;
    card.status = "CLOSED";
    card.closed_date = TODAY;
    card.closure_reason = reason;
    const parts = [
      "Debit Card Closed Successfully",
      `Card ID: ${cardId}`,
      `Previous Status: ${str(previous)}`,
      "New Status: CLOSED",
      `Closure Reason: ${titleWords(reason)}`,
      `Closure Date: ${TODAY}`,
      "",
    ];
    if (["lost", "stolen", "fraud_suspected"].includes(reason)) {
      parts.push("IMPORTANT: This card has been immediately deactivated for security.");
      parts.push("Any pending transactions may still be processed.");
      if (reason === "fraud_suspected") {
        parts.push(
          "Please advise the customer to review recent transactions and file disputes for any unauthorized charges.",
        );
        parts.push("Also recommend changing their online banking password.");
      }
    }
    parts.push("");
    parts.push(
      "Note: This card cannot be reactivated. If the customer needs a new card, they can order one through the standard ordering process.",
    );
    parts.push(
      "Any recurring payments linked to this card will need to be updated with new payment information.",
    );
    return parts.join("\n");
  },
});

const freezeDebitCard = discoverableTool({
  name: "freeze_debit_card_3892",
  side: "agent",
  kind: "write",
  description: "Freeze an active debit card for now; it can be unfrozen later.",
  params: [required("card_id", "string", "The debit card to freeze.")],
  run(db, a) {
    if (!truthy(a.card_id)) return "Error: Missing required parameter: card_id.";
    const cardId = str(a.card_id);
    const card = getRecord(db, "debit_cards", a.card_id);
    if (!card) return `Error: Debit card '${cardId}' not found.`;
    if (field(card, "status") === "FROZEN") return `Error: Debit card '${cardId}' is already frozen.`;
    if (field(card, "status") !== "ACTIVE")
      return `Error: Debit card '${cardId}' cannot be frozen. Current status: ${str(field(card, "status"))}. Only ACTIVE cards can be frozen.`;
    card.status = "FROZEN";
    card.frozen_date = TODAY;
    return [
      "Debit Card Frozen Successfully",
      `Card ID: ${cardId}`,
      "Status: FROZEN",
      `Frozen Date: ${TODAY}`,
      "",
      "While frozen:",
      "- All new purchase transactions will be declined",
      "- Recurring payments and subscriptions will be declined",
      "- Pending transactions already authorized may still process",
      "",
      "To unfreeze, the customer can call customer service or use the mobile app.",
      "If the card is confirmed lost or stolen, recommend closing the card permanently instead.",
    ].join("\n");
  },
});

const unfreezeDebitCard = discoverableTool({
  name: "unfreeze_debit_card_3893",
  side: "agent",
  kind: "write",
  description: "Unfreeze a frozen debit card.",
  params: [required("card_id", "string", "The debit card to unfreeze.")],
  run(db, a) {
    if (!truthy(a.card_id)) return "Error: Missing required parameter: card_id.";
    const cardId = str(a.card_id);
    const card = getRecord(db, "debit_cards", a.card_id);
    if (!card) return `Error: Debit card '${cardId}' not found.`;
    if (field(card, "status") === "ACTIVE") return `Error: Debit card '${cardId}' is already active.`;
    if (field(card, "status") !== "FROZEN")
      return `Error: Debit card '${cardId}' cannot be unfrozen. Current status: ${str(field(card, "status"))}. Only FROZEN cards can be unfrozen.`;
    const accountId = field(card, "account_id");
    if (truthy(accountId)) {
      const account = getRecord(db, "accounts", accountId);
      if (account && field(account, "status") !== "OPEN")
        return `Error: The linked checking account '${str(accountId)}' is no longer open. Card cannot be unfrozen.`;
    }
    card.status = "ACTIVE";
    card.unfrozen_date = TODAY;
    return [
      "Debit Card Unfrozen Successfully",
      `Card ID: ${cardId}`,
      "Status: ACTIVE",
      `Unfrozen Date: ${TODAY}`,
      "",
      "The card is now active and ready to use immediately.",
      "All transactions will process normally.",
    ].join("\n");
  },
});

const clearFraudAlert = discoverableTool({
  name: "clear_debit_card_fraud_alert_4892",
  side: "agent",
  kind: "write",
  description: "Lift a fraud alert or a velocity block from a debit card after verifying the customer.",
  params: [
    required("card_id", "string", "The debit card."),
    required(
      "reason",
      "string",
      "'customer_verified' (a fraud alert) or 'velocity_clear' (a velocity block).",
    ),
  ],
  run(db, a) {
    if (!truthy(a.card_id)) return "Error: Missing required parameter: card_id.";
    if (!truthy(a.reason)) return "Error: Missing required parameter: reason.";
    const reasons = ["customer_verified", "velocity_clear"];
    if (!isOneOf(a.reason, reasons))
      return `Error: Invalid reason '${str(a.reason)}'. Must be one of: ${reasons.join(", ")}`;
    const cardId = str(a.card_id);
    const card = getRecord(db, "debit_cards", a.card_id);
    if (!card) return `Error: Debit card '${cardId}' not found.`;
    if (a.reason === "velocity_clear") {
      if (!truthy(field(card, "velocity_blocked", false)))
        return `Error: Debit card '${cardId}' does not have an active velocity block.`;
      card.velocity_blocked = false;
      card.velocity_cleared_date = TODAY;
      return [
        "Velocity Block Cleared Successfully",
        `Card ID: ${cardId}`,
        `Cleared Date: ${TODAY}`,
        "",
        "The card is now unblocked and ready for normal use.",
        "The velocity monitoring will continue - if the same unusual patterns recur,",
        "the card may be blocked again automatically.",
      ].join("\n");
    }
    if (!truthy(field(card, "fraud_alert_active", false)))
      return `Error: Debit card '${cardId}' does not have an active fraud alert.`;
    if (field(card, "alert_source") === "bank_initiated")
      return "Error: BANK_INITIATED_ALERT - This fraud alert was initiated by the bank's fraud detection system and cannot be cleared by customer service agents. Please transfer the customer to the security team using transfer_to_human_agents.";
    card.fraud_alert_active = false;
    card.alert_source = null;
    card.fraud_alert_cleared_date = TODAY;
    return [
      "Fraud Alert Cleared Successfully",
      `Card ID: ${cardId}`,
      `Cleared Date: ${TODAY}`,
      "",
      "The fraud alert has been removed from the card.",
      "All transactions will process normally.",
      "",
      "Remind the customer to review recent transactions and report any unauthorized charges.",
    ].join("\n");
  },
});

const PIN_SECURITY = ["", "Security reminder: Never share your PIN with anyone."];

const resetPin = discoverableTool({
  name: "reset_debit_card_pin_6284",
  side: "agent",
  kind: "write",
  description: "Set a new PIN on an active debit card when the customer forgot the old one.",
  params: [
    required("card_id", "string", "The debit card."),
    required("last_4_digits", "string", "Last 4 digits of the card number, to verify it."),
    required("new_pin", "string", `The new PIN (${PIN_RULES}).`),
  ],
  run(db, a) {
    if (![a.card_id, a.last_4_digits, a.new_pin].every(truthy))
      return "Error: Missing required parameters. Required: card_id, last_4_digits, new_pin.";
    if (!isDigits(a.last_4_digits) || len(a.last_4_digits) !== 4)
      return "Error: Last 4 digits must be exactly 4 digits.";
    const pin = pinProblem(a.new_pin);
    if (pin) return `Error: ${pin}`;
    const cardId = str(a.card_id);
    const card = getRecord(db, "debit_cards", a.card_id);
    if (!card) return `Error: Debit card '${cardId}' not found.`;
    if (!equals(field(card, "last_4_digits"), a.last_4_digits))
      return "Error: Card verification failed. The last 4 digits do not match our records.";
    if (field(card, "status") !== "ACTIVE")
      return `Error: Cannot reset PIN. Card status is ${str(field(card, "status"))}. Only ACTIVE cards can have their PIN reset.`;
    card.pin_last_changed = TODAY;
    card.pin_locked = false;
    card.pin_attempts_remaining = 3;
    return [
      "Debit Card PIN Reset Successfully",
      `Card ID: ${cardId}`,
      `PIN Changed: ${TODAY}`,
      "",
      "The new PIN is effective immediately.",
      "Your card has been unlocked and is ready to use.",
      "Customer can use the new PIN for ATM withdrawals and point-of-sale transactions.",
      ...PIN_SECURITY,
    ].join("\n");
  },
});

const changePin = discoverableTool({
  name: "change_debit_card_pin_6285",
  side: "agent",
  kind: "write",
  description: "Change the PIN of an active debit card when the customer knows the current one.",
  params: [
    required("card_id", "string", "The debit card."),
    required("current_pin", "string", "The current 4-digit PIN."),
    required("new_pin", "string", `The new PIN (${PIN_RULES}).`),
  ],
  run(db, a) {
    if (![a.card_id, a.current_pin, a.new_pin].every(truthy))
      return "Error: Missing required parameters. Required: card_id, current_pin, new_pin.";
    if (!isDigits(a.current_pin) || len(a.current_pin) !== 4)
      return "Error: Current PIN must be exactly 4 digits.";
    const pin = pinProblem(a.new_pin);
    if (pin) return `Error: ${pin}`;
    if (equals(a.current_pin, a.new_pin)) return "Error: New PIN must be different from current PIN.";
    const cardId = str(a.card_id);
    const card = getRecord(db, "debit_cards", a.card_id);
    if (!card) return `Error: Debit card '${cardId}' not found.`;
    if (field(card, "status") !== "ACTIVE")
      return `Error: Cannot change PIN. Card status is ${str(field(card, "status"))}. Only ACTIVE cards can have their PIN changed.`;
    card.pin_last_changed = TODAY;
    return [
      "Debit Card PIN Changed Successfully",
      `Card ID: ${cardId}`,
      `PIN Changed: ${TODAY}`,
      "",
      "The new PIN is effective immediately.",
      "Customer can use the new PIN for ATM withdrawals and point-of-sale transactions.",
      ...PIN_SECURITY,
    ].join("\n");
  },
});

const debitCardsOfAccount = discoverableTool({
  name: "get_debit_cards_by_account_id_7823",
  side: "agent",
  kind: "read",
  description: "List the debit cards of a checking account, newest first.",
  params: [required("account_id", "string", "The checking account.")],
  run(db, a) {
    if (!truthy(a.account_id)) return "Error: Missing required parameter 'account_id'.";
    const accountId = str(a.account_id);
    const account = getRecord(db, "accounts", a.account_id);
    if (!account) return `Error: Account '${accountId}' not found.`;
    if (!["checking", "business_checking"].includes(lower(field(account, "class", ""))))
      return `Error: Account '${accountId}' is not a checking account. Debit cards are only available for checking accounts.`;
    const cards: PyRecord[] = [];
    for (const [id, card] of db.debit_cards.data) {
      if (!equals(field(card, "account_id"), a.account_id)) continue;
      const info = new Map<string, unknown>([["card_id", id]]);
      for (const [key, value] of Object.entries(card)) info.set(key, value);
      if (info.has("last_4_digits") && !info.has("card_number_last_4")) {
        const value = info.get("last_4_digits");
        info.delete("last_4_digits");
        info.set("card_number_last_4", value);
      }
      if (info.has("issue_date") && !info.has("date_issued")) {
        const value = info.get("issue_date");
        info.delete("issue_date");
        info.set("date_issued", value);
      } else if (info.has("created_date") && !info.has("date_issued")) {
        const value = info.get("created_date");
        info.delete("created_date");
        info.set("date_issued", value);
      }
      cards.push(Object.fromEntries(info));
    }
    if (cards.length === 0) return `No debit cards found for account '${accountId}'.`;
    const sorted = sortDescending(cards, (card) => {
      const date = field(card, "date_issued");
      return truthy(date) ? str(date) : "";
    });
    return jsonDumpsIndented(sorted);
  },
});

const DEFAULT_ATM_LIMITS: Readonly<Record<string, number>> = {
  "blue account": 500,
  "green account": 600,
  "light blue account": 400,
  "green fee-free account": 500,
  "evergreen account": 750,
  "bluest account": 1500,
  "dark green account": 300,
  "gold years account": 600,
  "purple account": 1000,
};

const temporaryLimitIncrease = discoverableTool({
  name: "request_temporary_debit_card_limit_increase_8374",
  side: "agent",
  kind: "write",
  description: "Raise a debit card's daily ATM or purchase limit for 24 hours (at most by half).",
  params: [
    required("card_id", "string", "The debit card."),
    required("limit_type", "string", "'atm' (daily ATM withdrawals) or 'purchase' (daily purchases)."),
    required("new_limit", "integer", "The temporary limit in dollars."),
  ],
  run(db, a) {
    if (!truthy(a.card_id)) return "Error: Missing required parameter: card_id.";
    if (!truthy(a.limit_type)) return "Error: Missing required parameter: limit_type.";
    if (!isOneOf(a.limit_type, ["atm", "purchase"]))
      return `Error: Invalid limit_type '${str(a.limit_type)}'. Must be 'atm' or 'purchase'.`;
    if (a.new_limit === null) return "Error: Missing required parameter: new_limit.";
    let asFloat: number;
    try {
      asFloat = toFloat(a.new_limit);
    } catch {
      return `Error: new_limit must be an integer, got '${str(a.new_limit)}'.`;
    }
    if (!Number.isInteger(asFloat))
      return `Error: new_limit must be an integer, got '${str(float(asFloat))}'.`;
    const newLimit = asFloat;
    if (newLimit <= 0) return "Error: new_limit must be a positive amount.";
    const cardId = str(a.card_id);
    const card = getRecord(db, "debit_cards", a.card_id);
    if (!card) return `Error: Debit card '${cardId}' not found.`;
    if (field(card, "status") !== "ACTIVE")
      return `Error: Debit card '${cardId}' is not active. Current status: ${str(field(card, "status"))}. Only ACTIVE cards can have limit increases.`;
    const accountId = field(card, "account_id");
    const account = truthy(accountId) ? getRecord(db, "accounts", accountId) : undefined;
    if (!account) return `Error: Could not find linked account for debit card '${cardId}'.`;
    if (field(account, "status") !== "OPEN")
      return `Error: The linked account '${str(accountId)}' is not in good standing. Account status: ${str(field(account, "status"))}.`;
    const opened = field(account, "date_opened");
    if (truthy(opened)) {
      let age: number | undefined;
      try {
        age = daysSince(opened);
      } catch (error) {
        if (!(error instanceof Error && "pyType" in error && error.pyType === "ValueError")) throw error;
      }
      if (age !== undefined && age < 60)
        return `Error: Account must be at least 60 days old for a temporary limit increase. Account age: ${age} days.`;
    }
    let current: unknown;
    let limitField: string;
    let limitName: string;
    if (a.limit_type === "atm") {
      current = field(card, "daily_atm_limit");
      limitField = "daily_atm_limit";
      limitName = "Daily ATM Withdrawal Limit";
      if (current === null) {
        const level = lower(field(account, "level", ""));
        if (level.includes("light green"))
          return "Error: Light Green Account (teen checking) cards have policy-based limits that cannot be modified. The daily ATM withdrawal limit of $150 is fixed by account policy for safety reasons. The customer may request the parent/guardian to withdraw cash from their own account if needed.";
        current = lookup(DEFAULT_ATM_LIMITS, level) ?? null;
        if (current === null)
          return `Error: Could not determine the default ATM limit for account type '${str(field(account, "level"))}'. Please verify the account type.`;
      }
    } else {
      current = field(card, "daily_purchase_limit");
      limitField = "daily_purchase_limit";
      limitName = "Daily Purchase Limit";
    }
    if (current === null)
      return `Error: The card does not have a ${limitName.toLowerCase()} configured. This may be a restricted account type where limits are set by account policy and cannot be modified.`;
    const maxAllowed = toInt(multiply(current, float(1.5)));
    if (newLimit > maxAllowed)
      return `Error: Requested limit $${newLimit} exceeds the maximum allowed temporary increase. Maximum temporary limit is $${maxAllowed} (150% of current $${str(current)} limit).`;
    if (compare(newLimit, "<=", current))
      return `Error: Requested limit $${newLimit} is not higher than the current limit of $${str(current)}.`;
    card[limitField] = newLimit;
    card[`temporary_${str(a.limit_type)}_limit_increase`] = true;
    card[`original_${str(a.limit_type)}_limit`] = current;
    card[`temporary_${str(a.limit_type)}_limit_expires`] = TODAY;
    return [
      `Temporary ${limitName} Increase Granted Successfully`,
      `Card ID: ${cardId}`,
      `Previous Limit: $${str(current)}`,
      `New Temporary Limit: $${newLimit}`,
      `Increase Amount: $${str(subtract(newLimit, current))}`,
      "",
      "Important Information:",
      "- This temporary increase expires in 24 hours",
      `- After expiration, the limit will revert to $${str(current)}`,
      "- Only one temporary increase is allowed per 24-hour period",
      "",
      "Note: If the customer is at a third-party (non-Rho-Bank) ATM, that ATM may have its own",
      "per-transaction or daily limits that Rho-Bank cannot override. The customer may need to",
      "use a Rho-Bank ATM or make multiple smaller withdrawals at third-party ATMs.",
    ].join("\n");
  },
});

/** The agent's discoverable tools, in the reference's order. */
export const AGENT_DISCOVERABLE_TOOLS: readonly DiscoverableTool[] = [
  exampleTool,
  updateTransactionRewards,
  initialTransfer0218,
  initialTransfer1822,
  emergencyBureauTransfer,
  fileCreditCardDispute,
  fileDebitCardDispute,
  setRecurringBlock,
  debitDisputeStatus,
  atmDepositImages,
  orderReplacementCreditCard,
  userDisputeHistory,
  pendingReplacementOrders,
  logClosureReason,
  closureReasonHistory,
  applyStatementCredit,
  applyAccountFlag,
  closeCreditCardAccount,
  payCreditCardFromChecking,
  submitCreditLimitIncrease,
  creditLimitHistory,
  paymentHistory,
  approveCreditLimitIncrease,
  denyCreditLimitIncrease,
  openBankAccount,
  closeBankAccount,
  allUserAccounts,
  transferFunds,
  checkingCredit,
  savingsCredit,
  interestDiscrepancyReport,
  bankAccountTransactions,
  orderDebitCard,
  activateNewCard,
  activateReplacementCard,
  activateReissuedCard,
  closeDebitCard,
  freezeDebitCard,
  unfreezeDebitCard,
  clearFraudAlert,
  resetPin,
  changePin,
  debitCardsOfAccount,
  temporaryLimitIncrease,
];
