import { USER_STOP_TOKENS } from "../core/agent.js";
import type { Message, ToolCall } from "../core/message.js";
import type { RewardInfo } from "../core/simulation.js";
import type { Action, Task } from "../core/task.js";
import type { AnyDomain } from "../env/domain.js";
import { actionMatches } from "../evaluation/actions.js";
import {
  argumentDifferences,
  callsWithResults,
  showDifference,
  type CallAt,
} from "../evaluation/trajectory-calls.js";
import { scenarioText } from "../users/user-prompt.js";
import type { Evidence, Review } from "./blame.js";

/** What the deterministic checks look at: one failed simulation, its task, and its domain. */
export interface FailedSimulation {
  termination_reason: string;
  messages: readonly Message[];
  info?: Record<string, unknown> | null;
  /** Its grading, when known: a check about the final database reads it. */
  reward_info?: RewardInfo | null;
}

export interface CheckContext {
  task: Task;
  domain: AnyDomain;
  /** Whether the task's own gold actions reach its goal (false: a task defect); from a gold replay. */
  goldReachesGoal: boolean;
  /** What the gold replay showed when it did not reach the goal (its reward, the gold actions that raised). */
  goldReplayEvidence?: string;
}

const verdict = (
  name: string,
  culprit: Review["culprit"],
  turn: number | null,
  reason: string,
  evidence: Evidence[],
): Review => ({ culprit, turn, reason, source: "check", check: name, evidence });

const turnOf = (messages: readonly Message[], index: number): number => messages[index]?.turn_idx ?? index;

const cut = (text: string, max = 160) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};
const showCall = (call: ToolCall) => cut(`${call.name}(${JSON.stringify(call.arguments)})`, 200);

/**
 * What a customer says when it claims to have used one of its own tools: the topic the tool is about
 * and the past-tense verbs that do it. Only the tools listed here are ever read as claimed; for any
 * other a claim cannot be told apart from a description, and no check fires.
 */
const CLAIMS: Record<string, { topic: RegExp; verbs: RegExp }> = {
  toggle_data: {
    topic: /\b(mobile )?data\b(?! saver| roaming)/,
    verbs: /\b(turned|switched|toggled|enabled|activated)\b/,
  },
  toggle_airplane_mode: {
    topic: /\b(airplane|flight) mode\b/,
    verbs: /\b(turned|switched|toggled|disabled|deactivated)\b/,
  },
  toggle_roaming: { topic: /\broaming\b/, verbs: /\b(turned|switched|toggled|enabled|activated)\b/ },
  toggle_data_saver_mode: {
    topic: /\bdata saver\b/,
    verbs: /\b(turned|switched|toggled|disabled|deactivated)\b/,
  },
  toggle_wifi_calling: { topic: /\bwi-?fi calling\b/, verbs: /\b(turned|switched|toggled|enabled)\b/ },
  reboot_device: {
    topic: /\b(phone|device|it)\b/,
    verbs: /\b(restarted|rebooted)\b/,
  },
  reset_apn_settings: { topic: /\bapn\b/, verbs: /\breset\b/ },
  disconnect_vpn: { topic: /\bvpn\b/, verbs: /\b(disconnected|turned off|switched off|disabled)\b/ },
  reseat_sim_card: { topic: /\bsim\b/, verbs: /\b(reseated|reinserted|re-inserted|took out)\b/ },
  grant_app_permission: { topic: /\bpermission/, verbs: /\b(granted|allowed|gave)\b/ },
  make_payment: { topic: /\b(bill|payment)\b/, verbs: /\b(paid|made)\b/ },
  apply_for_credit_card: { topic: /\bcard\b/, verbs: /\bapplied\b/ },
  submit_referral: { topic: /\breferral\b/, verbs: /\b(submitted|resubmitted)\b/ },
};
/** The customer speaking of itself: "I", "I've" … (the verb must follow within a few words). */
const FIRST_PERSON = /\bi(?:['’]ve)?\b/g;
const NEGATION =
  /\b(not|never|cannot|can['’]t|couldn['’]t|haven['’]t|didn['’]t|doesn['’]t|isn['’]t|won['’]t|unable|try|tried)\b/;
/** An agent question that asks the customer to go ahead with something, or to do it. */
const OFFER = /\b(would you like|shall i|should i|do you want|could you|can you|please|go ahead|proceed)\b/i;
const SMALL_TALK = /\b(anything else|something else|any other)\b/i;
/** An agent turn that refuses or cannot: asking after it is not an offer to do the work. */
const REFUSAL =
  /\b(unable|can['’]?t|cannot|not able|not possible|unfortunately|not allowed|isn['’]t possible)\b/i;
/** Errors of the transport rather than of the request: a retry can succeed. */
const TRANSIENT = /\b(timed out|timeout|temporarily|unavailable|503|502|429|rate limit|try again)\b/i;
/** Identifiers a customer could only know from its scenario or the conversation: letters and digits. */
const IDENTIFIER =
  /#?\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9_-]{3,}[A-Za-z0-9]\b/g;

const sentences = (text: string) => text.split(/(?<=[.!?;])\s+|\n+/).map((s) => s.trim());

/** The sentence of `text` in which the customer claims to have done what `tool` does, if any. */
function claimOf(text: string, tool: string): string | undefined {
  const claim = CLAIMS[tool];
  if (!claim) return undefined;
  return sentences(text).find((sentence) => {
    const lower = sentence.toLowerCase();
    if (NEGATION.test(lower) || !claim.topic.test(lower)) return false;
    for (const match of lower.matchAll(FIRST_PERSON)) {
      const window = lower.slice(match.index).split(/\s+/).slice(0, 6).join(" ");
      if (claim.verbs.test(window)) return true;
    }
    return false;
  });
}

interface Found {
  review: Review;
  /** The message index it rests on: the earliest finding decides. */
  at: number;
}

/**
 * The checks that need no model. Each fires only on evidence it can cite — the message (turn and
 * words quoted) and the tool calls, or the run's record — and says what it rests on; where a pattern
 * cannot be told apart reliably (acting without a confirmation, which passing conversations do too;
 * a conversation that ran out of steps) nothing fires and the LLM reviewer decides.
 *
 * Order: the run's own record first (infrastructure, a defective task, a failing simulator); then the
 * earliest turn at which the customer or the agent did something the transcript shows plainly.
 */
export function deterministicReview(simulation: FailedSimulation, context: CheckContext): Review | undefined {
  const { messages } = simulation;
  const info = simulation.info ?? {};
  const error = typeof info.error === "string" && info.error.trim() ? cut(info.error, 400) : undefined;
  if (simulation.termination_reason === "infrastructure_error") {
    const evidence: Evidence[] = [
      {
        turn: null,
        who: "run",
        quote: `termination_reason infrastructure_error${error ? `: ${error}` : ""}`,
      },
    ];
    if (info.fault === "user_simulator")
      return verdict(
        "simulator-fault",
        "user_simulator",
        null,
        `the simulated customer failed${error ? `: ${error}` : ""}`,
        evidence,
      );
    return verdict(
      "infrastructure",
      "infrastructure",
      null,
      `the conversation never completed: ${error ?? "an infrastructure error"}`,
      evidence,
    );
  }
  if (!context.goldReachesGoal)
    return verdict(
      "task-defect",
      "task",
      null,
      "the task's own gold actions do not reach its goal in its initial world: no agent could pass it",
      [
        {
          turn: null,
          who: "task",
          quote:
            context.goldReplayEvidence ??
            "replaying the task's gold actions in its initial world fails its grading",
        },
      ],
    );
  if (info.fault === "user_simulator" && error)
    return verdict("simulator-fault", "user_simulator", null, `the simulated customer failed: ${error}`, [
      { turn: null, who: "run", quote: error },
    ]);

  const found = [
    ...customerClaims(messages, context),
    ...inventedFacts(messages, context),
    ...customerEndedWhileReachable(simulation, context),
    ...erroredCallsNeverRetried(messages, context),
    ...wrongWriteArguments(messages, context),
    ...unexpectedWrites(simulation, context),
    ...transfersOfSolvableTasks(messages, context),
  ];
  const earliest = found.sort((a, b) => a.at - b.at)[0];
  if (earliest) return earliest.review;

  if (
    simulation.termination_reason === "too_many_errors" ||
    simulation.termination_reason === "agent_error"
  ) {
    const errored = callsWithResults(messages).filter(
      (c) => c.error !== undefined && c.call.requestor !== "user",
    );
    const last = errored.at(-1);
    const evidence: Evidence[] = [
      {
        turn: null,
        who: "run",
        quote: `termination_reason ${simulation.termination_reason}${error ? `: ${error}` : ""}`,
      },
    ];
    if (last)
      evidence.push({
        turn: turnOf(messages, last.messageIndex),
        who: "agent",
        quote: `${errored.length} of the agent's tool calls were answered with an error; the last, ${showCall(last.call)}: "${cut(last.error ?? "")}"`,
      });
    if (simulation.termination_reason === "too_many_errors" && !last) return undefined;
    return verdict(
      "agent-termination",
      "agent",
      last ? turnOf(messages, last.messageIndex) : null,
      simulation.termination_reason === "too_many_errors"
        ? `the conversation ended because the agent's tool calls kept failing (${errored.length} errors)`
        : `the agent itself failed${error ? `: ${error}` : ""}`,
      evidence,
    );
  }
  return undefined;
}

const customerTools = (context: CheckContext) =>
  new Set((context.domain.user?.tools ?? []).map((t) => t.name));
const writeTools = (context: CheckContext) =>
  new Set(
    [...context.domain.agent.tools, ...(context.domain.user?.tools ?? [])]
      .filter((t) => t.mutatesState)
      .map((t) => t.name),
  );
const goldOf = (context: CheckContext): readonly Action[] => context.task.evaluation_criteria?.actions ?? [];
/** Whether a gold action is done by a call its tool did not answer with an error. */
const doneIn = (calls: readonly CallAt[]) => (action: Action) =>
  calls.some((c) => c.error === undefined && actionMatches(action, c.call));

/** The customer says it did something with its own tools that it never did in the conversation. */
function customerClaims(messages: readonly Message[], context: CheckContext): Found[] {
  const tools = customerTools(context);
  const called = new Set(
    callsWithResults(messages)
      .filter((c) => c.call.requestor === "user")
      .map((c) => c.call.name),
  );
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== "user" || !m.content) continue;
    for (const tool of Object.keys(CLAIMS)) {
      if (!tools.has(tool) || called.has(tool)) continue;
      const sentence = claimOf(m.content, tool);
      if (!sentence) continue;
      const turn = turnOf(messages, i);
      return [
        {
          at: i,
          review: verdict(
            "customer-claimed-undone-action",
            "user_simulator",
            turn,
            `the customer said "${cut(sentence, 120)}" at turn ${turn}, and no ${tool} call by the customer exists in the conversation`,
            [
              { turn, who: "customer", quote: sentence },
              {
                turn: null,
                who: "customer",
                quote: `no ${tool} call by the customer exists in the conversation`,
              },
            ],
          ),
        },
      ];
    }
  }
  return [];
}

/** The customer states an identifier found neither in its scenario nor earlier in the conversation. */
function inventedFacts(messages: readonly Message[], context: CheckContext): Found[] {
  const scenario = scenarioText(context.task.user_scenario).toLowerCase();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== "user" || !m.content) continue;
    const earlier = messages
      .slice(0, i)
      .map((e) => `${e.content ?? ""} ${JSON.stringify((e as { tool_calls?: unknown }).tool_calls ?? "")}`)
      .join(" ")
      .toLowerCase();
    for (const token of m.content.match(IDENTIFIER) ?? []) {
      const t = token.toLowerCase();
      if (scenario.includes(t) || earlier.includes(t)) continue;
      const turn = turnOf(messages, i);
      return [
        {
          at: i,
          review: verdict(
            "customer-invented-fact",
            "user_simulator",
            turn,
            `the customer stated "${token}" at turn ${turn}, which is neither in its scenario nor earlier in the conversation`,
            [
              { turn, who: "customer", quote: cut(m.content, 300) },
              { turn: null, who: "task", quote: `"${token}" does not occur in the customer's scenario` },
            ],
          ),
        },
      ];
    }
  }
  return [];
}

/**
 * The customer ended the conversation right after the agent asked it to go ahead with, or do, a gold
 * action still undone — the agent's question names it (an argument of it, or what the customer's tool
 * is about) and refuses nothing.
 */
function customerEndedWhileReachable(simulation: FailedSimulation, context: CheckContext): Found[] {
  const { messages } = simulation;
  if (simulation.termination_reason !== "user_stop") return [];
  const stopAt = messages.findIndex(
    (m) => m.role === "user" && USER_STOP_TOKENS.some((token) => (m.content ?? "").includes(token)),
  );
  if (stopAt < 0) return [];
  const askedAt = messages.slice(0, stopAt).findLastIndex((m) => m.role === "assistant" && m.content);
  const asked = messages[askedAt]?.content?.trim() ?? "";
  const question = sentences(asked).at(-1) ?? "";
  if (askedAt < 0 || !question.endsWith("?") || !OFFER.test(question) || SMALL_TALK.test(question)) return [];
  if (REFUSAL.test(asked)) return [];
  const calls = callsWithResults(messages);
  const writes = writeTools(context);
  const done = doneIn(calls);
  const lower = asked.toLowerCase();
  const undone = goldOf(context).find((action) => {
    if (!writes.has(action.name) || done(action)) return false;
    const values = Object.values(action.arguments).filter(
      (v): v is string => typeof v === "string" && v.length >= 4,
    );
    if (values.some((v) => lower.includes(v.toLowerCase()))) return true;
    return action.requestor === "user" && (CLAIMS[action.name]?.topic.test(lower) ?? false);
  });
  if (!undone) return [];
  const turn = turnOf(messages, stopAt);
  const agentTurn = turnOf(messages, askedAt);
  const action = showCall({
    id: "",
    name: undone.name,
    arguments: undone.arguments,
    requestor: undone.requestor,
  });
  return [
    {
      at: stopAt,
      review: verdict(
        "customer-ended-while-reachable",
        "user_simulator",
        turn,
        `the customer ended the conversation at turn ${turn} right after the agent asked "${cut(asked, 120)}", with ${undone.name} still undone`,
        [
          { turn: agentTurn, who: "agent", quote: cut(asked, 300) },
          { turn, who: "customer", quote: cut(messages[stopAt]!.content ?? "", 300) },
          { turn: null, who: "task", quote: `gold action ${action} was never done` },
        ],
      ),
    },
  ];
}

/**
 * A tool call answered with an error — a transport failure (timeout, unavailable), or any error on a
 * gold action's tool — that was never made again successfully, though the agent spoke after it.
 */
function erroredCallsNeverRetried(messages: readonly Message[], context: CheckContext): Found[] {
  const calls = callsWithResults(messages);
  const gold = goldOf(context);
  const done = doneIn(calls);
  for (const [k, at] of calls.entries()) {
    if (at.error === undefined) continue;
    const undoneGold = gold.some((action) => action.name === at.call.name && !done(action));
    if (!TRANSIENT.test(at.error) && !undoneGold) continue;
    const retried = calls
      .slice(k + 1)
      .some((later) => later.call.name === at.call.name && later.error === undefined);
    if (retried) continue;
    const resultAt = messages.findIndex(
      (m, i) => i > at.messageIndex && m.role === "tool" && m.id === at.call.id,
    );
    const nextAgent = messages.findIndex(
      (m, i) => i > Math.max(resultAt, at.messageIndex) && m.role === "assistant",
    );
    if (nextAgent < 0) continue;
    const turn = turnOf(messages, at.messageIndex);
    const who = at.call.requestor === "user" ? "the customer's" : "the agent's";
    const evidence: Evidence[] = [
      { turn, who: at.call.requestor === "user" ? "customer" : "agent", quote: showCall(at.call) },
      { turn: resultAt >= 0 ? turnOf(messages, resultAt) : null, who: "tool", quote: cut(at.error, 300) },
      { turn: null, who: "agent", quote: `no later ${at.call.name} call was answered without an error` },
    ];
    const said = messages[nextAgent]!;
    if (said.content)
      evidence.push({ turn: turnOf(messages, nextAgent), who: "agent", quote: cut(said.content, 300) });
    return [
      {
        at: at.messageIndex,
        review: verdict(
          "errored-call-not-retried",
          "agent",
          turn,
          `${who} ${at.call.name} at turn ${turn} was answered with an error ("${cut(at.error, 80)}") and the agent never had it done again`,
          evidence,
        ),
      },
    ];
  }
  return [];
}

/**
 * The agent's write that its tool carried out with other arguments than the gold action of that tool,
 * which is never done — unless the customer said the differing value itself.
 */
function wrongWriteArguments(messages: readonly Message[], context: CheckContext): Found[] {
  const calls = callsWithResults(messages);
  const writes = writeTools(context);
  const gold = goldOf(context);
  const done = doneIn(calls);
  const customerWords = messages
    .filter((m) => m.role === "user")
    .map((m) => (m.content ?? "").toLowerCase())
    .join("\n");
  const saidByCustomer = (value: unknown) =>
    (typeof value === "string" && value.length >= 3 && customerWords.includes(value.toLowerCase())) ||
    (typeof value === "number" &&
      value >= 100 &&
      new RegExp(`\\b${value}\\b`).test(customerWords.replace(/,/g, "")));
  for (const at of calls) {
    if (at.call.requestor === "user" || at.error !== undefined || !writes.has(at.call.name)) continue;
    if (gold.some((action) => actionMatches(action, at.call))) continue;
    const candidates = gold
      .filter((action) => action.name === at.call.name && !done(action))
      .map((action) => ({ action, differences: argumentDifferences(action, at.call) }))
      .sort((a, b) => a.differences.length - b.differences.length);
    const closest = candidates[0];
    if (!closest || closest.differences.length === 0) continue;
    if (closest.differences.some((d) => saidByCustomer(d.value))) continue;
    const turn = turnOf(messages, at.messageIndex);
    const named = closest.differences.map(showDifference).join("; ");
    return [
      {
        at: at.messageIndex,
        review: verdict(
          "wrong-write-arguments",
          "agent",
          turn,
          `the agent's ${at.call.name} at turn ${turn} was carried out with other arguments than the gold call: ${cut(named, 300)}`,
          [
            { turn, who: "agent", quote: showCall(at.call) },
            {
              turn: null,
              who: "task",
              quote: cut(
                `gold: ${showCall({ id: "", name: closest.action.name, arguments: closest.action.arguments, requestor: "assistant" })}; differs in ${named}`,
                600,
              ),
            },
            { turn: null, who: "customer", quote: "the customer never said the differing values" },
          ],
        ),
      },
    ];
  }
  return [];
}

/** What the customer said, lower-cased, to tell the agent's own choices from the customer's requests. */
const customerSaid = (messages: readonly Message[]) => {
  const words = messages
    .filter((m) => m.role === "user")
    .map((m) => (m.content ?? "").toLowerCase())
    .join("\n");
  return (value: unknown) =>
    typeof value === "string" && value.length >= 3 && words.includes(value.toLowerCase());
};

/**
 * The agent's write that its tool carried out, that no gold action makes (nor any undone gold action
 * of that tool), on a task graded on its database, which ended different from the gold one — unless the
 * customer named what the write was about (then it may have asked for it).
 */
function unexpectedWrites(simulation: FailedSimulation, context: CheckContext): Found[] {
  const { messages } = simulation;
  const dbCheck = simulation.reward_info?.db_check;
  const basis = context.task.evaluation_criteria?.reward_basis ?? [];
  if (!basis.includes("DB") || !dbCheck || dbCheck.db_match) return [];
  const calls = callsWithResults(messages);
  const writes = writeTools(context);
  const gold = goldOf(context);
  const done = doneIn(calls);
  const said = customerSaid(messages);
  for (const at of calls) {
    if (at.call.requestor === "user" || at.error !== undefined || !writes.has(at.call.name)) continue;
    if (gold.some((action) => actionMatches(action, at.call))) continue;
    if (gold.some((action) => action.name === at.call.name && !done(action))) continue;
    if (Object.values(at.call.arguments).some(said)) continue;
    const turn = turnOf(messages, at.messageIndex);
    return [
      {
        at: at.messageIndex,
        review: verdict(
          "unexpected-write",
          "agent",
          turn,
          `the agent's ${showCall(at.call)} at turn ${turn} changed the database though no gold action does, and the final database differs from the gold one`,
          [
            { turn, who: "agent", quote: showCall(at.call) },
            { turn: null, who: "task", quote: `no gold action calls ${at.call.name} with these arguments` },
            { turn: null, who: "run", quote: "db_check: the final database differs from the gold one" },
            { turn: null, who: "customer", quote: "the customer never named the values of this call" },
          ],
        ),
      },
    ];
  }
  return [];
}

/** The agent handed the customer to a human while gold work it could do was still undone. */
function transfersOfSolvableTasks(messages: readonly Message[], context: CheckContext): Found[] {
  const gold = goldOf(context);
  if (gold.some((action) => action.name.startsWith("transfer_to_human"))) return [];
  const calls = callsWithResults(messages);
  const transfer = calls.find(
    (c) => c.call.requestor !== "user" && c.call.name.startsWith("transfer_to_human"),
  );
  if (!transfer) return [];
  const writes = writeTools(context);
  const done = doneIn(calls);
  const undone = gold.find((action) => writes.has(action.name) && !done(action));
  if (!undone) return [];
  const turn = turnOf(messages, transfer.messageIndex);
  const action = showCall({
    id: "",
    name: undone.name,
    arguments: undone.arguments,
    requestor: undone.requestor,
  });
  return [
    {
      at: transfer.messageIndex,
      review: verdict(
        "transferred-solvable-task",
        "agent",
        turn,
        `the agent transferred to a human at turn ${turn} while ${action} was still undone; the task's gold actions show it could be done`,
        [
          { turn, who: "agent", quote: showCall(transfer.call) },
          {
            turn: null,
            who: "task",
            quote: `gold action ${action} was never done; no gold action transfers`,
          },
        ],
      ),
    },
  ];
}
