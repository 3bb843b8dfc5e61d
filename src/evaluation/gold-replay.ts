import type { AssistantMessage, Message, ToolMessage, UserMessage } from "../core/message.js";
import type { RewardType, Task } from "../core/task.js";
import { applyInitialState, type InitStep } from "../env/set-state.js";
import type { Toolkit } from "../env/tool.js";
import type { DbHashes, World, WorldOptions } from "../env/world.js";
import { diffDb, type DbChanges } from "../env/db-diff.js";
import { buildGoldWorld } from "./environment.js";
import { evaluateSimulationSync } from "./evaluate-simulation.js";

export interface GoldReplayStep {
  requestor: "user" | "assistant";
  name: string;
  arguments: Record<string, unknown>;
  output: string;
  error: boolean;
}

/** What replaying a task's gold actions gives: the fields of τ²'s `fixtures/gold_replay/<domain>.jsonl`. */
export interface GoldReplayRecord {
  domain: string;
  task_id: string;
  /** The configuration the world ran under, for domains with configurations (banking_knowledge). */
  retrieval_config?: string;
  pristine_db_hash: DbHashes;
  has_message_history?: true;
  init_steps?: InitStep[];
  initial_db_hash: DbHashes;
  steps: GoldReplayStep[];
  final_agent_message: string;
  /** `user_db` is null where the user's tools share the agent's database (`Domain.sharedDb`). */
  final: { agent_db: DbChanges; user_db?: DbChanges | null };
  env_assertions?: Array<{ assertion: unknown; result: boolean }>;
  db_hash: DbHashes;
  gold_env_db_hash: DbHashes;
  live_vs_gold_env_diff?: { agent_db: DbChanges; user_db?: DbChanges | null };
  gold_env_errors?: string[];
  evaluation: {
    reward_basis: RewardType[] | null;
    reward_excluding_nl_assertions: number;
    reward_breakdown: Partial<Record<RewardType, number | null>>;
    db_match: boolean | null;
    nl_assertions_needing_llm_judge: number;
    /**
     * τ²'s fixtures for domains with configurations (banking_knowledge) also record each gold action's
     * check and the reward with NL assertions judged met (`reward_reference`).
     */
    action_checks?: Array<{ action_id: string; name: string; action_match: boolean; action_reward: number }>;
    reward_reference?: number;
  };
  /** The conversation the replay amounts to (not part of τ²'s fixture). */
  messages?: Message[];
}

/**
 * Replay a task's gold actions in a fresh world, as a perfect agent would: initial state, then each
 * gold action as a tool call from its requestor (with sync), then one final agent message carrying
 * the `communicate_info` strings; then evaluate that conversation.
 */
export function replayGoldActions(
  domainName: string,
  task: Task,
  newWorld: (options?: WorldOptions) => World,
  options: { includeMessages?: boolean } = {},
): GoldReplayRecord {
  const world = newWorld({ task });
  const pristine = world.fork();
  const pristineHash = world.hash();
  const history = task.initial_state?.message_history ?? [];
  const initSteps = applyInitialState(world, task.initial_state);
  const initialHash = world.hash();

  const messages: Message[] = [...history];
  const steps: GoldReplayStep[] = [];
  const actions = task.evaluation_criteria?.actions ?? [];
  actions.forEach((action, index) => {
    const id = `gold_${index}`;
    const call = { id, name: action.name, arguments: action.arguments, requestor: action.requestor };
    const result = world.callTool(call);
    steps.push({
      requestor: action.requestor,
      name: action.name,
      arguments: action.arguments,
      output: result.content,
      error: result.error,
    });
    const caller: AssistantMessage | UserMessage = {
      role: action.requestor,
      content: null,
      tool_calls: [call],
    };
    const answer: ToolMessage = {
      id,
      role: "tool",
      content: result.content,
      requestor: action.requestor,
      error: result.error,
    };
    messages.push(caller, answer);
  });
  const communicate = task.evaluation_criteria?.communicate_info ?? [];
  const finalMessage = communicate.length > 0 ? communicate.join(" ") : "Done.";
  messages.push({ role: "assistant", content: finalMessage });

  const hasUserDb = world.domain.user !== undefined;
  const shared = world.domain.sharedDb === true;
  const diff = (toolkit: Toolkit<unknown> | undefined, before: unknown, after: unknown) =>
    toolkit?.diff ? toolkit.diff(before, after) : diffDb(before, after);
  const changes = (before: World, after: World) => ({
    agent_db: diff(world.domain.agent, before.agentDb, after.agentDb),
    ...(hasUserDb ? { user_db: shared ? null : diff(world.domain.user, before.userDb, after.userDb) } : {}),
  });

  const assertions = task.evaluation_criteria?.env_assertions;
  const envAssertions = assertions?.map((assertion) => ({
    assertion,
    result: world.fork().checkAssertion(assertion),
  }));

  // The evaluator's gold world, built once: hashed here, compared by the evaluator.
  const { world: gold, errors: goldErrors } = buildGoldWorld(task, newWorld);
  const liveHash = world.hash();
  const goldHash = gold.hash();

  const rewardInfo = evaluateSimulationSync({ termination_reason: "agent_stop", messages }, task, {
    newWorld,
    gold,
  });
  const breakdown = (rewardInfo.reward_breakdown ?? {}) as Partial<Record<RewardType, number | null>>;
  const needingJudge = Number(
    (rewardInfo.info as { nl_assertions_needing_llm_judge?: number } | null)
      ?.nl_assertions_needing_llm_judge ?? 0,
  );
  const configKey = world.domain.configs?.recordKey;
  const configured = world.config !== undefined && configKey !== undefined;
  const extended = configured
    ? {
        action_checks: (rewardInfo.action_checks ?? []).map((check) => ({
          action_id: check.action.action_id,
          name: check.action.name,
          action_match: check.action_match,
          action_reward: check.action_reward,
        })),
        // The reward with NL assertions judged met: the product of the other components.
        reward_reference: rewardInfo.reward,
      }
    : {};

  return {
    domain: domainName,
    task_id: task.id,
    ...(configured ? { [configKey]: world.config } : {}),
    pristine_db_hash: pristineHash,
    ...(history.length > 0 ? { has_message_history: true as const } : {}),
    ...(initSteps.length > 0 ? { init_steps: initSteps } : {}),
    initial_db_hash: initialHash,
    steps,
    final_agent_message: finalMessage,
    final: changes(pristine, world),
    ...(envAssertions ? { env_assertions: envAssertions } : {}),
    db_hash: liveHash,
    gold_env_db_hash: goldHash,
    ...(liveHash.agent !== goldHash.agent || liveHash.user !== goldHash.user
      ? { live_vs_gold_env_diff: changes(gold, world) }
      : {}),
    ...(goldErrors.length > 0 ? { gold_env_errors: goldErrors } : {}),
    evaluation: {
      reward_basis: rewardInfo.reward_basis ?? null,
      reward_excluding_nl_assertions: rewardInfo.reward,
      reward_breakdown: breakdown,
      db_match: rewardInfo.db_check?.db_match ?? null,
      nl_assertions_needing_llm_judge: needingJudge,
      ...extended,
    },
    ...(options.includeMessages ? { messages } : {}),
  };
}
