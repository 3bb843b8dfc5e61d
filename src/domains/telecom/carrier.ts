import { ToolError } from "../../env/world.js";
import type { Bill, Customer, Device, Line, Plan, TelecomDb } from "./db-schema.js";

/**
 * Lookups in the carrier's database shared by the agent tools, the init helpers and the sync step.
 * Each throws the reference's ValueError text when the record does not exist.
 */

/** The fixed "today" of the telecom world (the reference's `get_today()`). */
export const TODAY = "2025-02-25";

export function customerById(db: TelecomDb, customerId: string): Customer {
  const customer = db.customers.find((c) => c.customer_id === customerId);
  if (!customer) throw new ToolError(`Customer with ID ${customerId} not found`);
  return customer;
}

/** The customer whose contact number, or one of whose lines, has this phone number. */
export function customerByPhone(db: TelecomDb, phoneNumber: string): Customer {
  for (const customer of db.customers) {
    if (customer.phone_number === phoneNumber) return customer;
    for (const lineId of customer.line_ids) {
      if (lineById(db, lineId).phone_number === phoneNumber) return customer;
    }
  }
  throw new ToolError(`Customer with phone number ${phoneNumber} not found`);
}

export function lineById(db: TelecomDb, lineId: string): Line {
  const line = db.lines.find((l) => l.line_id === lineId);
  if (!line) throw new ToolError(`Line with ID ${lineId} not found`);
  return line;
}

export function lineByPhone(db: TelecomDb, phoneNumber: string): Line {
  const line = db.lines.find((l) => l.phone_number === phoneNumber);
  if (!line) throw new ToolError(`Line with phone number ${phoneNumber} not found`);
  return line;
}

export function planById(db: TelecomDb, planId: string): Plan {
  const plan = db.plans.find((p) => p.plan_id === planId);
  if (!plan) throw new ToolError(`Plan with ID ${planId} not found`);
  return plan;
}

export function deviceById(db: TelecomDb, deviceId: string): Device {
  const device = db.devices.find((d) => d.device_id === deviceId);
  if (!device) throw new ToolError(`Device with ID ${deviceId} not found`);
  return device;
}

export function billById(db: TelecomDb, billId: string): Bill {
  const bill = db.bills.find((b) => b.bill_id === billId);
  if (!bill) throw new ToolError(`Bill with ID ${billId} not found`);
  return bill;
}

/** A line of a customer: the customer must exist and own the line. */
export function customerLine(db: TelecomDb, customerId: string, lineId: string): Line {
  const customer = customerById(db, customerId);
  if (!customer.line_ids.includes(lineId)) {
    throw new ToolError(`Line ${lineId} not found for customer ${customerId}`);
  }
  return lineById(db, lineId);
}

export function billsAwaitingPayment(db: TelecomDb, customer: Customer): Bill[] {
  return customer.bill_ids.map((id) => billById(db, id)).filter((b) => b.status === "Awaiting Payment");
}

/** A calendar date `days` after an ISO date (negative: before). */
export function addDays(isoDate: string, days: number): string {
  const date = new Date(`${isoDate}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** The first day of the month of an ISO date. */
export function firstOfMonth(isoDate: string): string {
  return `${isoDate.slice(0, 8)}01`;
}
