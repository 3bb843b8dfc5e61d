import { z } from "zod";
import { PasskError } from "../core/errors.js";
import type { LanguageModel } from "../core/llm.js";
import type { Message } from "../core/message.js";
import type { Task } from "../core/task.js";
import type { FailedCheck } from "../metrics/failed-checks.js";
import { scenarioText } from "../users/user-prompt.js";
import { CulpritSchema, type Review } from "./blame.js";
import { parseStructuredAnswer } from "../llm/structured-answer.js";

/** What the reviewer model must answer. */
export const ReviewerOutputSchema = z.object({
  culprit: CulpritSchema.exclude(["infrastructure"]),
  turn: z.number().int().min(0).nullable(),
  reason: z.string().min(1).max(1000),
});

const REVIEWER_JSON_SCHEMA = z.toJSONSchema(ReviewerOutputSchema) as Record<string, unknown>;

/** The reviewer's answer could not be used (not JSON, or not the shape asked for). */
export class ReviewOutputError extends PasskError {
  constructor(
    message: string,
    readonly output: string,
  ) {
    super("review_output_invalid", message);
    this.name = "ReviewOutputError";
  }
}

const SYSTEM_PROMPT = [
  "You find out why a simulated customer-service conversation failed its grading.",
  "An agent under test served a customer played by another model, who followed hidden instructions.",
  "Decide who caused the failure:",
  '- "agent": the agent broke its policy, skipped or botched a needed action, or gave wrong information;',
  '- "user_simulator": the simulated customer did not follow its instructions (left early, invented facts, claimed actions it never took, changed its goal);',
  '- "task": the task itself cannot be solved as written;',
  '- "undetermined": the transcript does not say.',
  "Acting without a confirmation the policy asks for is the cause only if that action is what failed the grading.",
  "A tool call answered with an error did not happen.",
  "Name the turn (the number in brackets) where it went wrong, and give one sentence of reason.",
  'Answer with JSON only: {"culprit": "...", "turn": 12, "reason": "..."} (turn may be null).',
].join("\n");

/** The transcript with each message's turn number, as the reviewer reads it. */
function numberedTranscript(messages: readonly Message[]): string {
  return messages
    .map((m, i) => {
      const turn = m.turn_idx ?? i;
      if (m.role === "tool") return `[${turn}] tool result: ${m.content ?? ""}`;
      if (m.role === "system") return `[${turn}] system: ${m.content ?? ""}`;
      const who = m.role === "assistant" ? "agent" : "customer";
      const calls = (m.tool_calls ?? []).map(
        (c) => ` ${who} called ${c.name}(${JSON.stringify(c.arguments)})`,
      );
      return `[${turn}] ${who}: ${m.content ?? ""}${calls.join("")}`;
    })
    .join("\n");
}

/** Parse and check the reviewer's text. */
export function parseReviewerOutput(text: string): Review {
  const answer = parseStructuredAnswer(text, ReviewerOutputSchema, "reviewer");
  if ("error" in answer) throw new ReviewOutputError(answer.error, text);
  return { ...answer.data, source: "llm", check: null };
}

/** Asks a model (`--judge-llm`) who caused a failure the deterministic checks could not place. */
export async function llmReview(
  model: LanguageModel,
  input: { task: Task; policy: string; messages: readonly Message[]; failed: readonly FailedCheck[] },
): Promise<{ review: Review; cost: number | null }> {
  const prompt = [
    `The agent's policy:\n${input.policy}`,
    `The customer's hidden instructions:\n${scenarioText(input.task.user_scenario)}`,
    `What failed in the grading:\n${input.failed.map((f) => `- ${f.kind}: ${f.check}`).join("\n") || "- (not recorded)"}`,
    `The conversation:\n${numberedTranscript(input.messages)}`,
  ].join("\n\n");
  const response = await model.generate({
    system: SYSTEM_PROMPT,
    messages: [{ role: "user", content: prompt }],
    jsonSchema: REVIEWER_JSON_SCHEMA,
    params: { temperature: 0 },
  });
  return { review: parseReviewerOutput(response.text ?? ""), cost: response.cost };
}
