import { z } from "zod";
import { PyException } from "../../python/py-exception.js";
import { defineTool, type Tool, type ToolContext } from "../../env/tool.js";
import { sessionSlot } from "../../env/session.js";
import { ToolError } from "../../env/world.js";
import { AGENT_DISCOVERABLE_TOOLS } from "./agent-discoverable.js";
import { CURRENT_TIME } from "./clock.js";
import { addToDb, updateRecord, type BankingDb } from "./db.js";
import { bindArguments, formatForAgent, type DiscoverableTool } from "./discoverable.js";
import { agentDiscoverableToolId, userDiscoverableToolId, verificationId } from "./ids.js";
import { argValue, dictEntries, jsonDumpsIndented, str, truthy, typeName } from "../../python/py-dynamic.js";
import { queryDatabaseTool } from "./query.js";
import { infoOf } from "./services.js";
import { parseJsonArguments, pyIterateValue, USER_DISCOVERABLE_TOOLS } from "./user-tools.js";

export const AGENT_CLASS = "KnowledgeTools";

/** The agent tools unlocked so far: in memory only (the reference writes nothing to the DB). */
export const UNLOCKED_AGENT_TOOLS = sessionSlot<readonly string[]>(
  "banking_knowledge.unlocked_agent_tools",
  [],
);

export const TRANSFER_REASONS = [
  "fraud_or_security_concern",
  "account_closure_request",
  "deceased_account_holder",
  "legal_or_regulatory_matter",
  "account_ownership_dispute",
  "complex_billing_dispute",
  "abusive_customer_behavior",
  "third_party_inquiry",
  "technical_system_error",
  "unconfirmed_external_communication",
  "customer_demands_after_unavailable_offer_refusal",
  "kb_search_unsuccessful_customer_requests_transfer",
  "specialized_department_required",
  "accessibility_or_special_needs",
  "customer_frustrated_demands_human",
  "supervisor_request_service_complaint",
  "customer_requests_human_no_specific_reason",
  "request_completed_customer_wants_human_followup",
  "other",
] as const;

export const transferToHumanAgents = defineTool({
  name: "transfer_to_human_agents",
  description:
    "Hand the customer over to a human agent, with a summary of the issue and the reason code the knowledge base gives for this situation.",
  kind: "generic",
  parameters: z.object({
    summary: z.string().describe("What the customer needs and what was tried."),
    // Any text reaches the tool (which answers an unknown reason with an error); the model sees the codes.
    reason: z
      .string()
      .default("other")
      .meta({ enum: [...TRANSFER_REASONS] })
      .describe("The reason code for the transfer."),
  }),
  run(_db: BankingDb, args) {
    const reason = args.reason === undefined ? "other" : argValue(args, "reason");
    if (typeof reason !== "string" || !(TRANSFER_REASONS as readonly string[]).includes(reason))
      return `Error: Invalid transfer reason '${str(reason)}'. Must be one of: ${TRANSFER_REASONS.join(", ")}`;
    return `Transfer successful (reason: ${reason}). A human agent will assist you shortly.`;
  },
});

export const getCurrentTime = defineTool({
  name: "get_current_time",
  description: "The current date and time, for verification records.",
  kind: "read",
  parameters: z.object({}),
  run: () => `The current time is ${CURRENT_TIME}.`,
});

function lookupTool(
  name: string,
  description: string,
  parameter: string,
  parameterDescription: string,
  table: string,
  column: string,
) {
  return defineTool({
    name,
    description,
    kind: "read",
    parameters: z.object({ [parameter]: z.string().describe(parameterDescription) }),
    run(db: BankingDb, args: Record<string, unknown>) {
      return queryDatabaseTool(db, table, `{"${column}": "${str(argValue(args, parameter))}"}`);
    },
  });
}

export const getUserInformationById = lookupTool(
  "get_user_information_by_id",
  "A customer's record (date of birth, email, phone, address) by user id.",
  "user_id",
  "The customer's user id.",
  "users",
  "user_id",
);
export const getUserInformationByName = lookupTool(
  "get_user_information_by_name",
  "A customer's record (date of birth, email, phone, address) by full name; case sensitive.",
  "customer_name",
  "The customer's full name.",
  "users",
  "name",
);
export const getUserInformationByEmail = lookupTool(
  "get_user_information_by_email",
  "A customer's record (date of birth, email, phone, address) by email address.",
  "email",
  "The customer's email address.",
  "users",
  "email",
);

export const changeUserEmail = defineTool({
  name: "change_user_email",
  description: "Change a customer's email address.",
  kind: "write",
  parameters: z.object({
    user_id: z.string().describe("The customer's user id."),
    new_email: z.string().describe("The new email address."),
  }),
  run(db: BankingDb, args) {
    const userId = argValue(args, "user_id");
    const email = argValue(args, "new_email");
    if (!updateRecord(db, "users", userId, { email }))
      return `Error: User with ID '${str(userId)}' not found.`;
    return `Email updated successfully.\n  - User ID: ${str(userId)}\n  - New Email: ${str(email)}`;
  },
});

export const getReferralsByUser = lookupTool(
  "get_referrals_by_user",
  "The referrals a customer has made.",
  "user_id",
  "The referrer's user id.",
  "referrals",
  "referrer_id",
);
export const getCreditCardTransactionsByUser = lookupTool(
  "get_credit_card_transactions_by_user",
  "A customer's credit card transactions.",
  "user_id",
  "The customer's user id.",
  "credit_card_transaction_history",
  "user_id",
);
export const getCreditCardAccountsByUser = lookupTool(
  "get_credit_card_accounts_by_user",
  "A customer's credit card accounts: card type, opening date, balance and reward points.",
  "user_id",
  "The customer's user id.",
  "credit_card_accounts",
  "user_id",
);

const VERIFICATION_FIELDS = [
  ["name", "The customer's full name."],
  ["user_id", "The customer's user id."],
  ["address", "The customer's address."],
  ["email", "The customer's email address."],
  ["phone_number", "The customer's phone number."],
  ["date_of_birth", "The customer's date of birth (MM/DD/YYYY)."],
  ["time_verified", 'When the identity was verified, such as "2025-11-14 03:40:00 EST".'],
] as const;

export const logVerification = defineTool({
  name: "log_verification",
  description:
    "Record that you verified a customer's identity (2 of date of birth, email, phone, address confirmed), with their details.",
  kind: "write",
  parameters: z.object(
    Object.fromEntries(
      VERIFICATION_FIELDS.map(([name, description]) => [name, z.string().describe(description)]),
    ),
  ),
  run(db: BankingDb, args) {
    const value = (key: string) => argValue(args, key);
    const id = verificationId(value("user_id"), value("time_verified"));
    const record = Object.fromEntries(VERIFICATION_FIELDS.map(([name]) => [name, value(name)]));
    if (!addToDb(db, "verification_history", id, record))
      return "Failed to log verification: Record may already exist.";
    return (
      "Verification logged successfully.\n" +
      `  - User: ${str(value("name"))} (ID: ${str(value("user_id"))})\n` +
      `  - Verified at: ${str(value("time_verified"))}`
    );
  },
});

/** The discoverable tool of this name (a dict lookup: a list or dict name is unhashable). */
function discoverableNamed(tools: readonly DiscoverableTool[], name: unknown): DiscoverableTool | undefined {
  if (Array.isArray(name) || dictEntries(name) !== undefined)
    throw new PyException(`unhashable type: '${typeName(name)}'`, "TypeError");
  return typeof name === "string" ? tools.find((t) => t.name === name) : undefined;
}

export const giveDiscoverableUserTool = defineTool({
  name: "give_discoverable_user_tool",
  description:
    "Give the customer a tool the knowledge base says they use themselves; they then call it with call_discoverable_user_tool.",
  kind: "generic",
  mutatesState: true,
  parameters: z.object({
    discoverable_tool_name: z.string().describe("The tool's name, as the knowledge base gives it."),
    arguments: z
      .string()
      .default("{}")
      .describe('Arguments for the tool as a JSON object, such as \'{"user_id": "abc123"}\'.'),
  }),
  run(db: BankingDb, args, context: ToolContext) {
    const name = argValue(args, "discoverable_tool_name");
    if (typeof name !== "string")
      throw new PyException(`attribute name must be string, not '${typeName(name)}'`, "TypeError");
    const tool = USER_DISCOVERABLE_TOOLS.find((t) => t.name === name);
    if (!tool) return `Error: Unknown discoverable tool '${name}'.`;
    const parsed = parseJsonArguments(args.arguments === undefined ? "{}" : args.arguments, false);
    if ("error" in parsed) return parsed.error;
    const given = parsed.value;
    for (const key of pyIterateValue(given))
      if (key !== "self" && !tool.params.some((p) => p.name === key))
        return `Error: Unexpected parameter: ${str(key)}`;
    const info = infoOf(context, tool);
    const id = userDiscoverableToolId(name);
    addToDb(db, "user_discoverable_tools", id, { tool_name: name, status: "GIVEN" });
    const shown = truthy(given) ? jsonDumpsIndented(given) : "(no arguments)";
    return (
      `Tool given to user: ${name}\n` +
      `Description: ${info.description}\n` +
      `Arguments: ${shown}\n\n` +
      "The user can now execute this action by calling `call_discoverable_user_tool` " +
      `with discoverable_tool_name='${name}' and the same arguments.`
    );
  },
});

export const unlockDiscoverableAgentTool = defineTool({
  name: "unlock_discoverable_agent_tool",
  description:
    "Unlock an internal tool the knowledge base names, to learn its parameters; then call it with call_discoverable_agent_tool.",
  kind: "generic",
  mutatesState: true,
  parameters: z.object({
    agent_tool_name: z.string().describe("The tool's name, as the knowledge base gives it."),
  }),
  run(_db: BankingDb, args, context: ToolContext) {
    const raw = argValue(args, "agent_tool_name");
    const tool = discoverableNamed(AGENT_DISCOVERABLE_TOOLS, raw);
    if (!tool) return `Error: Unknown agent tool '${str(raw)}'. This tool is not available.`;
    const unlocked = context.session.get(UNLOCKED_AGENT_TOOLS);
    if (!unlocked.includes(tool.name)) context.session.set(UNLOCKED_AGENT_TOOLS, [...unlocked, tool.name]);
    const info = infoOf(context, tool);
    return (
      `Tool unlocked: ${tool.name}\n` +
      `Description: ${info.description}\n\n` +
      `${formatForAgent(info)}\n\n` +
      "You can now use this tool by calling `call_discoverable_agent_tool` with " +
      `agent_tool_name='${tool.name}' and the required arguments.`
    );
  },
});

/**
 * The read-only discoverable tools whose calls the task's gold actions make: their calls are logged
 * like those of state-changing tools, so that "the agent must look this up" is part of the DB hash
 * (τ²'s `read_log_allowlist`, built from the task for the conversation's and the evaluator's worlds).
 */
const allowlists = new WeakMap<object, ReadonlySet<string>>();
export function readLogAllowlist(context: ToolContext): ReadonlySet<string> {
  const task = context.task;
  if (!task) return new Set();
  let allowlist = allowlists.get(task);
  if (!allowlist) {
    const names = new Set<string>();
    for (const action of task.evaluation_criteria?.actions ?? []) {
      const name = action.arguments.agent_tool_name;
      if (action.name === "call_discoverable_agent_tool" && typeof name === "string") names.add(name);
    }
    allowlist = names;
    allowlists.set(task, allowlist);
  }
  return allowlist;
}

export const callDiscoverableAgentTool = defineTool({
  name: "call_discoverable_agent_tool",
  description:
    "Call an internal tool you unlocked before, with its arguments as a JSON object (the knowledge base says which tool and arguments).",
  kind: "write",
  parameters: z.object({
    agent_tool_name: z.string().describe("The unlocked tool's name."),
    arguments: z
      .string()
      .default("{}")
      .describe('The arguments as a JSON object, such as \'{"user_id": "abc123"}\'.'),
  }),
  run(db: BankingDb, args, context: ToolContext) {
    const raw = argValue(args, "agent_tool_name");
    const tool = discoverableNamed(AGENT_DISCOVERABLE_TOOLS, raw);
    if (!tool) return `Error: Unknown agent tool '${str(raw)}'. This tool is not available.`;
    if (!context.session.get(UNLOCKED_AGENT_TOOLS).includes(tool.name))
      return (
        `Error: Tool '${tool.name}' has not been unlocked. ` +
        "You must first use `unlock_discoverable_agent_tool` to unlock this tool before calling it."
      );
    const parsed = parseJsonArguments(args.arguments === undefined ? "{}" : args.arguments, true);
    if ("error" in parsed) return parsed.error;
    let result: string;
    try {
      result = tool.run(db, bindArguments(tool, parsed.value, AGENT_CLASS), context);
    } catch (error) {
      // A TypeError (binding or inside the tool) is answered as text; other exceptions fail the call.
      // Either way what the tool changed before stays, as in Python.
      if (error instanceof PyException && error.pyType === "TypeError")
        return `Error: Invalid arguments: ${error.message}`;
      if (error instanceof PyException)
        throw new ToolError(error.message, error.pyType, { keepChanges: true });
      throw error;
    }
    if (tool.mutatesState || readLogAllowlist(context).has(tool.name))
      addToDb(db, "agent_discoverable_tools", agentDiscoverableToolId(tool.name), {
        tool_name: tool.name,
        status: "CALLED",
      });
    return result;
  },
});

export const listDiscoverableAgentTools = defineTool({
  name: "list_discoverable_agent_tools",
  description: "List the internal tools you have called.",
  kind: "read",
  parameters: z.object({}),
  run(db: BankingDb) {
    const result = queryDatabaseTool(db, "agent_discoverable_tools", "{}");
    // The reference looks for a text its query helper never writes, so this branch never answers.
    if (result.includes("No results found"))
      return "No agent tools have been called yet. Search the knowledge base to discover available tools.";
    return `Your called agent tools:\n${result}`;
  },
});

/** The agent's base tools, in the reference's order (the same for every retrieval config). */
export const BASE_AGENT_TOOLS: readonly Tool<BankingDb>[] = [
  transferToHumanAgents,
  getCurrentTime,
  getUserInformationById,
  getUserInformationByName,
  getUserInformationByEmail,
  changeUserEmail,
  getReferralsByUser,
  getCreditCardTransactionsByUser,
  getCreditCardAccountsByUser,
  logVerification,
  giveDiscoverableUserTool,
  unlockDiscoverableAgentTool,
  callDiscoverableAgentTool,
  listDiscoverableAgentTools,
];
