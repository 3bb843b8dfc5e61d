import { describe, expect, it } from "vitest";
import type { ToolCall } from "../src/core/message.js";
import type { RewardInfo } from "../src/core/simulation.js";
import { fixtureDomainData } from "../src/testing/tau2-fixtures.js";
import { explainVoiceCall } from "../src/voice/explain-call.js";

// Why a voice call failed, on a call that looks real: a polite, rambling caller who spells out what they
// know, and an agent that gets one thing wrong. A value is only "said" if it is in the caller's words.

const task = fixtureDomainData("airline").task("8");
const gold = (task.evaluation_criteria?.actions ?? []).filter((a) => a.requestor === "assistant");
const booking = gold.find((a) => a.name === "book_reservation")!;
const callerWords =
  "Hi, um, yes hello, sorry, I'm on the train. So I'd like to — wait — book a one-way flight, from, uh, ORD " +
  "to PHL, on May 26? My name is Sophia Silva, and my user id is, um, sophia_silva_7557. Sorry, was that clear? " +
  "Okay. Yes. Yes, that's fine, go ahead. Thank you so much, bye.";
const failed: RewardInfo = {
  reward: 0,
  reward_basis: ["DB", "COMMUNICATE"],
  db_check: { db_match: false, db_reward: 0 },
} as RewardInfo;

function withBooking(args: Record<string, unknown>): ToolCall[] {
  return gold.map((action, i) => ({
    id: `call_${i}`,
    name: action.name,
    arguments: action === booking ? { ...action.arguments, ...args } : action.arguments,
    requestor: "assistant" as const,
  }));
}

describe("why a voice call failed", () => {
  it("names the value the caller said and the one the agent's call carried", () => {
    expect(
      explainVoiceCall(
        task,
        { agentCalls: withBooking({ origin: "ORDL" }), callerWords },
        failed,
        "user_stop",
      ),
    ).toBe("the caller said 'ORD' and the agent used 'ORDL' (book_reservation origin)");
  });

  it("does not call a wrong value misheard when the caller never said it", () => {
    // The scenario may name the cabin, but this caller never said it: choosing it was the agent's call.
    expect(String(booking.arguments.cabin)).not.toBe("business");
    expect(callerWords).not.toContain(String(booking.arguments.cabin));
    const why = explainVoiceCall(
      task,
      { agentCalls: withBooking({ cabin: "business" }), callerWords },
      failed,
      "user_stop",
    );
    expect(why).not.toContain("the caller said");
    expect(why).toBe("DB: final database differs from the gold database");
  });

  it("says nothing about a call that passed, and names a call cut short by its end", () => {
    expect(
      explainVoiceCall(
        task,
        { agentCalls: withBooking({}), callerWords },
        { ...failed, reward: 1 },
        "user_stop",
      ),
    ).toBeUndefined();
    expect(explainVoiceCall(task, { agentCalls: [], callerWords: "" }, failed, "max_steps")).toBe(
      "TERMINATION: conversation ended with max_steps",
    );
  });

  it("does not call a second, right lookup of another id a mishearing of the first", () => {
    // The caller names two reservations; the agent looks both up, and mishears only the second.
    const words = "Could you check, um, reservation ABC123 and — hold on — also XYZ789 please?";
    const twoLookups = {
      ...task,
      evaluation_criteria: {
        ...task.evaluation_criteria,
        actions: ["ABC123", "XYZ789"].map((id, i) => ({
          action_id: `lookup_${i}`,
          requestor: "assistant" as const,
          name: "get_reservation_details",
          arguments: { reservation_id: id },
          info: null,
          compare_args: null,
        })),
      },
    } as typeof task;
    const lookups = (ids: string[]): ToolCall[] =>
      ids.map((id, i) => ({
        id: `call_${i}`,
        name: "get_reservation_details",
        arguments: { reservation_id: id },
        requestor: "assistant" as const,
      }));
    expect(
      explainVoiceCall(
        twoLookups,
        { agentCalls: lookups(["ABC123", "XYZ78"]), callerWords: words },
        failed,
        "user_stop",
      ),
    ).toBe("the caller said 'XYZ789' and the agent used 'XYZ78' (get_reservation_details reservation_id)");
    // Both heard right: no mishearing is claimed, whatever else failed.
    expect(
      explainVoiceCall(
        twoLookups,
        { agentCalls: lookups(["ABC123", "XYZ789"]), callerWords: words },
        failed,
        "user_stop",
      ),
    ).not.toContain("the caller said");
  });
});
