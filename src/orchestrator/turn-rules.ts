import { UnusableModelOutputError } from "../core/llm.js";
import {
  hasToolCalls,
  malformedArgumentsError,
  type AssistantMessage,
  type UserMessage,
} from "../core/message.js";
import { UserSimulatorError } from "./errors.js";
import type { Ending, TurnCounters } from "./turn-state.js";

/** Who sent a message a rule judges. */
export type Speaker = "agent" | "user";

/**
 * What differs between turn protocols; everything else (who speaks when, tool calls, stop tokens of the
 * customer, step and error limits, the solo agent's duty to call tools or stop) is the loop's and the
 * same under both.
 */
export interface TurnRules {
  readonly name: "tau2" | "passk";
  /** Whether the agent's `###STOP###` (a message without tool calls) ends the conversation. */
  agentStopEnds(solo: boolean): boolean;
  /**
   * A participant's message refused before it enters the trajectory, and how the conversation then
   * ends; undefined lets it in (a call with bad arguments is then answered with an error).
   */
  refuse(message: AssistantMessage | UserMessage, speaker: Speaker): Ending | undefined;
  /** How the conversation ends when the tool errors reach `--max-errors`. */
  tooManyErrors(counters: TurnCounters, maxErrors: number): Ending;
}

/**
 * τ²-bench's rules, as the reference behaves:
 * - the agent's stop token ends only a solo conversation (with a customer, only the customer ends it);
 * - model output the reference cannot take in — tool-call arguments that are not a JSON object, or a
 *   message with neither text nor tool calls — ends the conversation as an infrastructure error, to be
 *   run again (the customer's is also marked as the simulator's fault);
 * - at `--max-errors` it is `too_many_errors`, marked as the simulator's fault when most errors came
 *   from the customer's own tool calls.
 */
export const tau2Rules: TurnRules = {
  name: "tau2",
  agentStopEnds: (solo) => solo,
  refuse(message, speaker) {
    const error = unusableOutput(message, speaker === "agent" ? "agent" : "user simulator");
    if (!error) return undefined;
    return speaker === "user"
      ? { reason: "infrastructure_error", error, fault: "user_simulator" }
      : { reason: "infrastructure_error", error };
  },
  tooManyErrors: (counters) =>
    customersErrors(counters)
      ? { reason: "too_many_errors", fault: "user_simulator" }
      : { reason: "too_many_errors" },
};

/**
 * passk's rules, where they differ from τ²'s:
 * - the agent's stop token always ends the conversation;
 * - tool-call arguments that are not JSON are answered with an error the model can act on (the message
 *   enters the trajectory); an empty message counts against whoever sent it — an `agent_error` for the
 *   agent, an infrastructure error and the simulator's fault for the customer;
 * - at `--max-errors`, when most errors came from the customer's own tool calls, the conversation is the
 *   simulator's failure (an infrastructure error), not `too_many_errors`.
 */
export const passkRules: TurnRules = {
  name: "passk",
  agentStopEnds: () => true,
  refuse(message, speaker) {
    if (hasToolCalls(message) || message.content?.trim()) return undefined;
    return speaker === "agent"
      ? { reason: "agent_error", error: new Error("the agent sent an empty message") }
      : {
          reason: "infrastructure_error",
          error: new UserSimulatorError("the user simulator sent an empty message"),
          fault: "user_simulator",
        };
  },
  tooManyErrors(counters, maxErrors) {
    if (!customersErrors(counters)) return { reason: "too_many_errors" };
    const error = new UserSimulatorError(
      `the simulated customer's own tool calls failed ${counters.userErrors} of ${counters.errors} times (--max-errors ${maxErrors})`,
    );
    return { reason: "infrastructure_error", error, fault: "user_simulator" };
  },
};

/** The rules of a protocol; passk's unless τ²'s are asked for. */
export function turnRules(protocol: "tau2" | "passk" | undefined): TurnRules {
  return protocol === "tau2" ? tau2Rules : passkRules;
}

/** Whether most tool errors were the customer's own calls failing (an unknown tool, again and again). */
function customersErrors(counters: TurnCounters): boolean {
  return counters.userErrors * 2 > counters.errors;
}

/**
 * Model output the reference cannot take in — tool-call arguments that are not a JSON object, or a
 * message with neither text nor tool calls — as the error the τ² protocol ends the simulation with.
 */
function unusableOutput(
  message: AssistantMessage | UserMessage,
  who: "agent" | "user simulator",
): UnusableModelOutputError | undefined {
  for (const call of message.tool_calls ?? []) {
    const malformed = malformedArgumentsError(call);
    if (malformed)
      return new UnusableModelOutputError(
        `the ${who}'s model output is unusable: ${malformed.replace(/ Call the tool again.*$/, "")}; under the τ² protocol the simulation is run again`,
      );
  }
  if (!hasToolCalls(message) && !message.content?.trim())
    return new UnusableModelOutputError(
      `the ${who}'s model sent an empty message; under the τ² protocol the simulation is run again`,
    );
  return undefined;
}
