import type { z } from "zod";

/**
 * A model's JSON answer checked against the shape asked for: the data, or one sentence saying what
 * was wrong (not JSON, or which fields). A code fence around the JSON is tolerated, as models add one.
 * `who` names the model's role in the sentence ("judge", "reviewer").
 */
export function parseStructuredAnswer<Schema extends z.ZodType>(
  text: string,
  schema: Schema,
  who: string,
): { data: z.infer<Schema> } | { error: string } {
  const stripped = text
    .trim()
    .replace(/^```(?:json)?\s*/i, "")
    .replace(/\s*```$/, "");
  let raw: unknown;
  try {
    raw = JSON.parse(stripped);
  } catch {
    return { error: `the ${who} did not answer with JSON: ${text.slice(0, 200)}` };
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success)
    return {
      error: `the ${who}'s JSON has the wrong shape (${parsed.error.issues
        .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
        .join("; ")})`,
    };
  return { data: parsed.data };
}
