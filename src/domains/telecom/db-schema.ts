import { z } from "zod";
import { pyDate, pyDateTime } from "../../python/py-dates.js";

// The carrier's database (τ² `TelecomDB`). Field order is the reference models' order: tool outputs
// print models field by field in that order.

export const AddressSchema = z.strictObject({
  street: z.string(),
  city: z.string(),
  state: z.string(),
  zip_code: z.string(),
});

export const PlanSchema = z.strictObject({
  plan_id: z.string(),
  name: z.string(),
  data_limit_gb: z.number(),
  price_per_month: z.number(),
  data_refueling_price_per_gb: z.number(),
});
export type Plan = z.infer<typeof PlanSchema>;

export const DeviceTypeSchema = z.enum(["phone", "router", "tablet", "watch", "other"]);

export const DeviceSchema = z.strictObject({
  device_id: z.string(),
  device_type: DeviceTypeSchema,
  model: z.string(),
  imei: z.string().nullable().default(null),
  is_esim_capable: z.boolean(),
  activated: z.boolean().default(false),
  activation_date: pyDateTime().nullable().default(null),
  last_esim_transfer_date: pyDateTime().nullable().default(null),
});
export type Device = z.infer<typeof DeviceSchema>;

export const LineStatusSchema = z.enum(["Active", "Suspended", "Pending Activation", "Closed"]);
export type LineStatus = z.infer<typeof LineStatusSchema>;

export const LineSchema = z.strictObject({
  line_id: z.string(),
  phone_number: z.string(),
  status: LineStatusSchema.default("Pending Activation"),
  plan_id: z.string(),
  device_id: z.string().nullable().default(null),
  data_used_gb: z.number().default(0),
  data_refueling_gb: z.number().default(0),
  roaming_enabled: z.boolean().default(false),
  contract_end_date: pyDate().nullable().default(null),
  last_plan_change_date: pyDate().nullable().default(null),
  last_sim_replacement_date: pyDate().nullable().default(null),
  suspension_start_date: pyDate().nullable().default(null),
});
export type Line = z.infer<typeof LineSchema>;

export const LineItemSchema = z.strictObject({
  description: z.string(),
  amount: z.number(),
  date: pyDate(),
  item_type: z.string(),
});
export type LineItem = z.infer<typeof LineItemSchema>;

export const BillStatusSchema = z.enum([
  "Draft",
  "Issued",
  "Awaiting Payment",
  "Paid",
  "Overdue",
  "Disputed",
]);

export const BillSchema = z.strictObject({
  bill_id: z.string(),
  customer_id: z.string(),
  period_start: pyDate(),
  period_end: pyDate(),
  issue_date: pyDate(),
  total_due: z.number(),
  due_date: pyDate(),
  line_items: z.array(LineItemSchema).default(() => []),
  status: BillStatusSchema.default("Draft"),
});
export type Bill = z.infer<typeof BillSchema>;

export const PaymentMethodSchema = z.strictObject({
  method_type: z.enum(["Credit Card", "Debit Card", "PayPal"]),
  account_number_last_4: z.string(),
  expiration_date: z.string(),
});

export const CustomerSchema = z.strictObject({
  customer_id: z.string(),
  full_name: z.string(),
  date_of_birth: z.string(),
  email: z.string(),
  phone_number: z.string(),
  address: AddressSchema,
  account_status: z
    .enum(["Active", "Suspended", "Pending Verification", "Closed"])
    .default("Pending Verification"),
  payment_methods: z.array(PaymentMethodSchema).default(() => []),
  line_ids: z.array(z.string()).default(() => []),
  bill_ids: z.array(z.string()).default(() => []),
  // The reference's default is a date, never validated into a datetime, so it prints as a date.
  created_at: pyDateTime().default("2025-01-01"),
  last_extension_date: pyDate().nullable().default(null),
  goodwill_credit_used_this_year: z.number().default(0),
});
export type Customer = z.infer<typeof CustomerSchema>;

export const TelecomDbSchema = z.strictObject({
  plans: z.array(PlanSchema).default(() => []),
  customers: z.array(CustomerSchema).default(() => []),
  lines: z.array(LineSchema).default(() => []),
  bills: z.array(BillSchema).default(() => []),
  devices: z.array(DeviceSchema).default(() => []),
});
export type TelecomDb = z.infer<typeof TelecomDbSchema>;
