import type { Message, ToolCall } from "../core/message.js";
import type { Action, Task } from "../core/task.js";
import { actionMatches } from "../evaluation/actions.js";
import {
  argumentDifferences,
  callsWithResults,
  showDifference,
  type CallAt,
} from "../evaluation/trajectory-calls.js";
import { showCall } from "./trial-divergence.js";

/**
 * Where a trajectory first departs from the task's gold actions: the message at which it happens
 * (an index into the simulation's messages), what the gold list expected there and what happened.
 */
export interface GoldDivergence {
  messageIndex: number;
  kind: "unexpected-call" | "out-of-order" | "missing-action" | "wrong-arguments" | "failed-call";
  /** The gold action expected at that point (index into the task's actions), if any. */
  expectedAction: number | null;
  sentence: string;
}

/** What the divergence search needs to know of the task and its tools. */
export interface GoldReference {
  actions: readonly Action[];
  /** Whether a tool changes state (its calls matter even when the gold list does not name them). */
  changesState: (toolName: string) => boolean;
  /** The task's reward basis includes ACTION: a missing read is a failure too. */
  actionsCounted: boolean;
  /**
   * The reward looks at the final state (DB or ENV_ASSERTION in its basis, or no basis given): a write
   * done differently from gold costs something. When neither this nor `actionsCounted` holds, no
   * departure from gold changes the reward, so none explains a failure.
   */
  stateCounted: boolean;
}

/**
 * The reference for a task: its gold actions, its reward basis, and which of the domain's tools (the
 * agent's and the customer's) change state; without the tools every call the gold list does not name
 * counts.
 */
export function goldReferenceOf(
  task: Pick<Task, "evaluation_criteria"> | null,
  tools: ReadonlyArray<{ name: string; mutatesState: boolean }> | undefined,
): GoldReference {
  const writes = tools ? new Set(tools.filter((t) => t.mutatesState).map((t) => t.name)) : undefined;
  const basis: readonly string[] = task?.evaluation_criteria?.reward_basis ?? [];
  return {
    actions: task?.evaluation_criteria?.actions ?? [],
    changesState: (name) => writes?.has(name) ?? true,
    actionsCounted: basis.includes("ACTION"),
    stateCounted: basis.length === 0 || basis.includes("DB") || basis.includes("ENV_ASSERTION"),
  };
}

const quoted = (text: string, max = 100) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return `"${flat.length > max ? `${flat.slice(0, max - 1)}…` : flat}"`;
};

/**
 * Where a trajectory first departs from the task's gold actions, walking its tool calls in order. A
 * call counts as done only when its tool did not answer with an error:
 *
 * - a successful call that matches the next unmatched gold action moves on;
 * - one that matches a later gold action while a state-changing one before it is still undone is
 *   `out-of-order` (skipped lookups are not a departure: a conversation may find things another way);
 * - a call that matches a gold action but was answered with an error, and is never done again
 *   successfully, is `failed-call`;
 * - a state-changing call that matches no gold action is `wrong-arguments` when a gold action of that
 *   tool is still undone (naming the arguments that differ), else `unexpected-call` when it changed
 *   the world (an error answer changed nothing); extra lookups are not a departure;
 * - a gold action never attempted (a state-changing one, or any when the reward counts actions) is
 *   `missing-action`: the conversation ended without it, so it is placed at the agent's transfer to a
 *   human, else at the agent's last turn.
 *
 * The earliest of these is the answer; null when the trajectory does every gold action in order
 * (a failure is then elsewhere: what was said, or the final state), and null when the task's reward
 * basis counts neither actions nor state (graded on what was said only: no departure costs anything).
 */
export function goldDivergence(messages: readonly Message[], gold: GoldReference): GoldDivergence | null {
  if (!gold.actionsCounted && !gold.stateCounted) return null;
  const { actions } = gold;
  const calls = callsWithResults(messages);
  const matchedAt: Array<number | undefined> = actions.map(() => undefined);
  const attempted: Array<CallAt | undefined> = actions.map(() => undefined);
  const writes = (action: Action) => gold.changesState(action.name);
  let departure: GoldDivergence | null = null;
  // Order alone rarely decides a reward: reported only when nothing else departs.
  let outOfOrder: GoldDivergence | null = null;
  const depart = (found: GoldDivergence) => {
    if (departure === null || found.messageIndex < departure.messageIndex) departure = found;
  };

  for (const at of calls) {
    const { call, messageIndex, error } = at;
    const next = matchedAt.findIndex((m) => m === undefined);
    const match = actions.findIndex((action, j) => matchedAt[j] === undefined && actionMatches(action, call));
    if (match >= 0 && error !== undefined) {
      attempted[match] ??= at;
      continue;
    }
    if (match >= 0) {
      const skippedWrite = actions.findIndex(
        (action, j) => j >= next && j < match && matchedAt[j] === undefined && writes(action),
      );
      if (skippedWrite >= 0 && outOfOrder === null) {
        outOfOrder = {
          messageIndex,
          kind: "out-of-order",
          expectedAction: skippedWrite,
          sentence: `${showCall(call)} comes before gold action ${skippedWrite + 1}, ${showCall(actions[skippedWrite]!)}, which had to happen first.`,
        };
      }
      matchedAt[match] = messageIndex;
      continue;
    }
    if (!gold.changesState(call.name) || departure !== null) continue;
    const goldTool = actions.findIndex((action) => action.name === call.name);
    // A customer's own troubleshooting step that no gold action names (a reboot) is not a departure;
    // one that repeats a gold step may undo it.
    if (call.requestor === "user" && goldTool < 0) continue;
    const sameTool = closestUndone(actions, matchedAt, call);
    if (sameTool !== undefined) {
      const expected = actions[sameTool.index]!;
      depart({
        messageIndex,
        kind: "wrong-arguments",
        expectedAction: sameTool.index,
        sentence: `${showCall(call)} differs from gold action ${sameTool.index + 1}, ${showCall(expected)}, in ${sameTool.differences.join("; ")}${error !== undefined ? `; its tool answered with an error, ${quoted(error)}` : ""}.`,
      });
    } else if (error === undefined) {
      depart({
        messageIndex,
        kind: "unexpected-call",
        expectedAction: null,
        sentence:
          goldTool >= 0
            ? `${showCall(call)} again, after gold action ${goldTool + 1} was done: a call no gold action makes, which may undo it.`
            : `${showCall(call)} changes the world, and no gold action does that.`,
      });
    }
  }

  const undone = actions
    .map((action, index) => ({ action, index }))
    .filter(({ action, index }) => matchedAt[index] === undefined && (gold.actionsCounted || writes(action)));
  for (const { index } of undone) {
    const failed = attempted[index];
    if (!failed) continue;
    depart({
      messageIndex: failed.messageIndex,
      kind: "failed-call",
      expectedAction: index,
      sentence: `${showCall(failed.call)} is gold action ${index + 1}, but its tool answered with an error, ${quoted(failed.error ?? "")}, and it was never done again: it did not happen.`,
    });
  }
  const missing = undone.find(({ index }) => !attempted[index]);
  if (missing) {
    const transfer = calls.find(
      (c) => c.call.name.startsWith("transfer_to_human") && !actions.some((a) => a.name === c.call.name),
    );
    const lastAgentTurn = messages.findLastIndex((message) => message.role === "assistant");
    const who =
      missing.action.requestor === "user"
        ? `the customer's ${showCall(missing.action)}`
        : showCall(missing.action);
    depart({
      messageIndex: transfer?.messageIndex ?? Math.max(0, lastAgentTurn),
      kind: "missing-action",
      expectedAction: missing.index,
      sentence: transfer
        ? `Gold action ${missing.index + 1}, ${who}, was never done: the agent transferred to a human instead.`
        : `Gold action ${missing.index + 1}, ${who}, was never done: this is the agent's last turn.`,
    });
  }
  return departure ?? outOfOrder;
}

/** The gold actions each done by some call of the trajectory that its tool did not answer with an error. */
export function goldMatches(messages: readonly Message[], actions: readonly Action[]): boolean[] {
  const done = callsWithResults(messages).filter((c) => c.error === undefined);
  return actions.map((action) => done.some(({ call }) => actionMatches(action, call)));
}

/** The undone gold action of the call's tool with the fewest differing arguments, and what differs. */
function closestUndone(
  actions: readonly Action[],
  matchedAt: ReadonlyArray<number | undefined>,
  call: ToolCall,
): { index: number; differences: string[] } | undefined {
  let best: { index: number; differences: string[] } | undefined;
  actions.forEach((action, index) => {
    if (matchedAt[index] !== undefined || action.name !== call.name) return;
    const differences = argumentDifferences(action, call).map(showDifference);
    if (!best || differences.length < best.differences.length) best = { index, differences };
  });
  return best;
}
