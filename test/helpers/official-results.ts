import { hasToolCalls, type Message } from "../../src/core/message.js";
import type { TerminationReason } from "../../src/core/simulation.js";
import { evaluateSimulationSync } from "../../src/evaluation/evaluate-simulation.js";
import { replayGoldActions } from "../../src/evaluation/gold-replay.js";
import type { DomainData } from "../../src/formats/tau2/domain-data.js";
import type { ResultsInput, SimulationRunInput } from "../../src/formats/tau2/results.js";

/**
 * How one trial of the synthetic run goes: the gold conversation, or the gold conversation broken
 * on purpose (`wrong_final_message` drops the information the agent had to give, `missing_action`
 * drops the last tool call), or ended early.
 */
export type TrialVariant =
  "gold" | "wrong_final_message" | "missing_action" | "max_steps" | "infrastructure_error";

export interface TrialPlan {
  task: string;
  trial: number;
  variant: TrialVariant;
}

const BASE_TIME = Date.parse("2025-06-01T10:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString().replace("Z", "000");

/**
 * A results file in the official τ²-bench shape, as `tau2 run --save-to` writes one: info, the
 * tasks, and one simulation per planned trial built from the task's gold replay (greeting, user
 * request, the gold tool calls and their outputs, a final agent message, the user's stop), graded by
 * passk's evaluator with the reference's lenient argument handling.
 */
export function buildOfficialResults(data: DomainData, plans: readonly TrialPlan[]): ResultsInput {
  const taskIds = [...new Set(plans.map((p) => p.task))];
  const tasks = taskIds.map((id) => data.task(id));
  const simulations = plans.map((plan, index) => buildSimulation(data, plan, index));
  return {
    timestamp: "2025-06-01T10:00:00.000000",
    info: {
      git_commit: "a2c0247",
      num_trials: Math.max(...plans.map((p) => p.trial)) + 1,
      max_steps: 200,
      max_errors: 10,
      user_info: {
        implementation: "user_simulator",
        llm: "gpt-4.1",
        llm_args: { temperature: 0.0 },
        global_simulation_guidelines: "# User Simulation Guidelines\nYou are playing the role of a customer.",
      },
      agent_info: { implementation: "llm_agent", llm: "gpt-4.1", llm_args: { temperature: 0.0 } },
      environment_info: { domain_name: data.domain.name, policy: data.policy, tool_defs: null },
      seed: 300,
    },
    tasks,
    simulations,
  };
}

const replays = new WeakMap<DomainData, Map<string, Message[]>>();

/** The gold conversation of a task (replayed once per task). */
function goldMessages(data: DomainData, taskId: string): Message[] {
  let byTask = replays.get(data);
  if (!byTask) replays.set(data, (byTask = new Map()));
  let messages = byTask.get(taskId);
  if (!messages) {
    const replay = replayGoldActions(data.domain.name, data.task(taskId), (o) => data.newWorld(o), {
      includeMessages: true,
    });
    messages = replay.messages!;
    byTask.set(taskId, messages);
  }
  return messages;
}

function buildSimulation(data: DomainData, plan: TrialPlan, index: number): SimulationRunInput {
  const task = data.task(plan.task);
  const gold = goldMessages(data, plan.task);
  const historyLength = task.initial_state?.message_history?.length ?? 0;
  const history = gold.slice(0, historyLength);
  let body = gold.slice(historyLength);
  if (plan.variant === "missing_action") {
    const lastCall = body.findLastIndex((m) => hasToolCalls(m) && m.tool_calls.length > 0);
    if (lastCall >= 0) body = [...body.slice(0, lastCall), ...body.slice(lastCall + 2)];
  }
  if (plan.variant === "wrong_final_message") {
    body = [...body.slice(0, -1), { role: "assistant", content: "Sorry, I could not find anything." }];
  }
  const reason: TerminationReason =
    plan.variant === "max_steps" || plan.variant === "infrastructure_error" ? plan.variant : "user_stop";
  const start = BASE_TIME + index * 60_000;
  const conversation: Message[] = [
    ...history,
    { role: "assistant", content: "Hi! How can I help you today?" },
    {
      role: "user",
      content:
        typeof task.user_scenario.instructions === "string"
          ? "Hello, I need help."
          : task.user_scenario.instructions.reason_for_call,
    },
    ...body,
    ...(reason === "user_stop" ? [{ role: "user" as const, content: "Thanks, that's all. ###STOP###" }] : []),
  ];
  const messages = conversation.map((message, turn) => {
    const stamped = { ...message, turn_idx: turn, timestamp: iso(start + turn * 1000) };
    if (message.role === "tool") return stamped;
    return {
      ...stamped,
      cost: message.role === "assistant" ? 0.002 : 0.0005,
      usage: { completion_tokens: 20, prompt_tokens: 400 },
      raw_data: null,
    };
  });
  const rewardInfo = evaluateSimulationSync({ termination_reason: reason, messages }, task, {
    newWorld: (o) => data.newWorld(o),
    validation: "lenient",
  });
  const agentCost = messages.filter((m) => m.role === "assistant").length * 0.002;
  const userCost = messages.filter((m) => m.role === "user").length * 0.0005;
  return {
    id: `00000000-0000-4000-8000-${String(index).padStart(12, "0")}`,
    task_id: plan.task,
    timestamp: iso(start + messages.length * 1000),
    start_time: iso(start),
    end_time: iso(start + messages.length * 1000),
    duration: messages.length,
    termination_reason: reason,
    agent_cost: agentCost,
    user_cost: userCost,
    reward_info: rewardInfo,
    messages,
    trial: plan.trial,
    seed: 1000 + index,
  };
}

/**
 * The mock-domain run used by the results tests: 6 tasks × 3 trials, some trials broken, one
 * infrastructure error. Its rewards and pass^k are worked out by hand in {@link MOCK_RUN_EXPECTED}.
 */
export const MOCK_RUN_PLAN: readonly TrialPlan[] = [
  ...[0, 1, 2].map((trial) => ({ task: "create_task_1", trial, variant: "gold" as const })),
  { task: "update_task_with_initialization_data", trial: 0, variant: "gold" },
  { task: "update_task_with_initialization_data", trial: 1, variant: "wrong_final_message" },
  { task: "update_task_with_initialization_data", trial: 2, variant: "gold" },
  { task: "update_task_1", trial: 0, variant: "gold" },
  { task: "update_task_1", trial: 1, variant: "missing_action" },
  { task: "update_task_1", trial: 2, variant: "max_steps" },
  { task: "impossible_task_1", trial: 0, variant: "gold" },
  { task: "impossible_task_1", trial: 1, variant: "missing_action" },
  { task: "impossible_task_1", trial: 2, variant: "gold" },
  // Scores 0 in the reference too: its env assertion needs a user action that is not a gold action.
  ...[0, 1, 2].map((trial) => ({ task: "update_task_with_user_tools", trial, variant: "gold" as const })),
  { task: "create_task_1_with_env_assertions", trial: 0, variant: "gold" },
  { task: "create_task_1_with_env_assertions", trial: 1, variant: "infrastructure_error" },
  { task: "create_task_1_with_env_assertions", trial: 2, variant: "gold" },
];

/**
 * Worked out by hand. Successes over evaluable trials: create_task_1 3/3, initialization_data 2/3,
 * update_task_1 1/3, impossible_task_1 2/3, user_tools 0/3, env_assertions 2/2 (one infrastructure
 * error). K = min(3 trials, 2 evaluable for env_assertions) = 2.
 * pass^1 = (1 + 2/3 + 1/3 + 2/3 + 0 + 1) / 6 = 11/18;
 * pass^2 = (C(3,2)/C(3,2) + C(2,2)/C(3,2) + 0 + 1/3 + 0 + C(2,2)/C(2,2)) / 6 = (1 + 1/3 + 1/3 + 1) / 6 = 4/9;
 * pass@2 = (1 + 1 + (1 − C(2,2)/C(3,2)) + 1 + 0 + 1) / 6 = (4 + 2/3) / 6 = 7/9;
 * average reward = 10 successes / 17 evaluable simulations.
 */
export const MOCK_RUN_EXPECTED = {
  rewards: [1, 1, 1, 1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1],
  passHat: { 1: 11 / 18, 2: 4 / 9 },
  passAt2: 7 / 9,
  avgReward: 10 / 17,
  infraErrors: 1,
};

/** An airline run: 5 tasks × 3 trials, broken as planned; successes 2, 1, 3, 2, 2 of 3. */
export const AIRLINE_RUN_PLAN: readonly TrialPlan[] = (
  [
    ["3", ["gold", "wrong_final_message", "gold"]],
    ["7", ["gold", "missing_action", "wrong_final_message"]],
    ["8", ["gold", "gold", "gold"]],
    ["11", ["missing_action", "gold", "gold"]],
    ["14", ["gold", "gold", "max_steps"]],
  ] as const
).flatMap(([task, variants]) => variants.map((variant, trial) => ({ task, trial, variant })));

/**
 * pass^1 = (2/3 + 1/3 + 1 + 2/3 + 2/3) / 5 = 2/3; pass^2 = (1/3 + 0 + 1 + 1/3 + 1/3) / 5 = 2/5;
 * pass^3 = (0 + 0 + 1 + 0 + 0) / 5 = 1/5.
 */
export const AIRLINE_RUN_EXPECTED = {
  rewards: [1, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0],
  passHat: { 1: 2 / 3, 2: 2 / 5, 3: 1 / 5 },
};
