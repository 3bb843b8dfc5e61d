import { USER_STOP_TOKENS } from "../core/agent.js";
import type { Message } from "../core/message.js";
import type { Task } from "../core/task.js";
import type { AnyDomain } from "../env/domain.js";
import { actionMatches, toolCallsOf } from "../evaluation/actions.js";
import { scenarioText } from "../users/user-prompt.js";
import type { Review } from "./blame.js";

/** What the deterministic checks look at: one failed simulation, its task, and its domain. */
export interface FailedSimulation {
  termination_reason: string;
  messages: readonly Message[];
  info?: Record<string, unknown> | null;
}

export interface CheckContext {
  task: Task;
  domain: AnyDomain;
  /** The domain's policy as the agent saw it (to know whether it asks for explicit confirmation). */
  policy: string;
  /** Whether the task's own gold actions reach its goal (false: a task defect); from a gold replay. */
  goldReachesGoal: boolean;
}

const check = (name: string, culprit: Review["culprit"], turn: number | null, reason: string): Review => ({
  culprit,
  turn,
  reason,
  source: "check",
  check: name,
});

const turnOf = (messages: readonly Message[], index: number): number => messages[index]?.turn_idx ?? index;

/** Words of a tool's name that say what it does (`toggle_airplane_mode` → airplane, mode). */
const GENERIC = new Set(["check", "get", "set", "toggle", "can", "the", "status", "details", "list"]);
const significantWords = (name: string) => name.split("_").filter((w) => w.length > 2 && !GENERIC.has(w));

/** A customer saying it did something: "I've turned…", "I have restarted…", "done, I…". */
const CLAIM = /\b(i['’]?ve|i have|i just|i already|i did|i've now|done[,.!]? i)\b/i;
const AFFIRMATIVE =
  /\b(yes|yeah|yep|sure|confirm(ed)?|go ahead|please do|proceed|correct|ok(ay)?|that['’]?s right|do it)\b/i;
/** Identifiers a customer could only know from its scenario or the conversation: ids, codes, emails. */
const IDENTIFIER = /\b(?=[A-Za-z0-9_@.-]*\d)[A-Za-z0-9][A-Za-z0-9_@.-]{4,}[A-Za-z0-9]\b/g;

/**
 * The checks that need no model, in order; the first that finds a culprit decides. Each covers one
 * way a failure is not what it looks like: the harness failed, the task cannot be solved, the customer
 * misbehaved, or the agent broke a rule the transcript shows plainly.
 */
export function deterministicReview(simulation: FailedSimulation, context: CheckContext): Review | undefined {
  const { messages } = simulation;
  const info = simulation.info ?? {};
  if (simulation.termination_reason === "infrastructure_error") {
    if (info.fault === "user_simulator")
      return check(
        "simulator-fault",
        "user_simulator",
        null,
        `the simulated customer failed: ${String(info.error ?? "")}`.trim(),
      );
    return check(
      "infrastructure",
      "infrastructure",
      null,
      `the conversation never completed: ${String(info.error ?? "an infrastructure error")}`,
    );
  }
  if (!context.goldReachesGoal)
    return check(
      "task-defect",
      "task",
      null,
      "the task's own gold actions do not reach its goal in its initial world: no agent could pass it",
    );
  if (info.fault === "user_simulator")
    return check(
      "simulator-fault",
      "user_simulator",
      null,
      "the simulated customer's own tool calls kept failing",
    );

  const userTools = context.domain.user?.tools ?? [];
  const calledByUser = (name: string, before: number) =>
    messages
      .slice(0, before)
      .some((m) => m.role === "user" && (m.tool_calls ?? []).some((c) => c.name === name));
  const scenario = scenarioText(context.task.user_scenario).toLowerCase();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== "user" || !m.content) continue;
    const text = m.content;
    // The customer claims to have done something with its own tools that it never did.
    if (CLAIM.test(text)) {
      for (const tool of userTools) {
        const words = significantWords(tool.name);
        if (words.length === 0) continue;
        const lower = text.toLowerCase();
        if (words.every((w) => lower.includes(w)) && !calledByUser(tool.name, i))
          return check(
            "customer-claimed-undone-action",
            "user_simulator",
            turnOf(messages, i),
            `the customer said it had done something needing ${tool.name}, but never called it`,
          );
      }
    }
    // The customer states an identifier found neither in its scenario nor earlier in the conversation.
    const earlier = messages
      .slice(0, i)
      .map((e) => `${e.content ?? ""} ${JSON.stringify((e as { tool_calls?: unknown }).tool_calls ?? "")}`)
      .join(" ")
      .toLowerCase();
    for (const token of text.match(IDENTIFIER) ?? []) {
      const t = token.toLowerCase();
      if (!scenario.includes(t) && !earlier.includes(t))
        return check(
          "customer-invented-fact",
          "user_simulator",
          turnOf(messages, i),
          `the customer stated "${token}", which is neither in its scenario nor earlier in the conversation`,
        );
    }
  }

  const gold = context.task.evaluation_criteria?.actions ?? [];
  const writes = new Set(context.domain.agent.tools.filter((t) => t.kind === "write").map((t) => t.name));
  const calls = toolCallsOf(messages);
  // The customer ended the conversation while the agent was asking it something, with work left to do.
  if (simulation.termination_reason === "user_stop") {
    const stopAt = messages.findIndex(
      (m) => m.role === "user" && USER_STOP_TOKENS.some((token) => (m.content ?? "").includes(token)),
    );
    const before = messages
      .slice(0, stopAt < 0 ? messages.length : stopAt)
      .filter((m) => m.role === "assistant" && m.content)
      .at(-1);
    const missing = gold.filter(
      (action) =>
        action.requestor === "assistant" &&
        writes.has(action.name) &&
        !calls.some((c) => actionMatches(action, c)),
    );
    if (stopAt >= 0 && before?.content?.trim().endsWith("?") && missing.length > 0)
      return check(
        "customer-ended-early",
        "user_simulator",
        turnOf(messages, stopAt),
        `the customer ended the conversation while the agent was asking a question, before ${missing[0]!.name} could be done`,
      );
  }
  // The agent changed the world without the explicit confirmation its policy requires.
  if (/explicit (user )?confirmation/i.test(context.policy)) {
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i]!;
      if (m.role !== "assistant" || !(m.tool_calls ?? []).some((c) => writes.has(c.name))) continue;
      const lastCustomer = messages
        .slice(0, i)
        .filter((e) => e.role === "user" && e.content)
        .at(-1);
      if (!lastCustomer || !AFFIRMATIVE.test(lastCustomer.content ?? ""))
        return check(
          "acted-without-confirmation",
          "agent",
          turnOf(messages, i),
          `the agent called ${(m.tool_calls ?? []).find((c) => writes.has(c.name))!.name} without the customer's explicit confirmation, which the policy requires`,
        );
    }
  }
  if (["too_many_errors", "agent_error", "max_steps"].includes(simulation.termination_reason))
    return check(
      "agent-termination",
      "agent",
      null,
      `the conversation ended with ${simulation.termination_reason}, caused by the agent's own calls or turns`,
    );
  return undefined;
}
