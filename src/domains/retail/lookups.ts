import { ToolError } from "../../env/world.js";
import type { GiftCard, Order, PaymentMethod, Product, RetailDb, User, Variant } from "./db-schema.js";
import { pyDictGet } from "../../python/py-values.js";

// Record lookups shared by the retail tools, with the reference's error texts. Ids are raw arguments
// (any JSON value in lenient mode): a non-string id is simply not found, a list or dict is unhashable.

export function getOrder(db: RetailDb, orderId: unknown): Order {
  const order = pyDictGet(db.orders, orderId);
  if (!order) throw new ToolError("Order not found");
  return order;
}

export function getUser(db: RetailDb, userId: unknown): User {
  const user = pyDictGet(db.users, userId);
  if (!user) throw new ToolError("User not found");
  return user;
}

export function getProduct(db: RetailDb, productId: unknown): Product {
  const product = pyDictGet(db.products, productId);
  if (!product) throw new ToolError("Product not found");
  return product;
}

/** An item (variant) of any product, searched product by product. */
export function getItem(db: RetailDb, itemId: unknown): Variant {
  for (const product of db.products.values()) {
    const variant = pyDictGet(product.variants, itemId);
    if (variant) return variant;
  }
  throw new ToolError("Item not found");
}

export function getVariant(db: RetailDb, productId: unknown, variantId: unknown): Variant {
  const variant = pyDictGet(getProduct(db, productId).variants, variantId);
  if (!variant) throw new ToolError("Variant not found");
  return variant;
}

export function getPaymentMethod(db: RetailDb, userId: unknown, paymentMethodId: unknown): PaymentMethod {
  const method = pyDictGet(getUser(db, userId).payment_methods, paymentMethodId);
  if (!method) throw new ToolError("Payment method not found");
  return method;
}

export function isGiftCard(method: PaymentMethod): method is GiftCard {
  return method.source === "gift_card";
}
