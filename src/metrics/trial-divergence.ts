import type { Message, ToolCall } from "../core/message.js";

/**
 * Where two conversations of one task part ways. Pure functions over messages (no Node, no domain):
 * the web app compares two trials with them, the server places a trajectory against its gold actions
 * (`gold-divergence.ts`) with the same words.
 */

/** `name({"a":1})`, cut to `max` characters. */
export function showCall(call: { name: string; arguments: Record<string, unknown> }, max = 120): string {
  const text = `${call.name}(${JSON.stringify(call.arguments)})`;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

interface CallAt {
  call: ToolCall;
  messageIndex: number;
  /** The tool's answer, when the conversation holds it. */
  result: { content: string; error: boolean; messageIndex: number } | undefined;
}

function callsOf(messages: readonly Message[]): CallAt[] {
  const calls: CallAt[] = [];
  // Each tool message answers the earliest unanswered call with its id (models reuse ids).
  const unanswered = new Map<string, CallAt[]>();
  messages.forEach((message, messageIndex) => {
    if ((message.role === "assistant" || message.role === "user") && message.tool_calls) {
      for (const call of message.tool_calls) {
        const at: CallAt = { call, messageIndex, result: undefined };
        calls.push(at);
        unanswered.set(call.id, [...(unanswered.get(call.id) ?? []), at]);
      }
    } else if (message.role === "tool") {
      const at = unanswered.get(message.id)?.shift();
      if (at) at.result = { content: message.content ?? "", error: message.error, messageIndex };
    }
  });
  return calls;
}

const answerOf = (result: CallAt["result"]) =>
  result === undefined
    ? "no answer"
    : result.error
      ? `an error, "${cut(result.content)}"`
      : `"${cut(result.content)}"`;
const cut = (text: string, max = 80) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** Arguments as text with keys sorted, so key order does not count as a difference. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([x], [y]) => x.localeCompare(y)),
        )
      : v,
  );
}

const sameCall = (a: ToolCall, b: ToolCall) =>
  a.name === b.name &&
  (a.requestor ?? "assistant") === (b.requestor ?? "assistant") &&
  canonical(a.arguments) === canonical(b.arguments);

const words = (message: Message | undefined) =>
  (typeof message?.content === "string" ? message.content : "").replace(/\s+/g, " ").trim().toLowerCase();

export interface TrialDivergence {
  /** Index into the first conversation's messages, and into the second's. */
  a: number;
  b: number;
  /**
   * `action`: the tool calls part ways (what matters for the final state); `result`: the same call
   * was answered differently (an error in one, say); `words`: the same calls and answers, but what
   * was said first differs; `length`: one conversation goes on where the other ended.
   */
  kind: "action" | "result" | "words" | "length";
  sentence: string;
}

/**
 * The first point where two conversations of the same task differ. Their tool calls are compared
 * first, in order (two model runs never say the same words, but a good agent makes the same calls):
 * the first call that differs, or whose tool answered differently, or the first call one makes after
 * the other stopped, is the divergence. When the calls and answers are the same, the first message
 * whose words differ is.
 */
export function firstDivergence(a: readonly Message[], b: readonly Message[]): TrialDivergence | null {
  const callsA = callsOf(a);
  const callsB = callsOf(b);
  const common = Math.min(callsA.length, callsB.length);
  for (let i = 0; i < common; i++) {
    const x = callsA[i]!;
    const y = callsB[i]!;
    if (!sameCall(x.call, y.call)) {
      return {
        a: x.messageIndex,
        b: y.messageIndex,
        kind: "action",
        sentence: `Call ${i + 1} differs: ${showCall(x.call)} in the first, ${showCall(y.call)} in the second.`,
      };
    }
    const sameAnswer =
      x.result?.error === y.result?.error && (x.result?.content ?? null) === (y.result?.content ?? null);
    if (!sameAnswer) {
      return {
        a: x.result?.messageIndex ?? x.messageIndex,
        b: y.result?.messageIndex ?? y.messageIndex,
        kind: "result",
        sentence: `Call ${i + 1}, ${showCall(x.call)}, was answered differently: ${answerOf(x.result)} in the first, ${answerOf(y.result)} in the second.`,
      };
    }
  }
  if (callsA.length !== callsB.length) {
    const longer = callsA.length > callsB.length ? callsA : callsB;
    const extra = longer[common]!;
    // In the other conversation, the point after its last common call: where it did something else.
    const shorter = longer === callsA ? b : a;
    const lastCommon = common > 0 ? (longer === callsA ? callsB : callsA)[common - 1]!.messageIndex : -1;
    let other = shorter.findIndex((m, i) => i > lastCommon && m.role !== "tool");
    if (other < 0) other = Math.max(0, shorter.length - 1);
    const which = longer === callsA ? "first" : "second";
    return {
      a: longer === callsA ? extra.messageIndex : other,
      b: longer === callsA ? other : extra.messageIndex,
      kind: "action",
      sentence: `After ${common} common call${common === 1 ? "" : "s"}, only the ${which} goes on with ${showCall(extra.call)}.`,
    };
  }
  const shared = Math.min(a.length, b.length);
  for (let i = 0; i < shared; i++) {
    if (a[i]!.role !== b[i]!.role || (a[i]!.role !== "tool" && words(a[i]) !== words(b[i]))) {
      return {
        a: i,
        b: i,
        kind: "words",
        sentence: `The same calls in the same order; what is said first differs at turn ${i}.`,
      };
    }
  }
  if (a.length !== b.length) {
    return {
      a: Math.min(shared, a.length - 1),
      b: Math.min(shared, b.length - 1),
      kind: "length",
      sentence: `The same conversation for ${shared} turns; then only the ${a.length > b.length ? "first" : "second"} goes on.`,
    };
  }
  return null;
}
