import type { Message, ToolCall } from "../core/message.js";
import type { Action } from "../core/task.js";

/**
 * A trajectory's tool calls read together with their tools' answers, and a call's arguments set
 * against a gold action's: what the explanations of a failure (where it went wrong, who caused it)
 * rest on.
 */

export interface CallAt {
  call: ToolCall;
  messageIndex: number;
  /** The tool's answer, when the trajectory holds it: an error answer means the call did nothing. */
  error: string | undefined;
}

/** Every tool call of a trajectory, in order, with the error its tool answered (if any). */
export function callsWithResults(messages: readonly Message[]): CallAt[] {
  const calls: CallAt[] = [];
  // Each tool message answers the earliest unanswered call with its id (models reuse ids).
  const unanswered = new Map<string, CallAt[]>();
  messages.forEach((message, messageIndex) => {
    if ((message.role === "assistant" || message.role === "user") && message.tool_calls) {
      for (const call of message.tool_calls) {
        const at: CallAt = { call, messageIndex, error: undefined };
        calls.push(at);
        unanswered.set(call.id, [...(unanswered.get(call.id) ?? []), at]);
      }
    } else if (message.role === "tool") {
      const at = unanswered.get(message.id)?.shift();
      if (at && message.error) at.error = message.content ?? "";
    }
  });
  return calls;
}

/** One argument, down to its leaf, in which a call differs from a gold action. */
export interface ArgumentDifference {
  /** `flights[0].flight_number`. */
  path: string;
  /** The call's value there (undefined: absent). */
  value: unknown;
  gold: unknown;
}

/** The arguments in which a call differs from a gold action, each named down to the differing leaf. */
export function argumentDifferences(action: Action, call: ToolCall): ArgumentDifference[] {
  const keys = action.compare_args ?? [
    ...new Set([...Object.keys(action.arguments), ...Object.keys(call.arguments)]),
  ];
  return keys.flatMap((key) => leafDifferences(key, call.arguments[key], action.arguments[key]));
}

const shown = (value: unknown) => (value === undefined ? "(none)" : JSON.stringify(value));

/** `flights[0].flight_number: "HAT069", gold "HAT136"`. */
export const showDifference = (d: ArgumentDifference) =>
  `${d.path}: ${shown(d.value)}, gold ${shown(d.gold)}`;

function leafDifferences(path: string, value: unknown, gold: unknown): ArgumentDifference[] {
  if (JSON.stringify(value) === JSON.stringify(gold)) return [];
  if (Array.isArray(value) && Array.isArray(gold)) {
    const length = Math.max(value.length, gold.length);
    return Array.from({ length }, (_, i) => leafDifferences(`${path}[${i}]`, value[i], gold[i])).flat();
  }
  if (isRecord(value) && isRecord(gold)) {
    const keys = [...new Set([...Object.keys(value), ...Object.keys(gold)])];
    return keys.flatMap((k) => leafDifferences(`${path}.${k}`, value[k], gold[k]));
  }
  return [{ path, value, gold }];
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);
