import { z } from "zod";

/**
 * Who a failed simulation's failure belongs to: the agent under test, the simulated customer, the task
 * itself (a defect: its gold actions do not reach the goal), or the infrastructure (a provider or the
 * harness); `undetermined` when neither a check nor a reviewer could say.
 */
export const CulpritSchema = z.enum(["agent", "user_simulator", "task", "infrastructure", "undetermined"]);
export type Culprit = z.infer<typeof CulpritSchema>;

/** One piece of what a verdict rests on: a message (its turn, who, the words quoted) or a run record. */
export const EvidenceSchema = z.object({
  /** Index (turn_idx) of the message, null for what is not a message (the run's error, a gold replay). */
  turn: z.number().int().min(0).nullable(),
  who: z.enum(["customer", "agent", "tool", "run", "task"]),
  /** The words quoted, or the tool call shown, or the fact stated (`no toggle_data call exists`). */
  quote: z.string().min(1).max(1000),
});
export type Evidence = z.infer<typeof EvidenceSchema>;

/** The review of one failed simulation. */
export const ReviewSchema = z.object({
  culprit: CulpritSchema,
  /** Index (turn_idx) of the message where it went wrong, when one can be named. */
  turn: z.number().int().min(0).nullable(),
  /** One sentence. */
  reason: z.string().min(1).max(1000),
  /** A deterministic check (named) or the LLM reviewer. */
  source: z.enum(["check", "llm"]),
  /** The deterministic check that decided, e.g. `customer-claimed-undone-action`. */
  check: z.string().nullable(),
  /** What a check's verdict rests on (every check cites some); absent for the reviewer model's. */
  evidence: z.array(EvidenceSchema).optional(),
});
export type Review = z.infer<typeof ReviewSchema>;

/** Failures that are not the agent's: left out of the "agent-caused" pass^k. */
export const NOT_THE_AGENTS: ReadonlySet<Culprit> = new Set(["user_simulator", "task", "infrastructure"]);

/** How many failures each culprit caused, in one line. */
export function describeBlame(reviews: readonly { review: Review }[]): string {
  const counts = new Map<string, number>();
  for (const r of reviews) counts.set(r.review.culprit, (counts.get(r.review.culprit) ?? 0) + 1);
  const order = ["agent", "user_simulator", "task", "infrastructure", "undetermined"];
  const parts = order.filter((c) => counts.has(c)).map((c) => `${c} ${counts.get(c)}`);
  return `${reviews.length} failed simulation(s): ${parts.join(", ") || "none"}`;
}
