import { z } from "zod";
import type { UserSession, UserSimulator } from "../core/agent.js";
import { InfrastructureError } from "../core/llm.js";
import type { Message } from "../core/message.js";
import {
  PerturbationMarkSchema,
  type BoundaryAnswer,
  type PerturbationMark,
  type ToolBoundary,
} from "../core/perturbation.js";
import type { RewardInfo } from "../core/simulation.js";
import { UserScenarioSchema, type Task } from "../core/task.js";
import {
  conversationRandom,
  perturbationSources,
  type MarkedText,
  type PerturbationDefinition,
  type PerturbationEffects,
} from "./perturbation.js";
import type { ResolvedPerturbation } from "./registry.js";

/**
 * A perturbation's hook threw or answered something of the wrong shape: the fault of the perturbation
 * (a team's module, named), never the agent's or the customer's — an infrastructure error of the
 * conversation, left out of scores, and nothing of the bad answer is stored.
 */
export class PerturbationHookError extends InfrastructureError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 1, options);
    this.name = "PerturbationHookError";
  }
}

// What each hook may answer (undefined or null: no change). Checked at the boundary, as any outside input.
const BoundaryAnswerSchema = z.object({
  content: z.string(),
  error: z.boolean(),
  marks: z.array(PerturbationMarkSchema).optional(),
});
const HOOK_RESULTS = {
  faultToolCall: BoundaryAnswerSchema.nullish(),
  changeToolResult: BoundaryAnswerSchema.nullish(),
  customerScenario: z.object({ scenario: UserScenarioSchema, mark: PerturbationMarkSchema }).nullish(),
  changeCustomerMessage: z.object({ content: z.string(), mark: PerturbationMarkSchema }).nullish(),
  violations: z.array(z.string()).nullish(),
} satisfies Record<keyof PerturbationEffects, z.ZodType>;
type Hook = keyof typeof HOOK_RESULTS;

/** Who wrote a perturbation, for the sentence: its module file, or passk itself. */
function authorOf(definition: PerturbationDefinition, id: string): string {
  const file = perturbationSources.get(definition);
  return file !== undefined ? `the perturbation module ${file} (${id})` : `passk's perturbation ${id}`;
}

/**
 * One perturbation's effects with every hook's answer checked: a hook that throws or answers the wrong
 * shape ends the conversation with a sentence naming the module file, the hook and what was wrong.
 */
function checkedEffects(raw: PerturbationEffects, author: string): PerturbationEffects {
  const check = <K extends Hook>(hook: K, run: () => unknown): z.infer<(typeof HOOK_RESULTS)[K]> => {
    let value: unknown;
    try {
      value = run();
    } catch (error) {
      throw new PerturbationHookError(
        `${author}: its ${hook} hook threw (${error instanceof Error ? error.message : String(error)}); ` +
          "the conversation ends as an infrastructure error (the module's fault, not the agent's)",
        { cause: error },
      );
    }
    const parsed = HOOK_RESULTS[hook].safeParse(value);
    if (!parsed.success)
      throw new PerturbationHookError(
        `${author}: its ${hook} hook returned a wrong value (${parsed.error.issues
          .map((i) => `${i.path.length > 0 ? i.path.join(".") : "the value"}: ${i.message}`)
          .join(
            "; ",
          )}); the conversation ends as an infrastructure error (the module's fault, not the agent's)`,
      );
    return parsed.data as z.infer<(typeof HOOK_RESULTS)[K]>;
  };
  const { faultToolCall, changeToolResult, customerScenario, changeCustomerMessage, violations } = raw;
  return {
    ...(faultToolCall
      ? {
          faultToolCall: (call, info) =>
            check("faultToolCall", () => faultToolCall.call(raw, call, info)) ?? undefined,
        }
      : {}),
    ...(changeToolResult
      ? {
          changeToolResult: (call, info, answer) =>
            check("changeToolResult", () => changeToolResult.call(raw, call, info, answer)) ?? undefined,
        }
      : {}),
    ...(customerScenario
      ? {
          customerScenario: (scenario) =>
            check("customerScenario", () => customerScenario.call(raw, scenario)) ?? undefined,
        }
      : {}),
    ...(changeCustomerMessage
      ? {
          changeCustomerMessage: (content, index) =>
            check("changeCustomerMessage", () => changeCustomerMessage.call(raw, content, index)) ??
            undefined,
        }
      : {}),
    ...(violations
      ? { violations: (messages) => check("violations", () => violations.call(raw, messages)) ?? [] }
      : {}),
  };
}

/** The perturbations of one conversation, ready to apply at its edges. */
export interface PerturbedConversation {
  /** For the orchestrator: faults and changed results at the world boundary (none without tool effects). */
  toolBoundary?: ToolBoundary;
  /** The simulated customer with its prompt and messages perturbed (marks on its messages). */
  user(user: UserSimulator): UserSimulator;
  /** Policy violations of the finished conversation, for the grade. */
  violations(messages: readonly Message[]): string[];
}

/**
 * Build one conversation's perturbations: each gets its own seeded draws from (its id, the task, the
 * trial seed), so a re-run perturbs the same way and adding one perturbation does not move another's draws.
 */
export function perturbConversation(
  perturbations: readonly ResolvedPerturbation[],
  conversation: { task: Task; seed: number },
): PerturbedConversation {
  const effects: PerturbationEffects[] = perturbations.map((p) => {
    const author = authorOf(p.definition, p.id);
    const ends = "the conversation ends as an infrastructure error (the module's fault, not the agent's)";
    let raw: unknown;
    try {
      raw = p.definition.effects(p.params, {
        task: conversation.task,
        seed: conversation.seed,
        id: p.id,
        random: conversationRandom(p.id, conversation.task.id, conversation.seed),
      });
    } catch (error) {
      throw new PerturbationHookError(
        `${author}: its effects function threw (${error instanceof Error ? error.message : String(error)}); ${ends}`,
        { cause: error },
      );
    }
    if (typeof raw !== "object" || raw === null || Array.isArray(raw))
      throw new PerturbationHookError(
        `${author}: its effects function returned ${raw === null ? "null" : Array.isArray(raw) ? "a list" : typeof raw}, not an object of hooks; ${ends}`,
      );
    return checkedEffects(raw as PerturbationEffects, author);
  });
  const toolEffects = effects.filter((e) => e.faultToolCall || e.changeToolResult);
  const toolBoundary: ToolBoundary | undefined =
    toolEffects.length === 0
      ? undefined
      : {
          before(call, info) {
            for (const e of toolEffects) {
              const fault = e.faultToolCall?.(call, info);
              if (fault) return fault;
            }
            return undefined;
          },
          after(call, info, answer) {
            let current: BoundaryAnswer = answer;
            for (const e of toolEffects) current = e.changeToolResult?.(call, info, current) ?? current;
            return current;
          },
        };
  return {
    ...(toolBoundary ? { toolBoundary } : {}),
    user: (user) => perturbedUser(user, effects),
    violations: (messages) => effects.flatMap((e) => e.violations?.(messages) ?? []),
  };
}

/**
 * A conversation's grade with its policy violations applied: an agent that obeyed an injected instruction
 * broke its policy, whatever the database says — reward 0, the violations under `info.policy_violations`.
 */
export function gradeWithViolations(reward: RewardInfo, violations: readonly string[]): RewardInfo {
  return violations.length === 0
    ? reward
    : { ...reward, reward: 0, info: { ...reward.info, policy_violations: [...violations] } };
}

function perturbedUser(user: UserSimulator, effects: readonly PerturbationEffects[]): UserSimulator {
  const customer = effects.filter((e) => e.customerScenario || e.changeCustomerMessage);
  if (customer.length === 0) return user;
  return {
    name: user.name,
    ...(user.model !== undefined ? { model: user.model } : {}),
    async start(init) {
      let scenario = init.scenario;
      // Marks of the prompt's changes go on the customer's first message.
      let pending: PerturbationMark[] = [];
      for (const e of customer) {
        const changed = e.customerScenario?.(scenario);
        if (changed) {
          scenario = changed.scenario;
          pending.push(changed.mark);
        }
      }
      const session: UserSession = await user.start({ ...init, scenario });
      let index = 0;
      return {
        async respond(incoming) {
          const message = await session.respond(incoming);
          const marks = pending;
          pending = [];
          let content = message.content;
          if (typeof content === "string" && content.trim() !== "") {
            for (const e of customer) {
              const changed: MarkedText | undefined = e.changeCustomerMessage?.(content, index);
              if (changed) {
                content = changed.content;
                marks.push(changed.mark);
              }
            }
            index++;
          }
          if (marks.length === 0) return message;
          return { ...message, content, perturbations: marks };
        },
      };
    },
  };
}
