import { createHash } from "node:crypto";
import { z } from "zod";
import { PyException } from "../../python/py-exception.js";
import { pyJsonLoads, PyJsonDecodeError } from "../../python/py-json-loads.js";
import { pyRepr } from "../../python/py-values.js";
import { defineTool, type Tool, type ToolContext } from "../../env/tool.js";
import { accountBalance, TODAY } from "./clock.js";
import { addToDb, field, getRecord, type BankingDb, type PyRecord } from "./db.js";
import { asPython, bindArguments, discoverableTool, type DiscoverableTool } from "./discoverable.js";
import {
  applicationId,
  disputeId,
  referralId,
  referralLinkId,
  transactionId,
  userDiscoverableToolCallId,
} from "./ids.js";
import {
  argValue,
  dictEntries,
  fixed,
  float,
  jsonDumpsIndented,
  str,
  toFloat,
  toInt,
  truthy,
  typeName,
} from "../../python/py-dynamic.js";
import { queryDatabaseTool } from "./query.js";

export const USER_CLASS = "KnowledgeUserTools";

// The customer's side (τ² `KnowledgeUserTools`): applying for a card, referrals, transactions, asking
// for a human, and the discoverable tools the agent gives them. They work on the same database as the
// agent's tools.

// ---------------------------------------------------------------------------------------------------
// Discoverable user tools: each first checks that the agent gave it, then logs the call.

/** The error when the agent has not given `name`, or undefined when it has. */
function notGiven(db: BankingDb, name: string): string | undefined {
  const result = queryDatabaseTool(db, "user_discoverable_tools", `{"tool_name": "${name}"}`);
  if (!result.includes("No records found")) return undefined;
  return (
    `Error: Tool '${name}' has not been given to you by the agent. ` +
    "The agent must first use `give_discoverable_user_tool` to give this tool to you."
  );
}

function logCall(db: BankingDb, name: string, args: PyRecord): void {
  addToDb(db, "user_discoverable_tool_calls", userDiscoverableToolCallId(name, args), {
    tool_name: name,
    arguments: args,
    called_at: TODAY,
    status: "CALLED",
  });
}

function executed(summary: string, name: string, args: PyRecord): string {
  return `${summary}\n\nExecuted: ${name}\nArguments: ${jsonDumpsIndented(args)}\n`;
}

const submitCashBackDispute = discoverableTool({
  name: "submit_cash_back_dispute_0589",
  side: "user",
  kind: "write",
  description: "Dispute the cash back earned on one of your transactions.",
  params: [
    { name: "user_id", type: "string", description: "Your user id." },
    { name: "transaction_id", type: "string", description: "The transaction whose cash back is wrong." },
  ],
  run(db, a) {
    const name = "submit_cash_back_dispute_0589";
    const error = notGiven(db, name);
    if (error) return error;
    const args = { user_id: a.user_id, transaction_id: a.transaction_id };
    logCall(db, name, args);
    const id = disputeId(a.user_id, a.transaction_id);
    const settings = db.task_config.data.size > 0 ? db.task_config.data.get("dispute_settings") : undefined;
    const autoResolve = truthy(settings ? field(settings, "auto_resolve_disputes", false) : false);
    const record: PyRecord = {
      dispute_id: id,
      user_id: a.user_id,
      transaction_id: a.transaction_id,
      submitted_at: TODAY,
      status: autoResolve ? "RESOLVED" : "SUBMITTED",
      ...(autoResolve ? { resolution: "APPROVED" } : {}),
    };
    const status = autoResolve
      ? "Status: RESOLVED - The dispute has been reviewed and approved. The transaction rewards need to be updated."
      : "Status: SUBMITTED - Your dispute has been queued for review.";
    const added = addToDb(db, "cash_back_disputes", id, record);
    const result = executed(
      "Cash back dispute submitted successfully. Your case has been queued for review.",
      name,
      args,
    );
    return added
      ? `${result}Dispute ID: ${id}\n${status}`
      : `${result}Note: Dispute may have already been submitted for this transaction.`;
  },
});

const getReferralLink = discoverableTool({
  name: "get_referral_link",
  side: "user",
  kind: "write",
  description: "Create a link to refer a friend to a credit card.",
  params: [
    { name: "user_id", type: "string", description: "Your user id (the referrer)." },
    {
      name: "card_name",
      type: "string",
      description: "The credit card to refer someone to, such as 'Gold Rewards Card'.",
    },
  ],
  run(db, a) {
    const name = "get_referral_link";
    const error = notGiven(db, name);
    if (error) return error;
    const args = { user_id: a.user_id, card_name: a.card_name };
    logCall(db, name, args);
    const id = referralLinkId(a.user_id, a.card_name);
    const added = addToDb(db, "referrals", id, {
      referral_id: id,
      referrer_id: a.user_id,
      referred_account_type: a.card_name,
      referral_status: "NO_PROGRESS",
      date: TODAY,
    });
    const result = executed(
      "Referral link generated successfully. Share this link with the person you want to refer.",
      name,
      args,
    );
    return added
      ? `${result}Referral ID: ${id}\nReferral link: https://rhobank.com/refer/${id}`
      : `${result}Note: A referral link for this card may have already been generated.`;
  },
});

const getCardLast4 = discoverableTool({
  name: "get_card_last_4_digits",
  side: "user",
  kind: "read",
  description: "Look up the last 4 digits of one of your credit cards.",
  params: [{ name: "credit_card_account_id", type: "string", description: "The credit card account id." }],
  run(db, a) {
    const name = "get_card_last_4_digits";
    const error = notGiven(db, name);
    if (error) return error;
    const args = { credit_card_account_id: a.credit_card_account_id };
    logCall(db, name, args);
    const result = queryDatabaseTool(
      db,
      "credit_card_accounts",
      `{"account_id": "${str(a.credit_card_account_id)}"}`,
    );
    if (result.includes("No results found") || result.includes("No records found"))
      return `Error: Credit card account '${str(a.credit_card_account_id)}' not found.`;
    const digest = createHash("sha256")
      .update(`card_last4:${str(a.credit_card_account_id)}`, "utf8")
      .digest("hex");
    const last4 = [...digest]
      .filter((c) => c >= "0" && c <= "9")
      .slice(0, 4)
      .join("")
      .padEnd(4, "0");
    return `Card information retrieved successfully.\n\nExecuted: ${name}\nArguments: ${jsonDumpsIndented(args)}\nLast 4 digits of card: ${last4}`;
  },
});

const depositCheck = discoverableTool({
  name: "deposit_check_3847",
  side: "user",
  kind: "write",
  description: "Deposit a check into one of your accounts through the mobile app.",
  params: [
    { name: "account_id", type: "string", description: "The account to deposit into." },
    { name: "check_amount", type: "number", description: "The check's amount in dollars." },
  ],
  run(db, a) {
    const name = "deposit_check_3847";
    const error = notGiven(db, name);
    if (error) return error;
    const args = { account_id: a.account_id, check_amount: a.check_amount };
    logCall(db, name, args);
    let amount: number;
    try {
      amount = toFloat(a.check_amount);
    } catch {
      return `Error: Invalid check amount '${str(a.check_amount)}'. Must be a number.`;
    }
    if (amount <= 0) return "Error: Check amount must be positive.";
    const accountId = str(a.account_id);
    const account = getRecord(db, "accounts", a.account_id);
    if (!account) return `Error: Account '${accountId}' not found.`;
    const status = field(account, "status");
    if (status !== "ACTIVE" && status !== "OPEN") return `Error: Account '${accountId}' is not active.`;
    const balance = accountBalance(account);
    const next = balance + amount;
    account.current_holdings = `$${fixed(next, 2)}`;
    return (
      "Check deposited successfully. Funds will be available according to your account's deposit policy.\n\n" +
      `Executed: ${name}\n` +
      `Arguments: ${jsonDumpsIndented(args)}\n` +
      "Check deposit processed!\n" +
      `  - Account: ${accountId}\n` +
      `  - Check Amount: $${fixed(amount, 2)}\n` +
      `  - Previous Balance: $${fixed(balance, 2)}\n` +
      `  - New Balance: $${fixed(next, 2)}`
    );
  },
});

/** The customer's discoverable tools, in the reference's order. */
export const USER_DISCOVERABLE_TOOLS: readonly DiscoverableTool[] = [
  submitCashBackDispute,
  getReferralLink,
  getCardLast4,
  depositCheck,
];

// ---------------------------------------------------------------------------------------------------
// Listed user tools.

const CARD_TYPES = [
  "Bronze Rewards Card",
  "Business Bronze Rewards Card",
  "Business Gold Rewards Card",
  "Business Platinum Rewards Card",
  "Business Silver Rewards Card",
  "Crypto-Cash Back",
  "Diamond Elite Card",
  "EcoCard",
  "Gold Rewards Card",
  "Green Rewards Card",
  "Platinum Rewards Card",
  "Silver Rewards Card",
  "Silver Zoom Card",
];

export const applyForCreditCard = defineTool({
  name: "apply_for_credit_card",
  description: "Apply for one of Rho-Bank's credit cards.",
  kind: "write",
  parameters: z.object({
    card_type: z.string().describe("The card to apply for, such as 'Gold Rewards Card'."),
    customer_name: z.string().describe("Your full legal name."),
    annual_income: z.number().describe("Your annual income in US dollars."),
    rho_bank_subscription: z.boolean().default(false).describe("Whether you have a Rho-Bank+ subscription."),
  }),
  run(db: BankingDb, args) {
    const cardType = argValue(args, "card_type");
    if (typeof cardType !== "string" || !CARD_TYPES.includes(cardType))
      return `Error: Invalid card_type '${str(cardType)}'. Must be one of: ${pyRepr(CARD_TYPES)}`;
    let income: number;
    try {
      income = toFloat(argValue(args, "annual_income"));
    } catch {
      return "Error: Invalid annual_income. Must be a number.";
    }
    const subscription =
      args.rho_bank_subscription === undefined ? false : argValue(args, "rho_bank_subscription");
    const name = argValue(args, "customer_name");
    const id = applicationId(cardType, name, float(income), subscription);
    const record: PyRecord = {
      application_id: id,
      card_type: cardType,
      customer_name: name,
      annual_income: float(income),
      rho_bank_subscription: subscription,
      status: "PENDING",
      date: TODAY,
    };
    if (!addToDb(db, "credit_card_applications", id, record))
      return `Failed to submit application: Record ID '${id}' may already exist.`;
    return (
      "Credit card application submitted:\n" +
      "Your application has been successfully submitted. " +
      "You will receive a decision within 5-7 business days via email."
    );
  },
});

export const submitReferral = defineTool({
  name: "submit_referral",
  description: "Refer someone to open a Rho-Bank account.",
  kind: "write",
  parameters: z.object({
    user_id: z.string().describe("Your user id (the referrer)."),
    account_type: z.string().describe("The kind of account you refer them to."),
  }),
  run(db: BankingDb, args) {
    const userId = argValue(args, "user_id");
    const accountType = argValue(args, "account_type");
    const id = referralId(userId, accountType);
    const record: PyRecord = {
      referral_id: id,
      referrer_id: userId,
      referred_account_type: accountType,
      referral_status: "NO_PROGRESS",
      date: TODAY,
    };
    if (!addToDb(db, "referrals", id, record))
      return `Failed to submit referral: Record ID '${id}' may already exist.`;
    return (
      "Referral request submitted successfully!\n" +
      `  - Referral ID: ${id}\n` +
      `  - Referrer ID: ${str(userId)}\n` +
      `  - Account Type: ${str(accountType)}\n` +
      "  - Status: NO_PROGRESS\n" +
      `  - Date: ${TODAY}\n\n` +
      "Share your referral ID with the person you're referring. " +
      "They will need to use this when applying for their account."
    );
  },
});

/** `json.loads(text, parse_int=float)` as a tool argument: the value, or the tool's error text. */
export function parseJsonArguments(
  text: unknown,
  parseIntAsFloat: boolean,
): { value: unknown } | { error: string } {
  if (typeof text !== "string")
    throw new PyException(
      `the JSON object must be str, bytes or bytearray, not ${typeName(text)}`,
      "TypeError",
    );
  try {
    return { value: pyJsonLoads(text, { parseIntAsFloat }) };
  } catch (error) {
    if (error instanceof PyJsonDecodeError)
      return { error: `Error: Invalid JSON in arguments: ${error.message}` };
    throw error;
  }
}

/** Python `name in container` for `in` tests over a parsed JSON value (dict keys, list items, substrings). */
export function pyContains(container: unknown, name: string): boolean {
  if (typeof container === "string") return container.includes(name);
  if (Array.isArray(container)) return container.some((item) => item === name);
  const entries = dictEntries(container);
  if (entries) return entries.some(([key]) => key === name);
  throw new PyException(`argument of type '${typeName(container)}' is not iterable`, "TypeError");
}

/** Python `for x in value` over a parsed JSON value. */
export function pyIterateValue(value: unknown): unknown[] {
  if (typeof value === "string") return [...value];
  if (Array.isArray(value)) return value;
  const entries = dictEntries(value);
  if (entries) return entries.map(([key]) => key);
  throw new PyException(`'${typeName(value)}' object is not iterable`, "TypeError");
}

export const callDiscoverableUserTool = defineTool({
  name: "call_discoverable_user_tool",
  description:
    "Call a tool the agent gave you (see list_discoverable_user_tools), with the arguments the agent told you, as a JSON object.",
  kind: "write",
  parameters: z.object({
    discoverable_tool_name: z.string().describe("The tool's name, as the agent gave it."),
    arguments: z
      .string()
      .default("{}")
      .describe('The arguments as a JSON object, such as \'{"user_id": "abc123"}\'.'),
  }),
  run(db: BankingDb, args, context: ToolContext) {
    const name = args.discoverable_tool_name;
    const tool = USER_DISCOVERABLE_TOOLS.find((t) => t.name === name);
    if (!tool) return `Error: Unknown discoverable tool '${str(argValue(args, "discoverable_tool_name"))}'.`;
    const parsed = parseJsonArguments(args.arguments === undefined ? "{}" : args.arguments, true);
    if ("error" in parsed) return parsed.error;
    const values = parsed.value;
    return asPython(() => {
      for (const param of tool.params)
        if (param.optional === undefined && !pyContains(values, param.name))
          return `Error: Missing required parameter: ${param.name}`;
      for (const key of pyIterateValue(values))
        if (!tool.params.some((p) => p.name === key)) return `Error: Unexpected parameter: ${str(key)}`;
      let bound: Record<string, unknown>;
      try {
        bound = bindArguments(tool, values, USER_CLASS);
      } catch (error) {
        if (error instanceof PyException && error.pyType === "TypeError")
          return `Error: Invalid arguments for tool '${tool.name}': ${error.message}`;
        throw error;
      }
      try {
        return tool.run(db, bound, context);
      } catch (error) {
        if (error instanceof PyException && error.pyType === "TypeError")
          return `Error: Invalid arguments for tool '${tool.name}': ${error.message}`;
        throw error;
      }
    });
  },
});

export const listDiscoverableUserTools = defineTool({
  name: "list_discoverable_user_tools",
  description: "List the tools the agent has given you.",
  kind: "read",
  parameters: z.object({}),
  run(db: BankingDb) {
    return `Tools given to you by the agent:\n${queryDatabaseTool(db, "user_discoverable_tools", "{}")}`;
  },
});

export const requestHumanAgentTransfer = defineTool({
  name: "request_human_agent_transfer",
  description: "Ask to be transferred to a human agent. Every request is recorded.",
  kind: "write",
  parameters: z.object({}),
  run(db: BankingDb) {
    const existing = queryDatabaseTool(db, "human_transfer_requests", "{}");
    const count =
      existing.includes("No records found") || existing.includes("No results found")
        ? 1
        : existing.split("request_id").length;
    const id = `transfer_request_${count}`;
    addToDb(db, "human_transfer_requests", id, {
      request_id: id,
      request_number: count,
      requested_at: TODAY,
      status: "PENDING",
    });
    return `Transfer request #${count} submitted.\nThe agent will process your request.`;
  },
});

/** Reward rate (percent) per card and category; `default` for other categories. */
const REWARD_RATES: ReadonlyArray<readonly [string, Readonly<Record<string, number>>]> = [
  ["Bronze Rewards Card", { default: 1 }],
  ["Silver Rewards Card", { Travel: 4, Software: 4, default: 1 }],
  ["Gold Rewards Card", { default: 2.5 }],
  ["Platinum Rewards Card", { default: 10 }],
  ["Business Bronze Rewards Card", { default: 1 }],
  ["Business Silver Rewards Card", { Travel: 10, Software: 10, default: 1 }],
  ["Green Rewards Card", { Sustainable: 3, default: 1 }],
  ["Business Gold Rewards Card", { Operations: 2.5, default: 1 }],
  ["Business Platinum Rewards Card", { Travel: 4, Software: 4, Media: 4, default: 1.5 }],
  ["Silver Zoom Card", { Transportation: 3, default: 1 }],
  ["Diamond Elite Card", { default: 5 }],
  ["EcoCard", { Green: 5, default: 1 }],
  ["Crypto-Cash Back", { default: 2 }],
];

export const submitTransaction = defineTool({
  name: "submit_transaction",
  description: "Record a purchase made with one of your credit cards.",
  kind: "write",
  parameters: z.object({
    user_id: z.string().describe("Your user id."),
    credit_card_type: z.string().describe("The card used, such as 'Gold Rewards Card'."),
    merchant_name: z.string().describe("Where you bought."),
    amount: z.number().describe("The amount in US dollars, such as 127.43."),
    category: z.string().describe("The purchase's category, such as 'Travel' or 'Groceries'."),
  }),
  run(db: BankingDb, args) {
    const cardType = argValue(args, "credit_card_type");
    const rates = REWARD_RATES.find(([card]) => card === cardType)?.[1];
    if (!rates)
      return `Error: Unknown credit card type '${str(cardType)}'. Available types: ${pyRepr(REWARD_RATES.map(([card]) => card))}`;
    const [userId, merchant, amount, category] = ["user_id", "merchant_name", "amount", "category"].map(
      (key) => argValue(args, key),
    );
    const id = transactionId(userId, cardType, merchant, amount, category);
    const rate =
      typeof category === "string" && Object.prototype.hasOwnProperty.call(rates, category)
        ? rates[category]!
        : rates.default!;
    const points = toInt(float(toFloat(amount) * rate));
    const record: PyRecord = {
      transaction_id: id,
      user_id: userId,
      credit_card_type: cardType,
      merchant_name: merchant,
      transaction_amount: `$${fixed(amount, 2)}`,
      transaction_date: TODAY,
      category,
      status: "COMPLETED",
      rewards_earned: `${points} points`,
    };
    if (!addToDb(db, "credit_card_transaction_history", id, record))
      return `Failed to submit transaction: Record ID '${id}' may already exist.`;
    return (
      "Transaction submitted successfully!\n" +
      `  - Transaction ID: ${id}\n` +
      `  - User ID: ${str(userId)}\n` +
      `  - Card Type: ${str(cardType)}\n` +
      `  - Merchant: ${str(merchant)}\n` +
      `  - Amount: $${fixed(amount, 2)}\n` +
      `  - Category: ${str(category)}\n` +
      `  - Date: ${TODAY}\n` +
      `  - Rewards Earned: ${points} points (${str(float(rate))}% cashback rate)\n`
    );
  },
});

/** The customer's listed tools, in the reference's order (`query_database` is no tool: not callable). */
export const USER_TOOLS: readonly Tool<BankingDb>[] = [
  applyForCreditCard,
  submitReferral,
  callDiscoverableUserTool,
  listDiscoverableUserTools,
  requestHumanAgentTransfer,
  submitTransaction,
];
