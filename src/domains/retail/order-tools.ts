import { z } from "zod";
import { defineTool } from "../../env/tool.js";
import { ToolError } from "../../env/world.js";
import { pyRound2 } from "../../python/py-arithmetic.js";
import { addressParameters, buildAddress } from "./address.js";
import {
  CANCEL_REASONS,
  OrderSchema,
  UserSchema,
  type Order,
  type OrderItem,
  type RetailDb,
  type Variant,
} from "./db-schema.js";
import { getOrder, getPaymentMethod, getUser, getVariant, isGiftCard } from "./lookups.js";
import { pyCount, pyEquals, pyIterate, pyLen, pySortedStrings, pyStr } from "../../python/py-values.js";
import { orderIdParameter, userIdParameter } from "./tools.js";

// The retail tools that change orders and users. Arguments are raw JSON values in lenient mode, so
// list arguments go through the Python-semantics helpers of python/py-values.ts (a string `item_ids`
// is iterated character by character, as in the reference). Checks run in the reference's order,
// since the first failing one decides the error text.

const paymentMethodIdParameter = z
  .string()
  .describe(
    "Id of the payment method that pays or receives the price difference, e.g. 'gift_card_0000000' or 'credit_card_0000000'; see the user's or the order's details.",
  );

const itemIdsParameter = (what: string) =>
  z
    .array(z.string())
    .describe(`Ids of the items to ${what}, e.g. ['1008292230']. An item may appear more than once.`);

const newItemIdsParameter = z
  .array(z.string())
  .describe(
    "Ids of the new items, e.g. ['1008292230'], one per old item and in the same order; each must be an item of the same product as the old item at its position.",
  );

/** The first order item whose id equals `itemId` (Python `==`). */
function findItem(order: Order, itemId: unknown): OrderItem | undefined {
  return order.items.find((item) => pyEquals(item.item_id, itemId));
}

/** Python's `for item_id in item_ids: if item_ids.count(item_id) > all_item_ids.count(item_id)`. */
function firstMissingItem(order: Order, itemIds: unknown): { missing: unknown } | undefined {
  const inOrder = order.items.map((item) => item.item_id);
  for (const itemId of pyIterate(itemIds)) {
    if (pyCount(itemIds, itemId) > pyCount(inOrder, itemId)) return { missing: itemId };
  }
  return undefined;
}

/** Python's `zip(a, b)`. */
function zipPairs(a: unknown, b: unknown): Array<[unknown, unknown]> {
  const left = pyIterate(a);
  const right = pyIterate(b);
  return left.slice(0, Math.min(left.length, right.length)).map((item, i) => [item, right[i]]);
}

export const cancelPendingOrder = defineTool({
  name: "cancel_pending_order",
  description:
    "Cancel a pending order and refund its payments: at once to a gift card, in 5-7 business days to other payment methods. Orders already processed or delivered cannot be cancelled. Explain the cancellation and get the customer's explicit confirmation (yes) first. Returns the cancelled order.",
  kind: "write",
  parameters: z.object({
    order_id: orderIdParameter,
    reason: z
      .string()
      .describe(`Why the order is cancelled: ${CANCEL_REASONS.map((r) => `'${r}'`).join(" or ")}.`),
  }),
  returns: OrderSchema,
  run(db: RetailDb, { order_id, reason }) {
    const order = getOrder(db, order_id);
    if (order.status !== "pending") throw new ToolError("Non-pending order cannot be cancelled");
    if (reason !== null && typeof reason === "object") {
      throw new ToolError(`unhashable type: '${Array.isArray(reason) ? "list" : "dict"}'`, "TypeError");
    }
    if (!(CANCEL_REASONS as readonly unknown[]).includes(reason)) throw new ToolError("Invalid reason");
    const refunds = order.payment_history.map((payment) => {
      const method = getPaymentMethod(db, getUser(db, order.user_id).user_id, payment.payment_method_id);
      if (isGiftCard(method)) method.balance = pyRound2(method.balance + payment.amount);
      return {
        transaction_type: "refund" as const,
        amount: payment.amount,
        payment_method_id: payment.payment_method_id,
      };
    });
    order.status = "cancelled";
    order.cancel_reason = reason as (typeof CANCEL_REASONS)[number];
    order.payment_history.push(...refunds);
    return order;
  },
});

export const exchangeDeliveredOrderItems = defineTool({
  name: "exchange_delivered_order_items",
  description:
    "Exchange items of a delivered order for other items of the same product. A delivered order can be returned or exchanged only once. Explain the exchange and get the customer's explicit confirmation (yes) first. Returns the order.",
  kind: "write",
  parameters: z.object({
    order_id: orderIdParameter,
    item_ids: itemIdsParameter("exchange"),
    new_item_ids: newItemIdsParameter,
    payment_method_id: paymentMethodIdParameter,
  }),
  returns: OrderSchema,
  run(db: RetailDb, { order_id, item_ids, new_item_ids, payment_method_id }) {
    const order = getOrder(db, order_id);
    if (order.status !== "delivered") throw new ToolError("Non-delivered order cannot be exchanged");
    const missing = firstMissingItem(order, item_ids);
    if (missing) throw new ToolError(`Number of ${pyStr(missing.missing)} not found.`);
    if (pyLen(item_ids) !== pyLen(new_item_ids)) {
      throw new ToolError("The number of items to be exchanged should match.");
    }
    let difference = 0;
    for (const [itemId, newItemId] of zipPairs(item_ids, new_item_ids)) {
      const item = findItem(order, itemId);
      if (!item) throw new ToolError(`Item ${pyStr(itemId)} not found`);
      const variant = getVariant(db, item.product_id, newItemId);
      if (!variant.available) throw new ToolError(`New item ${pyStr(newItemId)} not found or available`);
      difference += variant.price - item.price;
    }
    difference = pyRound2(difference);
    const method = getPaymentMethod(db, order.user_id, payment_method_id);
    if (isGiftCard(method) && method.balance < difference) {
      throw new ToolError("Insufficient gift card balance to pay for the price difference");
    }
    order.status = "exchange requested";
    order.exchange_items = pySortedStrings(item_ids);
    order.exchange_new_items = pySortedStrings(new_item_ids);
    order.exchange_payment_method_id = payment_method_id;
    order.exchange_price_difference = difference;
    return order;
  },
});

export const modifyPendingOrderAddress = defineTool({
  name: "modify_pending_order_address",
  description:
    "Change the shipping address of a pending order. Explain the change and get the customer's explicit confirmation (yes) first. Returns the order.",
  kind: "write",
  parameters: z.object({ order_id: orderIdParameter, ...addressParameters }),
  returns: OrderSchema,
  run(db: RetailDb, { order_id, ...address }) {
    const order = getOrder(db, order_id);
    if (!order.status.includes("pending")) throw new ToolError("Non-pending order cannot be modified");
    order.address = buildAddress(address);
    return order;
  },
});

export const modifyPendingOrderItems = defineTool({
  name: "modify_pending_order_items",
  description:
    "Swap items of a pending order for other items of the same product. This can be done only once per order. Explain the change and get the customer's explicit confirmation (yes) first. Returns the order.",
  kind: "write",
  parameters: z.object({
    order_id: orderIdParameter,
    item_ids: itemIdsParameter("change"),
    new_item_ids: newItemIdsParameter,
    payment_method_id: paymentMethodIdParameter,
  }),
  returns: OrderSchema,
  run(db: RetailDb, { order_id, item_ids, new_item_ids, payment_method_id }) {
    const order = getOrder(db, order_id);
    if (order.status !== "pending") throw new ToolError("Non-pending order cannot be modified");
    const missing = firstMissingItem(order, item_ids);
    if (missing) throw new ToolError(`${pyStr(missing.missing)} not found`);
    if (pyLen(item_ids) !== pyLen(new_item_ids)) {
      throw new ToolError("The number of items to be exchanged should match");
    }
    const pairs = zipPairs(item_ids, new_item_ids);
    let difference = 0;
    let variant: Variant | undefined;
    for (const [itemId, newItemId] of pairs) {
      if (pyEquals(itemId, newItemId)) {
        throw new ToolError("The new item id should be different from the old item id");
      }
      const item = findItem(order, itemId);
      if (!item) throw new ToolError(`Item ${pyStr(itemId)} not found`);
      variant = getVariant(db, item.product_id, newItemId);
      if (!variant.available) throw new ToolError(`New item ${pyStr(newItemId)} not found or available`);
      difference += variant.price - item.price;
    }
    const method = getPaymentMethod(db, order.user_id, payment_method_id);
    if (isGiftCard(method) && method.balance < difference) {
      throw new ToolError("Insufficient gift card balance to pay for the new item");
    }
    order.payment_history.push({
      transaction_type: difference > 0 ? "payment" : "refund",
      amount: Math.abs(difference),
      payment_method_id: payment_method_id,
    });
    if (isGiftCard(method)) method.balance = pyRound2(method.balance - difference);
    // Reference quirk kept on purpose: every changed item takes the price and options of the *last*
    // new item checked above (its loop variable), not of its own new item.
    for (const [itemId, newItemId] of pairs) {
      const item = findItem(order, itemId)!;
      item.item_id = newItemId as string;
      item.price = variant!.price;
      item.options = { ...variant!.options };
    }
    order.status = "pending (item modified)";
    return order;
  },
});

export const modifyPendingOrderPayment = defineTool({
  name: "modify_pending_order_payment",
  description:
    "Pay a pending order with another of the customer's payment methods; the old one is refunded. Explain the change and get the customer's explicit confirmation (yes) first. Returns the order.",
  kind: "write",
  parameters: z.object({ order_id: orderIdParameter, payment_method_id: paymentMethodIdParameter }),
  returns: OrderSchema,
  run(db: RetailDb, { order_id, payment_method_id }) {
    const order = getOrder(db, order_id);
    if (!order.status.includes("pending")) throw new ToolError("Non-pending order cannot be modified");
    const method = getPaymentMethod(db, order.user_id, payment_method_id);
    const first = order.payment_history[0];
    if (order.payment_history.length !== 1 || first!.transaction_type !== "payment") {
      throw new ToolError("There should be exactly one payment for a pending order");
    }
    if (first!.payment_method_id === payment_method_id) {
      throw new ToolError("The new payment method should be different from the current one");
    }
    const { amount, payment_method_id: oldMethodId } = first!;
    if (isGiftCard(method) && method.balance < amount) {
      throw new ToolError("Insufficient gift card balance to pay for the order");
    }
    order.payment_history.push(
      { transaction_type: "payment", amount, payment_method_id },
      { transaction_type: "refund", amount, payment_method_id: oldMethodId },
    );
    if (isGiftCard(method)) method.balance = pyRound2(method.balance - amount);
    const oldMethod = getPaymentMethod(db, order.user_id, oldMethodId);
    if (isGiftCard(oldMethod)) oldMethod.balance = pyRound2(oldMethod.balance + amount);
    return order;
  },
});

export const modifyUserAddress = defineTool({
  name: "modify_user_address",
  description:
    "Change a customer's default address. Explain the change and get the customer's explicit confirmation (yes) first. Returns the customer's profile.",
  kind: "write",
  parameters: z.object({ user_id: userIdParameter, ...addressParameters }),
  returns: UserSchema,
  run(db: RetailDb, { user_id, ...address }) {
    const user = getUser(db, user_id);
    user.address = buildAddress(address);
    return user;
  },
});

export const returnDeliveredOrderItems = defineTool({
  name: "return_delivered_order_items",
  description:
    "Request the return of items of a delivered order; the order becomes 'return requested' and the customer gets an email on how to send the items back. Explain the return and get the customer's explicit confirmation (yes) first. Returns the order.",
  kind: "write",
  parameters: z.object({
    order_id: orderIdParameter,
    item_ids: itemIdsParameter("return"),
    payment_method_id: z
      .string()
      .describe(
        "Id of the payment method that receives the refund: the order's original payment method or a gift card, e.g. 'gift_card_0000000'.",
      ),
  }),
  returns: OrderSchema,
  run(db: RetailDb, { order_id, item_ids, payment_method_id }) {
    const order = getOrder(db, order_id);
    if (order.status !== "delivered") throw new ToolError("Non-delivered order cannot be returned");
    const user = getUser(db, order.user_id);
    const method = getPaymentMethod(db, user.user_id, payment_method_id);
    const original = order.payment_history[0];
    if (!original) throw new ToolError("list index out of range", "IndexError");
    if (!isGiftCard(method) && payment_method_id !== original.payment_method_id) {
      throw new ToolError("Payment method should be the original payment method");
    }
    if (firstMissingItem(order, item_ids)) throw new ToolError("Some item not found");
    order.status = "return requested";
    order.return_items = pySortedStrings(item_ids);
    order.return_payment_method_id = payment_method_id;
    return order;
  },
});
