import { z } from "zod";
import { pyDict } from "../../env/schema-helpers.js";

// Field order matters: it is the order of the reference's pydantic models, which tool outputs print.
// Prices, amounts and balances are Python floats (`z.number()`), so `17.0` keeps its `.0`.

export const VariantSchema = z.object({
  item_id: z.string(),
  options: z.record(z.string(), z.string()),
  available: z.boolean(),
  price: z.number(),
});
export type Variant = z.infer<typeof VariantSchema>;

export const ProductSchema = z.object({
  name: z.string(),
  product_id: z.string(),
  /** Keyed by item id; ids look like integers, so a Map keeps the file's order. */
  variants: pyDict(VariantSchema),
});
export type Product = z.infer<typeof ProductSchema>;

export const UserNameSchema = z.object({ first_name: z.string(), last_name: z.string() });

export const AddressSchema = z.object({
  address1: z.string(),
  address2: z.string(),
  city: z.string(),
  country: z.string(),
  state: z.string(),
  zip: z.string(),
});
export type Address = z.infer<typeof AddressSchema>;

export const CreditCardSchema = z.object({
  source: z.literal("credit_card"),
  id: z.string(),
  brand: z.string(),
  last_four: z.string(),
});

export const GiftCardSchema = z.object({
  source: z.literal("gift_card"),
  id: z.string(),
  balance: z.number(),
});
export type GiftCard = z.infer<typeof GiftCardSchema>;

export const PaypalSchema = z.object({ source: z.literal("paypal"), id: z.string() });

/**
 * Python serialises each payment method with its own model's fields. When printing, passk picks the
 * first union member whose fields cover the value's keys, so the member with the fewest fields comes
 * first (a PayPal account would otherwise print as a gift card with `"balance": null`).
 */
export const PaymentMethodSchema = z.discriminatedUnion("source", [
  PaypalSchema,
  GiftCardSchema,
  CreditCardSchema,
]);
export type PaymentMethod = z.infer<typeof PaymentMethodSchema>;

export const UserSchema = z.object({
  user_id: z.string(),
  name: UserNameSchema,
  address: AddressSchema,
  email: z.string(),
  payment_methods: pyDict(PaymentMethodSchema),
  orders: z.array(z.string()),
});
export type User = z.infer<typeof UserSchema>;

export const FulfillmentSchema = z.object({
  tracking_id: z.array(z.string()),
  item_ids: z.array(z.string()),
});

export const OrderItemSchema = z.object({
  name: z.string(),
  product_id: z.string(),
  item_id: z.string(),
  price: z.number(),
  options: z.record(z.string(), z.string()),
});
export type OrderItem = z.infer<typeof OrderItemSchema>;

export const OrderPaymentSchema = z.object({
  transaction_type: z.enum(["payment", "refund"]),
  amount: z.number(),
  payment_method_id: z.string(),
});
export type OrderPayment = z.infer<typeof OrderPaymentSchema>;

export const OrderStatusSchema = z.enum([
  "processed",
  "pending",
  "pending (item modified)",
  "delivered",
  "cancelled",
  "exchange requested",
  "return requested",
]);

export const CANCEL_REASONS = ["no longer needed", "ordered by mistake"] as const;

export const OrderSchema = z.object({
  order_id: z.string(),
  user_id: z.string(),
  address: AddressSchema,
  items: z.array(OrderItemSchema),
  status: OrderStatusSchema,
  fulfillments: z.array(FulfillmentSchema),
  payment_history: z.array(OrderPaymentSchema),
  cancel_reason: z.enum(CANCEL_REASONS).nullable().default(null),
  exchange_items: z.array(z.string()).nullable().default(null),
  exchange_new_items: z.array(z.string()).nullable().default(null),
  exchange_payment_method_id: z.string().nullable().default(null),
  exchange_price_difference: z.number().nullable().default(null),
  return_items: z.array(z.string()).nullable().default(null),
  return_payment_method_id: z.string().nullable().default(null),
});
export type Order = z.infer<typeof OrderSchema>;

export const RetailDbSchema = z.object({
  products: pyDict(ProductSchema),
  users: pyDict(UserSchema),
  orders: pyDict(OrderSchema),
});
export type RetailDb = z.infer<typeof RetailDbSchema>;
