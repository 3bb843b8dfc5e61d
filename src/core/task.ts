import { z } from "zod";
import { MessageSchema, ToolRequestorSchema } from "./message.js";

/** Structured instructions for the simulated customer (τ² `StructuredUserInstructions`). */
export const StructuredUserInstructionsSchema = z.looseObject({
  domain: z.string(),
  reason_for_call: z.string(),
  known_info: z.string().nullable().default(null),
  unknown_info: z.string().nullable().default(null),
  task_instructions: z.string(),
});
export type StructuredUserInstructions = z.infer<typeof StructuredUserInstructionsSchema>;

export const UserScenarioSchema = z.looseObject({
  persona: z.string().nullable().default(null),
  instructions: z.union([StructuredUserInstructionsSchema, z.string()]),
});
export type UserScenario = z.infer<typeof UserScenarioSchema>;

export const DescriptionSchema = z.looseObject({
  purpose: z.string().nullable().default(null),
  relevant_policies: z.string().nullable().default(null),
  notes: z.string().nullable().default(null),
});

/** One gold tool call of a task (τ² `Action`). */
export const ActionSchema = z.looseObject({
  action_id: z.string(),
  requestor: ToolRequestorSchema.default("assistant"),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  info: z.string().nullable().default(null),
  compare_args: z.array(z.string()).nullable().default(null),
});
export type Action = z.infer<typeof ActionSchema>;

/** A call of a non-tool environment function (initialization helpers, assertions). */
export const EnvFunctionCallSchema = z.looseObject({
  env_type: ToolRequestorSchema,
  func_name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
});
export type EnvFunctionCall = z.infer<typeof EnvFunctionCallSchema>;

export const EnvAssertionSchema = z.looseObject({
  env_type: ToolRequestorSchema,
  func_name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  assert_value: z.boolean().default(true),
  message: z.string().nullable().default(null),
});
export type EnvAssertion = z.infer<typeof EnvAssertionSchema>;

export const RewardTypeSchema = z.enum(["DB", "ENV_ASSERTION", "NL_ASSERTION", "ACTION", "COMMUNICATE"]);
export type RewardType = z.infer<typeof RewardTypeSchema>;

export const EvaluationCriteriaSchema = z.looseObject({
  actions: z.array(ActionSchema).nullable().default(null),
  env_assertions: z.array(EnvAssertionSchema).nullable().default(null),
  communicate_info: z.array(z.string()).nullable().default(null),
  nl_assertions: z.array(z.string()).nullable().default(null),
  reward_basis: z.array(RewardTypeSchema).default(["DB", "COMMUNICATE"]),
});
export type EvaluationCriteria = z.infer<typeof EvaluationCriteriaSchema>;

export const InitializationDataSchema = z.looseObject({
  agent_data: z.record(z.string(), z.unknown()).nullable().default(null),
  user_data: z.record(z.string(), z.unknown()).nullable().default(null),
});
export type InitializationData = z.infer<typeof InitializationDataSchema>;

export const InitialStateSchema = z.looseObject({
  initialization_data: InitializationDataSchema.nullable().default(null),
  initialization_actions: z.array(EnvFunctionCallSchema).nullable().default(null),
  message_history: z.array(MessageSchema).nullable().default(null),
});
export type InitialState = z.infer<typeof InitialStateSchema>;

/** A τ²-bench task, in the official JSON shape. */
export const TaskSchema = z.looseObject({
  id: z.string(),
  description: DescriptionSchema.nullable().default(null),
  user_scenario: UserScenarioSchema,
  ticket: z.string().nullable().default(null),
  initial_state: InitialStateSchema.nullable().default(null),
  evaluation_criteria: EvaluationCriteriaSchema.nullable().default(null),
  /**
   * The user tools the simulated customer is given (banking_knowledge); an empty list gives none.
   * Absent or null: the domain's user tools. Tools not listed stay callable by name, as in τ².
   */
  user_tools: z.array(z.string()).nullable().optional(),
  /** Knowledge-base documents the task needs (banking_knowledge's `golden_retrieval` config inlines them). */
  required_documents: z.array(z.string()).nullable().optional(),
});
export type Task = z.infer<typeof TaskSchema>;

export const TaskListSchema = z.array(TaskSchema);

/** `split_tasks.json`: split name → task ids. */
export const TaskSplitsSchema = z.record(z.string(), z.array(z.string()));
export type TaskSplits = z.infer<typeof TaskSplitsSchema>;
