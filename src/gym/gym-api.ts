import { z } from "zod";
import { MessageSchema } from "../core/message.js";
import { RewardInfoSchema, TerminationReasonSchema } from "../core/simulation.js";
import { GymActionSchema } from "./agent-gym.js";
import { GymSessionRequestSchema } from "./gym-sessions.js";

/** What a step answers (`GymObservation`), as the HTTP gym sends it. */
export const GymObservationSchema = z.object({
  messages: z.array(MessageSchema),
  done: z.boolean(),
  reward: z.number().optional(),
  rewardInfo: RewardInfoSchema.optional(),
  terminationReason: TerminationReasonSchema.optional(),
  error: z.string().optional(),
});

/** The first observation of an episode (`GymStart`): also the policy and the tools the agent is given. */
export const GymStartSchema = GymObservationSchema.extend({
  policy: z.string(),
  tools: z.array(
    z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) }),
  ),
});

/** `POST /api/gym/sessions` answers the new session's id (what lets a client drive it) and its first observation. */
export const GymSessionCreatedSchema = z.object({ session: z.uuid(), observation: GymStartSchema });

/**
 * The JSON Schema of the HTTP gym's bodies, one `$defs` entry each — the document
 * `examples/gym/gym-api.schema.json` holds (a test keeps the two equal).
 */
export function gymApiJsonSchema(): Record<string, unknown> {
  const defs: Record<string, z.ZodType> = {
    CreateSessionRequest: GymSessionRequestSchema.describe(
      "POST /api/gym/sessions and POST /api/gym/sessions/{id}/reset",
    ),
    SessionCreated: GymSessionCreatedSchema.describe("201 answer of POST /api/gym/sessions"),
    StepRequest: GymActionSchema.describe("POST /api/gym/sessions/{id}/step: the agent's move"),
    StepAnswer: z
      .object({ observation: GymObservationSchema })
      .describe("200 answer of POST /api/gym/sessions/{id}/step"),
    ResetAnswer: z
      .object({ observation: GymStartSchema })
      .describe("200 answer of POST /api/gym/sessions/{id}/reset"),
    Error: z
      .object({ code: z.string(), message: z.string() })
      .describe("every 4xx/5xx answer: a code and a sentence"),
  };
  const $defs: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(defs)) {
    const { $schema: _schema, ...body } = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" });
    $defs[name] = body;
  }
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "passk agent gym over HTTP",
    description:
      "Bodies of `passk serve --gym`: create a session (its first episode starts), step it, reset it, and DELETE /api/gym/sessions/{id} to close it (204, no body).",
    $defs,
  };
}
