import { z } from "zod";
import { toPyJson } from "../../python/py-json.js";
import { ANY_SHAPE } from "../../python/py-shape.js";
import { defineTool } from "../../env/tool.js";
import { ToolError } from "../../env/world.js";
import { calculateTool } from "../shared/calculator/calculate-tool.js";
import { OrderSchema, ProductSchema, UserSchema, VariantSchema, type RetailDb } from "./db-schema.js";
import { getItem, getOrder, getProduct, getUser } from "./lookups.js";

// The retail tools that read the store or do no harm: lookups, the calculator and the hand-over to a
// human. Tools that change orders and users are in order-tools.ts.

export const orderIdParameter = z
  .string()
  .describe("Id of the order, starting with '#', e.g. '#W0000000'. Do not drop the '#'.");

export const userIdParameter = z.string().describe("Id of the customer, e.g. 'sara_doe_496'.");

export const calculate = calculateTool<RetailDb>("characters");

export const findUserIdByNameZip = defineTool({
  name: "find_user_id_by_name_zip",
  description:
    "Look up a customer's user id from their first name, last name and zip code. Prefer find_user_id_by_email; use this when the customer cannot give an email or it is not found.",
  kind: "read",
  parameters: z.object({
    first_name: z.string().describe("The customer's first name, e.g. 'John'."),
    last_name: z.string().describe("The customer's last name, e.g. 'Doe'."),
    zip: z.string().describe("The customer's zip code, e.g. '12345'."),
  }),
  run(db: RetailDb, { first_name, last_name, zip }) {
    for (const [userId, user] of db.users) {
      if (
        user.name.first_name === first_name &&
        user.name.last_name === last_name &&
        user.address.zip === zip
      )
        return userId;
    }
    throw new ToolError("User not found");
  },
});

export const findUserIdByEmail = defineTool({
  name: "find_user_id_by_email",
  description: "Look up a customer's user id from their email address. Fails when no customer has it.",
  kind: "read",
  parameters: z.object({
    email: z.string().describe("The customer's email, e.g. 'something@example.com'."),
  }),
  run(db: RetailDb, { email }) {
    for (const [userId, user] of db.users) if (user.email === email) return userId;
    throw new ToolError("User not found");
  },
});

export const getOrderDetails = defineTool({
  name: "get_order_details",
  description: "Get an order: its status, items, address, fulfillments and payment history.",
  kind: "read",
  parameters: z.object({ order_id: orderIdParameter }),
  returns: OrderSchema,
  run(db: RetailDb, { order_id }) {
    return getOrder(db, order_id);
  },
});

export const getProductDetails = defineTool({
  name: "get_product_details",
  description: "Get a product type with all its items (variants): their options, availability and price.",
  kind: "read",
  parameters: z.object({
    product_id: z
      .string()
      .describe("Id of the product type, e.g. '6086499569'. A product id is not an item id."),
  }),
  returns: ProductSchema,
  run(db: RetailDb, { product_id }) {
    return getProduct(db, product_id);
  },
});

export const getItemDetails = defineTool({
  name: "get_item_details",
  description: "Get one item (a variant of a product): its options, availability and price.",
  kind: "read",
  parameters: z.object({
    item_id: z.string().describe("Id of the item, e.g. '6086499569'. An item id is not a product id."),
  }),
  returns: VariantSchema,
  run(db: RetailDb, { item_id }) {
    return getItem(db, item_id);
  },
});

export const getUserDetails = defineTool({
  name: "get_user_details",
  description: "Get a customer's profile: name, address, email, payment methods and order ids.",
  kind: "read",
  parameters: z.object({ user_id: userIdParameter }),
  returns: UserSchema,
  run(db: RetailDb, { user_id }) {
    return getUser(db, user_id);
  },
});

export const listAllProductTypes = defineTool({
  name: "list_all_product_types",
  description:
    "List the store's product types (there are 50) as a JSON object from product name to product id, sorted by name. Each type comes in several items with their own ids and options.",
  kind: "read",
  parameters: z.object({}),
  run(db: RetailDb) {
    // Python: json.dumps({name: id}, sort_keys=True); a later product with the same name wins.
    const byName = new Map<string, string>();
    for (const product of db.products.values()) byName.set(product.name, product.product_id);
    return toPyJson(byName, ANY_SHAPE, { mode: "tool", sortKeys: true });
  },
});

export const transferToHumanAgents = defineTool({
  name: "transfer_to_human_agents",
  description:
    "Hand the customer over to a human agent with a summary of their issue. Only do this when the customer asks for a human, or when the policy and your tools do not let you solve the issue.",
  kind: "generic",
  parameters: z.object({ summary: z.string().describe("A summary of the customer's issue.") }),
  run() {
    return "Transfer successful";
  },
});
