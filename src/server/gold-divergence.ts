import type { Message, ToolCall } from "../core/message.js";
import type { Action } from "../core/task.js";
import { actionMatches } from "../evaluation/actions.js";
import { showCall } from "./trial-divergence.js";
import type { GoldDivergence } from "./api-schemas.js";

/** What the divergence search needs to know of the task and its tools. */
export interface GoldReference {
  actions: readonly Action[];
  /** Whether a tool changes state (its calls matter even when the gold list does not name them). */
  changesState: (toolName: string) => boolean;
  /** The task's reward basis includes ACTION: a missing read is a failure too. */
  actionsCounted: boolean;
}

interface CallAt {
  call: ToolCall;
  messageIndex: number;
}

/**
 * Where a trajectory first departs from the task's gold actions, walking its tool calls in order:
 *
 * - a call that matches the next unmatched gold action moves on;
 * - a call that matches a later gold action while a state-changing one before it is still undone is
 *   `out-of-order` (skipped lookups are not a departure: a conversation may find things another way);
 * - a state-changing call that matches no gold action is `wrong-arguments` when a gold action of that
 *   tool is still undone, else `unexpected-call`; extra lookups are not a departure;
 * - a gold action never done (a state-changing one, or any when the reward counts actions) is
 *   `missing-action`, placed at the agent's first turn after the gold action before it was done and
 *   after the customer's first words (a customer's own action too: the agent leads them to it).
 *
 * The earliest of these is the answer; null when the trajectory does every gold action in order
 * (a failure is then elsewhere: what was said, or the final state).
 */
export function goldDivergence(messages: readonly Message[], gold: GoldReference): GoldDivergence | null {
  const { actions } = gold;
  const calls: CallAt[] = messages.flatMap((message, messageIndex) =>
    (message.role === "assistant" || message.role === "user") && message.tool_calls
      ? message.tool_calls.map((call) => ({ call, messageIndex }))
      : [],
  );
  const matchedAt: Array<number | undefined> = actions.map(() => undefined);
  const writes = (action: Action) => gold.changesState(action.name);
  let departure: GoldDivergence | null = null;
  const depart = (found: GoldDivergence) => {
    if (departure === null || found.messageIndex < departure.messageIndex) departure = found;
  };

  for (const { call, messageIndex } of calls) {
    const next = matchedAt.findIndex((at) => at === undefined);
    const match = actions.findIndex((action, j) => matchedAt[j] === undefined && actionMatches(action, call));
    if (match >= 0) {
      const skippedWrite = actions.findIndex(
        (action, j) => j >= next && j < match && matchedAt[j] === undefined && writes(action),
      );
      if (skippedWrite >= 0 && departure === null) {
        depart({
          messageIndex,
          kind: "out-of-order",
          expectedAction: skippedWrite,
          sentence: `${showCall(call)} comes before gold action ${skippedWrite + 1}, ${showCall(actions[skippedWrite]!)}, which had to happen first.`,
        });
      }
      matchedAt[match] = messageIndex;
      continue;
    }
    if (!gold.changesState(call.name) || departure !== null) continue;
    const sameTool = actions.findIndex(
      (action, j) => matchedAt[j] === undefined && action.name === call.name,
    );
    if (sameTool >= 0) {
      const expected = actions[sameTool]!;
      const differing = differingKeys(expected, call);
      depart({
        messageIndex,
        kind: "wrong-arguments",
        expectedAction: sameTool,
        sentence: `${showCall(call)} differs from gold action ${sameTool + 1}, ${showCall(expected)}${differing.length > 0 ? ` (in ${differing.join(", ")})` : ""}.`,
      });
    } else {
      depart({
        messageIndex,
        kind: "unexpected-call",
        expectedAction: null,
        sentence: `${showCall(call)} changes the world, and no gold action does that.`,
      });
    }
  }

  const missing = actions.findIndex(
    (action, j) => matchedAt[j] === undefined && (gold.actionsCounted || writes(action)),
  );
  if (missing >= 0) {
    const action = actions[missing]!;
    const before = matchedAt.slice(0, missing).filter((at): at is number => at !== undefined);
    const after = before.length > 0 ? Math.max(...before) : -1;
    // Due at the agent's next turn after the gold action before it, and not before the customer has
    // said what they want (the customer's own acts follow the agent's guidance: the agent's turn too).
    const byCustomer = action.requestor === "user";
    const firstCustomer = messages.findIndex((message) => message.role === "user");
    const from = Math.max(after, firstCustomer);
    let at = messages.findIndex((message, i) => i > from && message.role === "assistant");
    if (at < 0) at = Math.max(0, messages.length - 1);
    depart({
      messageIndex: at,
      kind: "missing-action",
      expectedAction: missing,
      sentence: byCustomer
        ? `Gold action ${missing + 1}, the customer's ${showCall(action)}, was never done; the agent should have led them to it here.`
        : `Gold action ${missing + 1}, ${showCall(action)}, was never done; it was due here.`,
    });
  }
  return departure;
}

/** The gold actions each matched by some call of the trajectory (τ²'s action check). */
export function goldMatches(messages: readonly Message[], actions: readonly Action[]): boolean[] {
  const calls = messages.flatMap((m) =>
    (m.role === "assistant" || m.role === "user") && m.tool_calls ? m.tool_calls : [],
  );
  return actions.map((action) => calls.some((call) => actionMatches(action, call)));
}

function differingKeys(action: Action, call: ToolCall): string[] {
  const keys = action.compare_args ?? [
    ...new Set([...Object.keys(action.arguments), ...Object.keys(call.arguments)]),
  ];
  return keys.filter((key) => JSON.stringify(action.arguments[key]) !== JSON.stringify(call.arguments[key]));
}
