import { z } from "zod";

/** Longest note a person may write on a simulation. */
export const MAX_NOTE_CHARS = 4_000;
/** Longest task-issue category ("gold action wrong", "ambiguous instructions"…). */
export const MAX_NOTE_CATEGORY_CHARS = 80;

/**
 * A note as a person writes it on a simulation: free text, and optionally a flag saying the task
 * itself is at fault (a task issue, as maintainers file them against a benchmark), with a short category.
 */
export const NewSimulationNoteSchema = z.strictObject({
  text: z
    .string({ error: "text must be a string" })
    .trim()
    .min(1, "text must not be empty")
    .max(MAX_NOTE_CHARS, `text is longer than ${MAX_NOTE_CHARS} characters`),
  taskIssue: z.boolean({ error: "taskIssue must be true or false" }).default(false),
  category: z
    .string({ error: "category must be a string" })
    .trim()
    .max(MAX_NOTE_CATEGORY_CHARS, `category is longer than ${MAX_NOTE_CATEGORY_CHARS} characters`)
    .nullable()
    .optional()
    .transform((category) => (category ? category : null)),
});
export type NewSimulationNote = z.output<typeof NewSimulationNoteSchema>;

/** A stored note: which simulation of which run it is on, what it says, when it was written. */
export const SimulationNoteSchema = z.object({
  id: z.number().int(),
  runId: z.string(),
  domain: z.string(),
  taskId: z.string(),
  trial: z.number().int(),
  /** The simulation's own id (τ² `SimulationRun.id`), so an exported note finds its simulation. */
  simulationId: z.string().nullable(),
  text: z.string(),
  taskIssue: z.boolean(),
  category: z.string().nullable(),
  createdAt: z.string(),
});
export type SimulationNote = z.infer<typeof SimulationNoteSchema>;
