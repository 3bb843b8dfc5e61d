import { pyArgStr } from "../../python/py-float.js";
import type { EnvFunction } from "../../env/tool.js";
import { ToolError } from "../../env/world.js";
import {
  addDays,
  billById,
  customerById,
  customerLine,
  firstOfMonth,
  lineById,
  planById,
  TODAY,
} from "./carrier.js";
import type { TelecomDb } from "./db-schema.js";

/**
 * The carrier-side functions that are not tools: task initialization uses them to create the
 * customer's problem (used-up data, a line suspended over an unpaid bill), env assertions to check
 * the outcome. Names and texts are the reference's (`TelecomTools`).
 */
type Args = Record<string, unknown>;

const helpers: Record<string, (db: TelecomDb, args: Args) => unknown> = {
  get_available_plan_ids(db) {
    return db.plans.map((plan) => plan.plan_id);
  },
  set_data_usage(db, args) {
    const line = customerLine(db, args.customer_id as string, args.line_id as string);
    line.data_used_gb = args.data_used_gb as number;
    return `Data usage set to ${pyArgStr(args, "data_used_gb")} GB for line ${String(args.line_id)}`;
  },
  /** Bill last month's plan price as an overdue bill and suspend the line for it. */
  suspend_line_for_overdue_bill(db, args) {
    const { customer_id, line_id, new_bill_id, contract_ended } = args as {
      customer_id: string;
      line_id: string;
      new_bill_id: string;
      contract_ended: boolean;
    };
    const line = lineById(db, line_id);
    if (line.status !== "Active") throw new ToolError("Line must be active to suspend for unpaid bill");
    const amount = planById(db, line.plan_id).price_per_month;
    if (amount <= 0) throw new ToolError("Amount must be positive for overdue bill");
    const customer = customerById(db, customer_id);
    if (customer.bill_ids.some((id) => billById(db, id).status === "Overdue")) {
      throw new ToolError("Customer already has an overdue bill");
    }
    const lastDayOfLastMonth = addDays(firstOfMonth(TODAY), -1);
    const firstDayOfLastMonth = firstOfMonth(lastDayOfLastMonth);
    db.bills.push({
      bill_id: new_bill_id,
      customer_id,
      period_start: firstDayOfLastMonth,
      period_end: lastDayOfLastMonth,
      issue_date: firstDayOfLastMonth,
      total_due: 0 + amount,
      due_date: addDays(firstDayOfLastMonth, 14),
      line_items: [
        { description: `Charge for line ${line.line_id}`, amount, date: TODAY, item_type: "Charge" },
      ],
      status: "Overdue",
    });
    customer.bill_ids.push(new_bill_id);
    line.status = "Suspended";
    line.suspension_start_date = TODAY;
    if (contract_ended) line.contract_end_date = lastDayOfLastMonth;
    return `Line ${line_id} suspended for unpaid bill ${new_bill_id}. Contract ended: ${pyArgStr(args, "contract_ended")}`;
  },

  // --- env assertions ---
  assert_data_refueling_amount(db, { customer_id, line_id, expected_amount }) {
    const line = customerLine(db, customer_id as string, line_id as string);
    return Math.abs(line.data_refueling_gb - (expected_amount as number)) < 1e-6;
  },
  assert_line_status(db, { customer_id, line_id, expected_status }) {
    return customerLine(db, customer_id as string, line_id as string).status === expected_status;
  },
  assert_overdue_bill_exists(db, { customer_id, overdue_bill_id }) {
    const customer = customerById(db, customer_id as string);
    const billId = overdue_bill_id as string;
    if (!customer.bill_ids.includes(billId)) throw new ToolError(`Overdue bill ${billId} not found`);
    if (billById(db, billId).status !== "Overdue")
      throw new ToolError(`Overdue bill ${billId} is not overdue`);
    return true;
  },
  /** Holds when the overdue bill is gone or paid. */
  assert_no_overdue_bill(db, { overdue_bill_id }) {
    const bill = db.bills.find((b) => b.bill_id === overdue_bill_id);
    return !bill || bill.status === "Paid";
  },
};

export const agentFunctions: Readonly<Record<string, EnvFunction<TelecomDb>>> = helpers;
