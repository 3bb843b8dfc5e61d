import { defineDomain } from "../../env/domain.js";
import { RetailDbSchema, type RetailDb } from "./db-schema.js";
import {
  cancelPendingOrder,
  exchangeDeliveredOrderItems,
  modifyPendingOrderAddress,
  modifyPendingOrderItems,
  modifyPendingOrderPayment,
  modifyUserAddress,
  returnDeliveredOrderItems,
} from "./order-tools.js";
import {
  calculate,
  findUserIdByEmail,
  findUserIdByNameZip,
  getItemDetails,
  getOrderDetails,
  getProductDetails,
  getUserDetails,
  listAllProductTypes,
  transferToHumanAgents,
} from "./tools.js";

/** τ²-bench's retail domain: an online store's customer service (orders, returns, exchanges). */
export const retailDomain = defineDomain<RetailDb>({
  name: "retail",
  description:
    "τ²-bench's online store: look up customers, orders and products; cancel, modify, return and exchange orders.",
  agent: {
    className: "RetailTools",
    db: RetailDbSchema,
    // The reference's order (its class's method order), which the tool list sent to the model keeps.
    tools: [
      calculate,
      cancelPendingOrder,
      exchangeDeliveredOrderItems,
      findUserIdByNameZip,
      findUserIdByEmail,
      getOrderDetails,
      getProductDetails,
      getItemDetails,
      getUserDetails,
      listAllProductTypes,
      modifyPendingOrderAddress,
      modifyPendingOrderItems,
      modifyPendingOrderPayment,
      modifyUserAddress,
      returnDeliveredOrderItems,
      transferToHumanAgents,
    ],
  },
  tau2: { agentTools: "src/tau2/domains/retail/tools.py" },
  data: {
    folder: "retail",
    db: "db.json",
    tasks: "tasks.json",
    splits: "split_tasks.json",
    policy: "policy.md",
  },
});
