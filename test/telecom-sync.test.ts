import { describe, expect, it } from "vitest";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { telecomDomain } from "../src/domains/telecom/index.js";

const data = new DomainData(telecomDomain, tau2DataDir());

/** John Smith's phone at home, line L1002 of customer C1001. */
function johnsWorld() {
  const world = data.newWorld({ validation: "lenient" });
  for (const step of telecomDomain.standaloneSetup ?? []) world.runEnvFunction(step);
  return world;
}
const agent = (name: string, args: Record<string, unknown> = {}) => ({
  name,
  arguments: args,
  requestor: "assistant" as const,
});
const user = (name: string) => ({ name, arguments: {}, requestor: "user" as const });
const line = { customer_id: "C1001", line_id: "L1002" };

describe("telecom sync", () => {
  it("does nothing before the customer's phone number is known", () => {
    const world = data.newWorld();
    const before = world.state;
    world.sync();
    expect(world.state).toBe(before);
  });

  it("brings the line's status to the phone; service drops at the next network search", () => {
    const world = johnsWorld();
    expect(world.userDb!.surroundings).toMatchObject({ line_active: true, roaming_allowed: true });
    world.callTool(agent("suspend_line", { ...line, reason: "travel" }));
    expect(world.userDb!.surroundings.line_active).toBe(false);
    expect(world.userDb!.device.network_connection_status).toBe("connected");
    expect(world.callTool(user("reboot_device")).content).toBe(
      "Restarting network services...\nStatus Bar: 📵 No Signal | 📵 Data Disabled | 🔋 80%",
    );
    world.callTool(agent("disable_roaming", line));
    expect(world.userDb!.surroundings.roaming_allowed).toBe(false);
  });

  it("flags used-up data until a refuel covers it", () => {
    const world = johnsWorld();
    // Premium plan: 15 GB. 15.1 GB used is over; 2 GB more allowance brings the limit to 17 GB.
    world.runEnvFunction({
      env_type: "assistant",
      func_name: "set_data_usage",
      arguments: { ...line, data_used_gb: 15.1 },
    });
    expect(world.userDb!.surroundings.mobile_data_usage_exceeded).toBe(true);
    world.callTool(agent("refuel_data", { ...line, gb_amount: 2 }));
    expect(world.userDb!.surroundings.mobile_data_usage_exceeded).toBe(false);
  });

  it("turns a bill awaiting payment into a payment request, and a payment into a paid bill", () => {
    const world = johnsWorld();
    world.runEnvFunction({
      env_type: "assistant",
      func_name: "suspend_line_for_overdue_bill",
      arguments: { ...line, new_bill_id: "B1234321", contract_ended: false },
    });
    expect(world.callTool(user("check_payment_request")).content).toBe("No payment request has been made.");
    world.callTool(agent("send_payment_request", { customer_id: "C1001", bill_id: "B1234321" }));
    expect(world.userDb!.surroundings.payment_request).toEqual({
      bill_id: "B1234321",
      amount_due: 65,
      paid: false,
    });
    expect(world.callTool(user("check_payment_request")).content).toBe(
      "You have a payment request for bill B1234321 of 65.0 USD.",
    );
    expect(world.callTool(user("make_payment")).content).toBe(
      "Payment of 65.0 USD has been made for bill B1234321.",
    );
    expect(world.userDb!.surroundings.payment_request).toBeNull();
    expect(world.agentDb.bills.find((b) => b.bill_id === "B1234321")!.status).toBe("Paid");
  });
});
