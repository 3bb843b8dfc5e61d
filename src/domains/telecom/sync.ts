import { snapshotOf } from "../../env/draft-snapshot.js";
import { billById, billsAwaitingPayment, customerByPhone, lineByPhone, planById } from "./carrier.js";
import type { TelecomDb } from "./db-schema.js";
import type { TelecomUserDb } from "./user-db-schema.js";

/**
 * After every tool call and orchestrator step, the carrier's records reach the customer's
 * surroundings (τ² `TelecomEnvironment.sync_tools`): whether their line is active, whether it may
 * roam, whether its data allowance is used up; a payment the customer made marks the bill paid; a
 * bill awaiting payment becomes a payment request on the phone. Nothing happens before the customer
 * is known (no phone number yet).
 */
export function syncTelecom(state: { agent: TelecomDb; user: TelecomUserDb | undefined }): void {
  const { agent, user } = state;
  if (!user) return;
  const surroundings = user.surroundings;
  const phoneNumber = surroundings.phone_number;
  if (phoneNumber === null) return;

  // A payment the customer made settles the bill (before the snapshot below, which must see it).
  const paid = surroundings.payment_request;
  if (paid?.paid) {
    billById(agent, paid.bill_id).status = "Paid";
    surroundings.payment_request = null;
  }

  // Look things up in a plain snapshot: searching the draft would make a proxy of every record it
  // passes, and this runs after every call. Writes go to the draft. (snapshotOf = immer's current(),
  // without its slow copies through proxies.)
  const carrier = snapshotOf(agent);
  const line = lineByPhone(carrier, phoneNumber);
  // Assigning an unchanged value leaves an immer draft unmodified, so a no-op sync copies nothing.
  surroundings.line_active = line.status === "Active";
  surroundings.roaming_allowed = line.roaming_enabled;
  const plan = planById(carrier, line.plan_id);
  surroundings.mobile_data_usage_exceeded = line.data_used_gb >= plan.data_limit_gb + line.data_refueling_gb;

  if (surroundings.payment_request === null) {
    const [bill] = billsAwaitingPayment(carrier, customerByPhone(carrier, phoneNumber));
    if (bill)
      surroundings.payment_request = { bill_id: bill.bill_id, amount_due: bill.total_due, paid: false };
  }
}
