import { z } from "zod";
import { pyArgStr } from "../../python/py-float.js";
import { pyFloatRepr } from "../../python/py-json.js";
import { defineTool } from "../../env/tool.js";
import { ToolError } from "../../env/world.js";
import {
  addDays,
  billById,
  billsAwaitingPayment,
  customerById,
  customerByPhone,
  customerLine,
  deviceById,
  lineById,
  planById,
  TODAY,
} from "./carrier.js";
import {
  BillSchema,
  CustomerSchema,
  DeviceSchema,
  LineSchema,
  PlanSchema,
  type Bill,
  type TelecomDb,
} from "./db-schema.js";
import { pyFixed } from "../../python/py-round.js";

// The carrier agent's tools (τ² `TelecomTools`), in the order the reference lists them.

const customerId = z.string().describe("The customer's ID, e.g. C1001.");
const lineId = (what: string) => z.string().describe(`ID of the customer's line ${what}, e.g. L1002.`);

export const getCustomerByPhone = defineTool({
  name: "get_customer_by_phone",
  description:
    "Look up a customer by a phone number: their contact number or the number of one of their lines.",
  kind: "read",
  parameters: z.object({ phone_number: z.string().describe("Phone number to look up, e.g. 555-123-2002.") }),
  returns: CustomerSchema,
  run(db: TelecomDb, { phone_number }) {
    return customerByPhone(db, phone_number);
  },
});

export const getCustomerById = defineTool({
  name: "get_customer_by_id",
  description: "Look up a customer by their customer ID.",
  kind: "read",
  parameters: z.object({ customer_id: customerId }),
  returns: CustomerSchema,
  run(db: TelecomDb, { customer_id }) {
    return customerById(db, customer_id);
  },
});

export const getCustomerByName = defineTool({
  name: "get_customer_by_name",
  description:
    "Find customers by full name (case-insensitive) and date of birth. Returns every match, possibly none.",
  kind: "read",
  parameters: z.object({
    full_name: z.string().describe("The customer's full name."),
    dob: z.string().describe("Date of birth as YYYY-MM-DD, used to tell namesakes apart."),
  }),
  returns: z.array(CustomerSchema),
  run(db: TelecomDb, { full_name, dob }) {
    const name = full_name.toLowerCase();
    return db.customers.filter((c) => c.full_name.toLowerCase() === name && c.date_of_birth === dob);
  },
});

export const getDetailsById = defineTool({
  name: "get_details_by_id",
  description:
    "Show the record behind an ID: a customer (C…), line (L…), device (D…), bill (B…) or plan (P…).",
  kind: "read",
  parameters: z.object({ id: z.string().describe("The ID to look up.") }),
  returns: z.union([LineSchema, DeviceSchema, BillSchema, CustomerSchema, PlanSchema]),
  run(db: TelecomDb, { id }) {
    if (id.startsWith("L")) return lineById(db, id);
    if (id.startsWith("D")) return deviceById(db, id);
    if (id.startsWith("B")) return billById(db, id);
    if (id.startsWith("C")) return customerById(db, id);
    if (id.startsWith("P")) return planById(db, id);
    throw new ToolError(`Unknown ID format or type: ${id}`);
  },
});

const lineMessage = z.object({ message: z.string(), line: LineSchema });

export const suspendLine = defineTool({
  name: "suspend_line",
  description:
    "Suspend an active line of a customer (for at most 6 months; a $5 monthly holding fee applies). The suspension starts today.",
  kind: "write",
  parameters: z.object({
    customer_id: z.string().describe("ID of the customer who owns the line."),
    line_id: lineId("to suspend"),
    reason: z.string().describe("Why the line is suspended."),
  }),
  // The reference returns a dict holding a model: the model keeps its types, the message is a string.
  returns: lineMessage,
  run(db: TelecomDb, { customer_id, line_id }) {
    const line = customerLine(db, customer_id, line_id);
    if (line.status !== "Active") throw new ToolError("Line must be active to suspend");
    line.status = "Suspended";
    line.suspension_start_date = TODAY;
    return { message: "Line suspended successfully. $5/month holding fee will apply.", line };
  },
});

export const resumeLine = defineTool({
  name: "resume_line",
  description: "Reactivate a customer's line that is suspended or pending activation.",
  kind: "write",
  parameters: z.object({
    customer_id: z.string().describe("ID of the customer who owns the line."),
    line_id: lineId("to reactivate"),
  }),
  returns: lineMessage,
  run(db: TelecomDb, { customer_id, line_id }) {
    const line = customerLine(db, customer_id, line_id);
    if (line.status !== "Suspended" && line.status !== "Pending Activation") {
      throw new ToolError("Line must be suspended to resume");
    }
    line.status = "Active";
    line.suspension_start_date = null;
    return { message: "Line resumed successfully", line };
  },
});

export const getBillsForCustomer = defineTool({
  name: "get_bills_for_customer",
  description: "List a customer's bills, newest issue date first.",
  kind: "read",
  parameters: z.object({
    customer_id: z.string().describe("ID of the customer."),
    limit: z.int().default(12).describe("At most this many bills are returned."),
  }),
  returns: z.array(BillSchema),
  // Lenient calls (τ²'s argument handling) arrive without the schema's defaults.
  run(db: TelecomDb, { customer_id, limit = 12 }) {
    const customer = customerById(db, customer_id);
    const bills = customer.bill_ids.map((id) => billById(db, id));
    // Stable sort, newest first; equal dates keep their order (as Python's sorted(reverse=True)).
    bills.sort((a, b) => (a.issue_date < b.issue_date ? 1 : a.issue_date > b.issue_date ? -1 : 0));
    return pySlice(bills, limit);
  },
});

/** Python `list[:limit]`, including negative limits. */
function pySlice<T>(items: T[], limit: number): T[] {
  return limit >= 0 ? items.slice(0, limit) : items.slice(0, Math.max(0, items.length + limit));
}

export const sendPaymentRequest = defineTool({
  name: "send_payment_request",
  description:
    "Ask the customer to pay one of their bills: the bill becomes 'Awaiting Payment' and the request shows on their phone. Only one bill may await payment at a time; this does not check whether the bill is already paid.",
  kind: "write",
  parameters: z.object({
    customer_id: z.string().describe("ID of the customer who owns the bill."),
    bill_id: z.string().describe("ID of the bill to be paid."),
  }),
  run(db: TelecomDb, { customer_id, bill_id }) {
    const customer = customerById(db, customer_id);
    if (billsAwaitingPayment(db, customer).length > 0) {
      throw new ToolError("A bill is already awaiting payment for this customer");
    }
    if (!customer.bill_ids.includes(bill_id)) {
      throw new ToolError(`Bill ${bill_id} not found for customer ${customer_id}`);
    }
    const bill = billById(db, bill_id);
    bill.status = "Awaiting Payment";
    return `Payment request sent to the customer for bill ${bill.bill_id}`;
  },
});

export const getDataUsage = defineTool({
  name: "get_data_usage",
  description:
    "Show a line's data use in the current billing cycle: GB used, the plan's limit, GB refuelled, and when the cycle ends.",
  kind: "read",
  parameters: z.object({
    customer_id: z.string().describe("ID of the customer who owns the line."),
    line_id: lineId("to check"),
  }),
  run(db: TelecomDb, { customer_id, line_id }) {
    const line = customerLine(db, customer_id, line_id);
    const plan = planById(db, line.plan_id);
    // A plain dict in the reference: its numbers print as Python strings.
    return {
      line_id,
      data_used_gb: pyFloatRepr(line.data_used_gb),
      data_limit_gb: pyFloatRepr(plan.data_limit_gb),
      data_refueling_gb: pyFloatRepr(line.data_refueling_gb),
      cycle_end_date: addDays(nextMonthStart(TODAY), -1),
    };
  },
});

/** The first day of the month after an ISO date. */
function nextMonthStart(isoDate: string): string {
  const year = Number(isoDate.slice(0, 4));
  const month = Number(isoDate.slice(5, 7));
  return month < 12 ? `${year}-${String(month + 1).padStart(2, "0")}-01` : `${year + 1}-01-01`;
}

export const enableRoaming = defineTool({
  name: "enable_roaming",
  description: "Turn on international roaming for a customer's line.",
  kind: "write",
  parameters: z.object({
    customer_id: z.string().describe("ID of the customer who owns the line."),
    line_id: lineId("to allow roaming on"),
  }),
  run(db: TelecomDb, { customer_id, line_id }) {
    const line = customerLine(db, customer_id, line_id);
    if (line.roaming_enabled) return "Roaming was already enabled";
    line.roaming_enabled = true;
    return "Roaming enabled successfully";
  },
});

export const disableRoaming = defineTool({
  name: "disable_roaming",
  description: "Turn off international roaming for a customer's line.",
  kind: "write",
  parameters: z.object({
    customer_id: z.string().describe("ID of the customer who owns the line."),
    line_id: lineId("to stop roaming on"),
  }),
  run(db: TelecomDb, { customer_id, line_id }) {
    const line = customerLine(db, customer_id, line_id);
    if (!line.roaming_enabled) return "Roaming was already disabled";
    line.roaming_enabled = false;
    return "Roaming disabled successfully";
  },
});

export const transferToHumanAgents = defineTool({
  name: "transfer_to_human_agents",
  description:
    "Hand the customer over to a human agent with a summary of their issue. Only do this when the customer asks for a human, or when the policy and your tools cannot solve the issue.",
  kind: "generic",
  parameters: z.object({ summary: z.string().describe("Short summary of the customer's issue.") }),
  run() {
    return "Transfer successful";
  },
});

export const refuelData = defineTool({
  name: "refuel_data",
  description:
    "Add extra data to a customer's line for the current cycle, charged at the plan's refuelling price per GB on the customer's next bill.",
  kind: "write",
  parameters: z.object({
    customer_id: z.string().describe("ID of the customer who owns the line."),
    line_id: lineId("to add data to"),
    gb_amount: z.number().describe("How many GB to add."),
  }),
  run(db: TelecomDb, args) {
    const { customer_id, line_id, gb_amount } = args;
    const line = customerLine(db, customer_id, line_id);
    if (gb_amount <= 0) throw new ToolError("Refuel amount must be positive");
    const plan = planById(db, line.plan_id);
    const charge = gb_amount * plan.data_refueling_price_per_gb;
    line.data_refueling_gb += gb_amount;
    // The reference prints the amount as given: `2.0 GB` for a float, `50 GB` for an int.
    const amount = pyArgStr(args, "gb_amount");
    applyOneTimeCharge(
      db,
      customer_id,
      charge,
      `Data refueling: ${amount} GB at $${pyFloatRepr(plan.data_refueling_price_per_gb)}/GB`,
    );
    // A plain dict in the reference: the numbers print as Python strings of floats.
    return {
      message: `Successfully added ${amount} GB of data for line ${line_id} for $${pyFixed(charge, 2)}`,
      new_data_refueling_gb: pyFloatRepr(line.data_refueling_gb),
      charge: pyFloatRepr(charge),
    };
  },
});

/**
 * Put a charge (or, negative, a credit) on the customer's draft bill, opening a draft bill for next
 * month when there is none.
 */
function applyOneTimeCharge(db: TelecomDb, customer_id: string, amount: number, description: string): void {
  const customer = customerById(db, customer_id);
  let draft = customer.bill_ids.map((id) => billById(db, id)).find((bill) => bill.status === "Draft");
  if (!draft) {
    const start = nextMonthStart(TODAY);
    draft = {
      // The reference draws a random id here; passk derives one so that runs are reproducible.
      bill_id: nextDraftBillId(db, customer_id),
      customer_id,
      period_start: start,
      period_end: addDays(nextMonthStart(start), -1),
      issue_date: start,
      total_due: 0,
      due_date: addDays(start, 14),
      line_items: [],
      status: "Draft",
    } satisfies Bill;
    db.bills.push(draft);
    customer.bill_ids.push(draft.bill_id);
    draft = db.bills[db.bills.length - 1]!;
  }
  draft.line_items.push({ description, amount, date: TODAY, item_type: amount < 0 ? "Credit" : "Charge" });
  draft.total_due += amount;
}

/** `B` + 8 hex digits, unique in the database, derived from the customer and the bill count. */
function nextDraftBillId(db: TelecomDb, customer_id: string): string {
  let seed = 0x811c9dc5;
  for (const ch of `${customer_id}:${db.bills.length}`)
    seed = Math.imul(seed ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  let id = `B${seed.toString(16).padStart(8, "0")}`;
  while (db.bills.some((b) => b.bill_id === id)) {
    seed = Math.imul(seed ^ 0x5f, 0x01000193) >>> 0;
    id = `B${seed.toString(16).padStart(8, "0")}`;
  }
  return id;
}

export const agentTools = [
  getCustomerByPhone,
  getCustomerById,
  getCustomerByName,
  getDetailsById,
  suspendLine,
  resumeLine,
  getBillsForCustomer,
  sendPaymentRequest,
  getDataUsage,
  enableRoaming,
  disableRoaming,
  transferToHumanAgents,
  refuelData,
];
