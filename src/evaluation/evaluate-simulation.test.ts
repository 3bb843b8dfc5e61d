import { describe, expect, it } from "vitest";
import type { Message, ToolCall } from "../core/message.js";
import { builtinDomains } from "../domains/registry.js";
import { DomainData } from "../formats/tau2/domain-data.js";
import { tau2DataDir } from "../testing/tau2-fixtures.js";
import type { ClosestCall } from "./actions.js";
import type { RecordDiff } from "../env/db-diff.js";
import { evaluateSimulation } from "./evaluate-simulation.js";

// A reward of 0 must come with the reasons: the missed gold action and the closest call made, the
// string that was not communicated, and the records in which the predicted database differs from the
// gold one.

const data = new DomainData(builtinDomains.get("airline")!, tau2DataDir());

/** A conversation in which the agent makes `calls` (each run in a live world) and then says `text`. */
function conversation(calls: ToolCall[], text: string): Message[] {
  const world = data.newWorld();
  const messages: Message[] = [];
  for (const call of calls) {
    const result = world.callTool(call);
    messages.push(
      { role: "assistant", content: null, tool_calls: [call] },
      { id: call.id, role: "tool", content: result.content, requestor: "assistant", error: result.error },
    );
  }
  messages.push({ role: "assistant", content: text });
  return messages;
}

describe("reward_info explains a failed conversation", () => {
  // Task 11: change reservation GV1N64's flights in basic economy, paid with a gift card; say "5244".
  const task = data.task("11");
  const gold = task.evaluation_criteria!.actions![0]!;

  it("names the missed action, the closest call and what differed; the unsaid string; the record diff", async () => {
    const call: ToolCall = {
      id: "call_0",
      name: gold.name,
      arguments: { ...gold.arguments, cabin: "economy" },
      requestor: "assistant",
    };
    const reward = await evaluateSimulation(
      { termination_reason: "agent_stop", messages: conversation([call], "All changed.") },
      task,
      { newWorld: (o) => data.newWorld(o) },
    );
    expect(reward.reward).toBe(0);
    expect(reward.reward_breakdown).toEqual({ DB: 0, COMMUNICATE: 0 });
    expect(reward.db_check).toEqual({ db_match: false, db_reward: 0 });

    // ACTION is not in this task's basis, but the check still says which call came closest.
    const [check] = reward.action_checks!;
    expect(check!.action_match).toBe(false);
    expect(check!.closest_tool_call as ClosestCall).toEqual({
      name: gold.name,
      arguments: call.arguments,
      differing_arguments: ["cabin"],
    });

    expect(reward.communicate_checks).toEqual([expect.objectContaining({ info: "5244", met: false })]);

    const diff = (reward.info as { db_diff: { agent: RecordDiff[]; user: RecordDiff[] } }).db_diff;
    // Recorded once: the environment component's own info stays as the reference's (None).
    expect((reward.info as { env: unknown }).env).toBeNull();
    expect(diff.agent.map((d) => [d.collection, d.id, d.kind])).toContainEqual([
      "reservations",
      "GV1N64",
      "changed",
    ]);
    const reservation = diff.agent.find((d) => d.id === "GV1N64")!;
    expect(reservation.fields.map((f) => f.path)).toContain("cabin");
    // Machine-readable: the whole explanation survives a JSON round trip.
    expect(JSON.parse(JSON.stringify(reward))).toEqual(reward);
  });

  it("the gold conversation scores 1 with no diff", async () => {
    const call: ToolCall = {
      id: "call_0",
      name: gold.name,
      arguments: gold.arguments,
      requestor: "assistant",
    };
    const reward = await evaluateSimulation(
      { termination_reason: "agent_stop", messages: conversation([call], "Done: 5244 dollars.") },
      task,
      { newWorld: (o) => data.newWorld(o) },
    );
    expect(reward.reward).toBe(1);
    expect(reward.info).not.toHaveProperty("db_diff");
  });

  it("a conversation that did not end by user or agent stop scores 0", async () => {
    const call: ToolCall = {
      id: "call_0",
      name: gold.name,
      arguments: gold.arguments,
      requestor: "assistant",
    };
    const reward = await evaluateSimulation(
      { termination_reason: "max_steps", messages: conversation([call], "5244") },
      task,
      { newWorld: (o) => data.newWorld(o) },
    );
    expect(reward.reward).toBe(0);
  });
});
