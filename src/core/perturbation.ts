import { z } from "zod";
import type { ToolCall } from "./message.js";

/**
 * What a perturbation did to one message, recorded on that message in the trajectory: the
 * perturbation (`tool-faults@1`), the effect (`transient_error`, `timeout`, `partial_result`,
 * `customer_instructions`, `injected_instruction`…) and, for some effects, a detail (the persona, the
 * canary text an injection asks the agent to repeat).
 */
export const PerturbationMarkSchema = z.object({
  perturbation: z.string(),
  effect: z.string(),
  detail: z.string().optional(),
});
export type PerturbationMark = z.infer<typeof PerturbationMarkSchema>;

/** Effects of a fault that answered a tool call without running it: replay must skip such calls. */
export const CALL_NOT_RUN_EFFECTS: ReadonlySet<string> = new Set(["transient_error", "timeout"]);

/** The perturbation marks a message carries (none for a clean message or an unreadable field). */
export function perturbationMarks(message: unknown): PerturbationMark[] {
  const field = (message as { perturbations?: unknown } | null)?.perturbations;
  const parsed = z.array(PerturbationMarkSchema).safeParse(field);
  return parsed.success ? parsed.data : [];
}

/** Whether a recorded tool message answered its call with an injected fault, the call never reaching the tool. */
export function toolCallNotRun(toolMessage: unknown): boolean {
  return perturbationMarks(toolMessage).some((mark) => CALL_NOT_RUN_EFFECTS.has(mark.effect));
}

/** A tool call's answer at the world boundary, perhaps changed by a perturbation (then marked). */
export interface BoundaryAnswer {
  content: string;
  error: boolean;
  marks?: PerturbationMark[];
}

/**
 * Where perturbations meet the world: consulted by the orchestrator around every tool call of one
 * conversation. `before` may answer a call instead of the world (a fault: the call does not run);
 * `after` may change what the world answered (a partial result, an injected instruction).
 */
export interface ToolBoundary {
  before(call: ToolCall, info: { mutatesState: boolean }): BoundaryAnswer | undefined;
  after(call: ToolCall, info: { mutatesState: boolean }, answer: BoundaryAnswer): BoundaryAnswer;
}
