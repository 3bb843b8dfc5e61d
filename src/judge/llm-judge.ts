import { z } from "zod";
import { PasskError } from "../core/errors.js";
import type { Judge, NlAssertionVerdict } from "../core/judge.js";
import type { LanguageModel } from "../core/llm.js";
import type { Message } from "../core/message.js";
import { parseStructuredAnswer } from "../llm/structured-answer.js";

/** What the judge model must answer: one verdict per assertion, in order. */
export const JudgeOutputSchema = z.object({
  verdicts: z.array(z.object({ assertion: z.string(), met: z.boolean(), reason: z.string() })),
});

/** The judge's answer could not be used (not JSON, wrong shape, or verdicts missing). */
export class JudgeOutputError extends PasskError {
  constructor(
    message: string,
    readonly output: string,
  ) {
    super("judge_output_invalid", message);
    this.name = "JudgeOutputError";
  }
}

const SYSTEM_PROMPT = [
  "You review a conversation between a customer-service agent and a customer.",
  "You are given expected outcomes. For each one, decide from the conversation alone whether it happened.",
  "Answer with JSON only, no prose around it, in this shape:",
  '{"verdicts": [{"assertion": "<the expected outcome, copied>", "met": true, "reason": "<one sentence>"}]}',
  "Give exactly one verdict per expected outcome, in the order given.",
].join("\n");

export const JUDGE_JSON_SCHEMA = z.toJSONSchema(JudgeOutputSchema) as Record<string, unknown>;

/** A transcript the judge can read: who said what, and which tools were called. */
export function transcript(messages: readonly Message[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    if (m.role === "system") continue;
    if (m.role === "tool") {
      lines.push(`tool result: ${m.content ?? ""}`);
      continue;
    }
    const who = m.role === "assistant" ? "agent" : "customer";
    if (m.content) lines.push(`${who}: ${m.content}`);
    for (const call of m.tool_calls ?? [])
      lines.push(`${who} called ${call.name}(${JSON.stringify(call.arguments)})`);
  }
  return lines.join("\n");
}

/** Parse and check the judge model's text against the assertions it was given. */
export function parseJudgeOutput(text: string, assertions: readonly string[]): NlAssertionVerdict[] {
  const parsed = parseStructuredAnswer(text, JudgeOutputSchema, "judge");
  if ("error" in parsed) throw new JudgeOutputError(parsed.error, text);
  if (parsed.data.verdicts.length !== assertions.length) {
    throw new JudgeOutputError(
      `the judge gave ${parsed.data.verdicts.length} verdicts for ${assertions.length} assertions`,
      text,
    );
  }
  return assertions.map((assertion, i) => {
    const verdict = parsed.data.verdicts[i]!;
    return { nl_assertion: assertion, met: verdict.met, justification: verdict.reason };
  });
}

/** The NL-assertion judge over any model (`--judge-llm`). */
export function llmJudge(model: LanguageModel): Judge {
  return {
    async judge({ assertions, messages, onCost }) {
      const prompt = `Conversation:\n${transcript(messages)}\n\nExpected outcomes:\n${assertions.map((a, i) => `${i + 1}. ${a}`).join("\n")}`;
      const response = await model.generate({
        system: SYSTEM_PROMPT,
        messages: [{ role: "user", content: prompt }],
        jsonSchema: JUDGE_JSON_SCHEMA,
        params: { temperature: 0 },
      });
      onCost?.(response.cost);
      return parseJudgeOutput(response.text ?? "", assertions);
    },
  };
}
