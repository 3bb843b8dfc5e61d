import { z } from "zod";
import type { BoundaryAnswer } from "../core/perturbation.js";
import { definePerturbation, rateSchedule } from "./perturbation.js";

/** A share of calls, written 0…1 (`rate=0.2`). */
export const rateParam = (fallback: number) =>
  z.coerce
    .number({ error: () => "rate must be a number from 0 to 1, e.g. rate=0.2" })
    .min(0, { error: "rate must be at least 0" })
    .max(1, { error: "rate must be at most 1" })
    .default(fallback);

const FAULT_KINDS = ["transient", "timeout", "partial"] as const;
type FaultKind = (typeof FAULT_KINDS)[number];

const FaultParamsSchema = z.strictObject({
  rate: rateParam(0.2),
  /** Which faults to draw from, `+`-separated. */
  kinds: z
    .string()
    .default("transient+timeout+partial")
    .transform((text, context) => {
      const kinds = [...new Set(text.split("+").map((k) => k.trim()))];
      const unknown = kinds.filter((k) => !(FAULT_KINDS as readonly string[]).includes(k));
      if (unknown.length > 0 || kinds.length === 0) {
        context.addIssue({
          code: "custom",
          message: `kinds "${text}" names no fault kind (${unknown.join(", ")}); use ${FAULT_KINDS.join(", ")}, joined with +`,
        });
        return z.NEVER;
      }
      return kinds as FaultKind[];
    }),
});

/** What a failed call answers: the call did not reach the tool, so trying it again may succeed. */
export const FAULT_TEXTS = {
  transient:
    "Error: the service is temporarily unavailable (HTTP 503) and the request was not processed. Try again.",
  timeout: "Error: the request timed out after 30 seconds and was not processed. Try again.",
} as const;

/**
 * Tool faults at the world boundary: a share `rate` of the agent's tool calls (first attempts; a call
 * repeated with the same arguments after a fault is a retry and always goes through) fails with a
 * transient error or a timeout — the call never reaches the tool — or, for tools that only read, comes
 * back partial (half of a list, a record missing fields). The kind is drawn from `kinds` among those
 * that fit the call; a write can only fail.
 */
export const toolFaults = definePerturbation({
  name: "tool-faults",
  version: 1,
  kind: "tool",
  summary:
    "A share of the agent's tool calls fails (transient error, timeout) or returns a partial result; a retry succeeds.",
  params: FaultParamsSchema,
  effects(params, conversation) {
    const fires = rateSchedule(params.rate, conversation.random);
    const faulted = new Set<string>();
    let partialPending: string | undefined;
    const signature = (name: string, args: unknown) => `${name}\u0000${stableJson(args)}`;
    return {
      faultToolCall(call, info) {
        const key = signature(call.name, call.arguments);
        if (faulted.has(key)) return undefined;
        const fitting = params.kinds.filter((kind) => kind !== "partial" || !info.mutatesState);
        if (fitting.length === 0 || !fires()) return undefined;
        faulted.add(key);
        const kind = fitting[Math.floor(conversation.random() * fitting.length)]!;
        if (kind === "partial") {
          partialPending = key;
          return undefined;
        }
        return {
          content: FAULT_TEXTS[kind],
          error: true,
          marks: [
            { perturbation: conversation.id, effect: kind === "timeout" ? "timeout" : "transient_error" },
          ],
        };
      },
      changeToolResult(call, _info, answer): BoundaryAnswer | undefined {
        if (partialPending !== signature(call.name, call.arguments)) return undefined;
        partialPending = undefined;
        if (answer.error) return undefined;
        return {
          content: partialResult(answer.content),
          error: false,
          marks: [...(answer.marks ?? []), { perturbation: conversation.id, effect: "partial_result" }],
        };
      },
    };
  },
});

/**
 * A plausible but partial version of a tool's output: a list cut to its first half, a record's first
 * list cut likewise, else the record without its last field; text that is not JSON cut in half.
 */
export function partialResult(content: string): string {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return content.slice(0, Math.floor(content.length / 2));
  }
  const half = <T>(items: T[]) => items.slice(0, Math.floor(items.length / 2));
  if (Array.isArray(value)) return JSON.stringify(half(value));
  if (value !== null && typeof value === "object") {
    const record = { ...(value as Record<string, unknown>) };
    const listKey = Object.keys(record).find((k) => Array.isArray(record[k]) && (record[k] as []).length > 0);
    if (listKey !== undefined) record[listKey] = half(record[listKey] as unknown[]);
    else delete record[Object.keys(record).at(-1) ?? ""];
    return JSON.stringify(record);
  }
  return content.slice(0, Math.floor(content.length / 2));
}

/** JSON with object keys sorted, so that `{a, b}` and `{b, a}` are the same call. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "null";
}
