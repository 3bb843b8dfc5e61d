import { z } from "zod";
import { MessageSchema } from "./message.js";
import { ActionSchema, EnvAssertionSchema, RewardTypeSchema, TaskSchema } from "./task.js";

/**
 * Why a conversation ended (τ² `TerminationReason`). Only `user_stop` and `agent_stop` can earn a
 * reward; `infrastructure_error` (provider outage after retries) is excluded from scores altogether.
 * The last three come from newer τ² versions, so that their results files load too.
 */
export const TerminationReasonSchema = z.enum([
  "user_stop",
  "agent_stop",
  "max_steps",
  "too_many_errors",
  "agent_error",
  "user_error",
  "infrastructure_error",
  "timeout",
  "context_window_exceeded",
  "unexpected_error",
]);
export type TerminationReason = z.infer<typeof TerminationReasonSchema>;

/**
 * Termination reasons of simulations that never produced an evaluable conversation: left out of
 * every score and counted separately (τ²: infrastructure errors; newer τ² versions add
 * `context_window_exceeded`).
 */
export const NON_EVALUABLE_TERMINATIONS: ReadonlySet<string> = new Set([
  "infrastructure_error",
  "context_window_exceeded",
]);

export const DbCheckSchema = z.looseObject({ db_match: z.boolean(), db_reward: z.number() });

export const EnvAssertionCheckSchema = z.looseObject({
  env_assertion: EnvAssertionSchema,
  met: z.boolean(),
  reward: z.number(),
});

export const ActionCheckSchema = z.looseObject({
  action: ActionSchema,
  action_match: z.boolean(),
  action_reward: z.number(),
  /** The gold action's tool kind (τ² `ToolType`: read, write, think, generic), null when unknown. */
  tool_type: z.string().nullable().optional(),
});

export const NlAssertionCheckSchema = z.looseObject({
  nl_assertion: z.string(),
  met: z.boolean(),
  justification: z.string().nullable().optional(),
});

export const CommunicateCheckSchema = z.looseObject({
  info: z.string(),
  met: z.boolean(),
  justification: z.string().nullable().optional(),
});

/** τ² `RewardInfo`: the reward and every check behind it. passk adds diagnostics under `info`. */
export const RewardInfoSchema = z.looseObject({
  reward: z.number(),
  db_check: DbCheckSchema.nullable().optional(),
  env_assertions: z.array(EnvAssertionCheckSchema).nullable().optional(),
  action_checks: z.array(ActionCheckSchema).nullable().optional(),
  nl_assertions: z.array(NlAssertionCheckSchema).nullable().optional(),
  communicate_checks: z.array(CommunicateCheckSchema).nullable().optional(),
  reward_basis: z.array(RewardTypeSchema).nullable().optional(),
  reward_breakdown: z.partialRecord(RewardTypeSchema, z.number().nullable()).nullable().optional(),
  info: z.record(z.string(), z.unknown()).nullable().optional(),
});
export type RewardInfo = z.infer<typeof RewardInfoSchema>;
export type DbCheck = z.infer<typeof DbCheckSchema>;
export type EnvAssertionCheck = z.infer<typeof EnvAssertionCheckSchema>;
export type ActionCheck = z.infer<typeof ActionCheckSchema>;
export type NlAssertionCheck = z.infer<typeof NlAssertionCheckSchema>;
export type CommunicateCheck = z.infer<typeof CommunicateCheckSchema>;

/** One conversation (τ² `SimulationRun`). */
export const SimulationRunSchema = z.looseObject({
  id: z.string(),
  task_id: z.string(),
  timestamp: z.string().nullable().optional(),
  start_time: z.string().nullable().optional(),
  end_time: z.string().nullable().optional(),
  duration: z.number().nullable().optional(),
  termination_reason: TerminationReasonSchema,
  agent_cost: z.number().nullable().optional(),
  user_cost: z.number().nullable().optional(),
  reward_info: RewardInfoSchema.nullable().optional(),
  messages: z.array(MessageSchema),
  trial: z.number().int().nullable().optional(),
  seed: z.number().int().nullable().optional(),
});
export type SimulationRun = z.infer<typeof SimulationRunSchema>;

/** A results file (τ² `Results`): run info, the tasks, and every simulation. */
export const ResultsSchema = z.looseObject({
  timestamp: z.string().nullable().optional(),
  info: z.looseObject({
    git_commit: z.string().nullable().optional(),
    num_trials: z.number().int().nullable().optional(),
    max_steps: z.number().int().nullable().optional(),
    max_errors: z.number().int().nullable().optional(),
    user_info: z.record(z.string(), z.unknown()).nullable().optional(),
    agent_info: z.record(z.string(), z.unknown()).nullable().optional(),
    environment_info: z.record(z.string(), z.unknown()).nullable().optional(),
    seed: z.number().int().nullable().optional(),
  }),
  tasks: z.array(TaskSchema),
  simulations: z.array(SimulationRunSchema),
});
export type Results = z.infer<typeof ResultsSchema>;
