import { describe, expect, it } from "vitest";
import { canonicalDbText } from "../src/env/db-hash.js";
import { pyShapeOf } from "../src/python/py-shape.js";
import type { ArgumentValidation } from "../src/env/world.js";
import { runSingleCall } from "../src/evaluation/single-call.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { readFixtureJson, tau2DataDir } from "../src/testing/tau2-fixtures.js";
import type { Order, RetailDb } from "../src/domains/retail/db-schema.js";
import { retailDomain } from "../src/domains/retail/index.js";

const data = new DomainData(retailDomain, tau2DataDir());

function call(name: string, args: Record<string, unknown>, validation: ArgumentValidation = "lenient") {
  const world = data.newWorld({ validation });
  const result = runSingleCall(world, { name, arguments: args, requestor: "assistant" });
  return { ...result, db: world.agentDb as RetailDb };
}

describe("the retail database", () => {
  const examples = readFixtureJson<{
    domains: Record<
      string,
      {
        agent_db_hash: string;
        agent_db_canonical_string_prefix_2000: string;
        agent_db_canonical_string_length: number;
      }
    >;
  }>("fixtures/hash_examples.json").domains.retail!;

  it("hashes to the reference's pristine hash, floats printed as Python floats", () => {
    const text = canonicalDbText(data.agentDb as object, pyShapeOf(retailDomain.agent.db));
    expect(text.slice(0, 2000)).toBe(examples.agent_db_canonical_string_prefix_2000);
    expect(text.length).toBe(examples.agent_db_canonical_string_length);
    expect(data.newWorld().hash()).toEqual({ agent: examples.agent_db_hash, user: null });
  });
});

describe("modify_pending_order_items", () => {
  // Task 21's gold call: shoes 9791469541 (147.05) → 4107812777 (155.33), keyboard 1340995114
  // (235.13) → 1421289881 (268.77), paid by gift card 4332117.
  const args = {
    order_id: "#W9911714",
    item_ids: ["9791469541", "1340995114"],
    new_item_ids: ["4107812777", "1421289881"],
    payment_method_id: "gift_card_4332117",
  };

  it("gives every changed item the price and options of the last new item, as the reference does", () => {
    const { error, db } = call("modify_pending_order_items", args, "strict");
    expect(error).toBe(false);
    const order = db.orders.get("#W9911714")!;
    expect(order.status).toBe("pending (item modified)");
    const shoes = order.items[2]!;
    expect(shoes.item_id).toBe("4107812777");
    expect(shoes.price).toBe(268.77);
    expect(shoes.options).toEqual({ "switch type": "linear", backlight: "none", size: "80%" });
    // The payment is the unrounded sum of the differences: 8.28 + 33.64.
    expect(order.payment_history.at(-1)).toEqual({
      transaction_type: "payment",
      amount: 155.33 - 147.05 + (268.77 - 235.13),
      payment_method_id: "gift_card_4332117",
    });
  });

  it("rejects an old item id that is not in the order with the reference's text", () => {
    const result = call("modify_pending_order_items", { ...args, item_ids: ["9791469541", "123"] });
    expect(result.output).toBe("Error: 123 not found");
    expect(result.agent_db_changed).toBe(false);
  });
});

describe("lenient mode behaves like the reference's Python on raw arguments", () => {
  const delivered = { order_id: "#W4817420", payment_method_id: "gift_card_8168843" };

  it("iterates a string item_ids character by character", () => {
    // "6" occurs twice in the string and in no item id of the order.
    expect(call("return_delivered_order_items", { ...delivered, item_ids: "6777246137" }).output).toBe(
      "Error: Some item not found",
    );
    expect(
      call("exchange_delivered_order_items", {
        ...delivered,
        item_ids: "6777246137",
        new_item_ids: [],
      }).output,
    ).toBe("Error: Number of 6 not found.");
  });

  it("accepts an empty string as an empty list, as sorted('') == []", () => {
    const { error, db } = call("return_delivered_order_items", { ...delivered, item_ids: "" });
    expect(error).toBe(false);
    const order: Order = db.orders.get("#W4817420")!;
    expect([order.status, order.return_items]).toEqual(["return requested", []]);
  });

  it("raises Python's TypeError for list or dict ids and treats other scalars as unknown ids", () => {
    expect(call("get_order_details", { order_id: ["#W4817420"] }).output).toBe(
      "Error: unhashable type: 'list'",
    );
    expect(call("get_item_details", { item_id: { id: "1" } }).output).toBe("Error: unhashable type: 'dict'");
    expect(call("get_user_details", { user_id: 42 }).output).toBe("Error: User not found");
    expect(call("cancel_pending_order", { order_id: "#W5918442", reason: null }).output).toBe(
      "Error: Invalid reason",
    );
    expect(call("cancel_pending_order", { order_id: "#W5918442", reason: ["no longer needed"] }).output).toBe(
      "Error: unhashable type: 'list'",
    );
  });

  it("fails non-string address fields with pydantic 2.13's ValidationError text", () => {
    const address = { address1: "1 Main St", address2: "", city: "Austin", state: "TX", country: "USA" };
    const result = call("modify_pending_order_address", {
      order_id: "#W5918442",
      ...address,
      address1: Array.from({ length: 40 }, (_, i) => i),
      zip: 78701,
    });
    // Oracle: pydantic 2.13.4 on CPython 3.11 (long reprs shortened to 25 + 24 bytes).
    expect(result.output).toBe(
      "Error: 2 validation errors for UserAddress\n" +
        "address1\n  Input should be a valid string [type=string_type, input_value=[0, 1, 2, 3, 4, 5, 6, 7, ... 34, 35, 36, 37, 38, 39], input_type=list]\n" +
        "    For further information visit https://errors.pydantic.dev/2.13/v/string_type\n" +
        "zip\n  Input should be a valid string [type=string_type, input_value=78701, input_type=int]\n" +
        "    For further information visit https://errors.pydantic.dev/2.13/v/string_type",
    );
    expect(result.agent_db_changed).toBe(false);
  });
});

describe("strict mode rejects badly typed arguments before the tool runs", () => {
  it.each([
    [
      "return_delivered_order_items",
      { order_id: "#W4817420", item_ids: "6777246137", payment_method_id: "x" },
      "item_ids",
    ],
    [
      "modify_pending_order_items",
      { order_id: "#W5918442", item_ids: [1725100896], new_item_ids: ["1"], payment_method_id: "x" },
      "item_ids[0]",
    ],
    ["calculate", { expression: "2 + two" }, "expression"],
    [
      "modify_user_address",
      {
        user_id: "sofia_rossi_8776",
        address1: "x",
        address2: "",
        city: "c",
        state: "s",
        country: "c",
        zip: 1,
      },
      "zip",
    ],
  ])("%s with a wrong %#", (name, args, argument) => {
    const result = call(name, args, "strict");
    expect(result.error).toBe(true);
    expect(result.output).toContain(`'${name}'`);
    expect(result.output).toContain(`'${argument}'`);
    expect(result.agent_db_changed).toBe(false);
  });
});
