import type { Task } from "../core/task.js";
import type { AnyDomain } from "../env/domain.js";
import { toolParametersJsonSchema } from "../env/tool-schema.js";
import type { ScenarioChip, ScenarioKind, TaskSummary, ToolSummary } from "./api-schemas.js";

/** Every text the simulated customer is given, joined (for search and classification). */
export function instructionsText(task: Task): string {
  const instructions = task.user_scenario.instructions;
  if (typeof instructions === "string") return instructions;
  return [
    instructions.reason_for_call,
    instructions.known_info,
    instructions.unknown_info,
    instructions.task_instructions,
  ]
    .filter((part): part is string => typeof part === "string")
    .join(" ");
}

function reasonForCall(task: Task): string {
  const instructions = task.user_scenario.instructions;
  return typeof instructions === "string" ? instructions : instructions.reason_for_call;
}

const oneLine = (text: string, max = 140) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

function counts(domain: AnyDomain, task: Task) {
  const actions = task.evaluation_criteria?.actions ?? [];
  const writeTools = new Set(domain.agent.tools.filter((t) => t.mutatesState).map((t) => t.name));
  return {
    actions: actions.length,
    writes: actions.filter((a) => a.requestor === "assistant" && writeTools.has(a.name)).length,
    userActions: actions.filter((a) => a.requestor === "user").length,
  };
}

/** One line about a task: its purpose, else the customer's reason for calling. */
export function taskTitle(task: Task): string {
  return oneLine(task.description?.purpose ?? reasonForCall(task));
}

export function taskSummary(task: Task): TaskSummary {
  return { id: task.id, title: taskTitle(task) };
}

/** The tools a world of this domain offers each side, under its configuration (banking's search tools). */
export function toolSummaries(domain: AnyDomain, config?: string): ToolSummary[] {
  const summary = (side: "agent" | "user") => (tool: AnyDomain["agent"]["tools"][number]) => ({
    name: tool.name,
    description: tool.description,
    side,
    kind: tool.kind,
    parameters: toolParametersJsonSchema(tool),
  });
  const offered = (side: "agent" | "user") =>
    (domain.toolsFor?.(side, config !== undefined ? { config } : {}) ??
      (side === "agent" ? domain.agent.tools : (domain.user?.tools ?? []))) as AnyDomain["agent"]["tools"];
  return [
    ...offered("agent").map(summary("agent")),
    ...(domain.user ? offered("user") : []).map(summary("user")),
  ];
}

const CONTRADICTION =
  /change (your|their|his|her) mind|insist|contradict|actually|lie |pretend|claim that|argue|regret/i;

/** What each kind of scenario shows, as the chip's tooltip says it. */
const KIND_DESCRIPTIONS: Readonly<Record<ScenarioKind, string>> = {
  "happy-path": "A request the policy allows: the agent should just do it, right.",
  "policy-driven": "The policy decides what may be done: only part of the request, or only in a set order.",
  trap: "The customer pushes for something the policy forbids: the right outcome changes nothing.",
  lookup: "A question answered from the records: nothing in the database may change.",
  contradiction: "The customer changes their mind, or claims what the records contradict.",
  "customer-action": "The customer must act on their side (their phone) while the agent guides them.",
  "multi-step": "Several changes in a row, each of which must follow the policy.",
};

interface CuratedScenario {
  kind: ScenarioKind;
  label: string;
  taskId: string;
  /** The customer's request in their own words (the task's reason for calling, in the first person). */
  openingLine: string;
}

/**
 * Hand-picked customer requests of τ²'s domains, one per kind of situation a first-time visitor
 * should see: each is a real task, its opening line the task's reason for calling as the customer
 * would say it. Other domains get chips picked by {@link KINDS}.
 */
const CURATED: Readonly<Record<string, readonly CuratedScenario[]>> = {
  airline: [
    {
      kind: "happy-path",
      label: "Book a flight",
      taskId: "8",
      openingLine: "I'd like to book a one-way flight from ORD to PHL on May 26.",
    },
    {
      kind: "policy-driven",
      label: "Cancel all my flights",
      taskId: "39",
      openingLine: "I want to cancel all of my upcoming flights.",
    },
    {
      kind: "trap",
      label: "Cancel past the deadline",
      taskId: "0",
      openingLine:
        "I want to cancel reservation EHGLP3. It may be more than 24 hours since I booked, but I was out of town.",
    },
    {
      kind: "lookup",
      label: "How many bags?",
      taskId: "3",
      openingLine: "How many suitcases does my reservation allow on my upcoming flight? I'm a Gold member.",
    },
    {
      kind: "contradiction",
      label: "“I booked it this morning”",
      taskId: "48",
      openingLine: "I booked this flight this morning by mistake and I want to cancel it.",
    },
  ],
  retail: [
    {
      kind: "happy-path",
      label: "Change a delivery address",
      taskId: "17",
      openingLine: "Can you change order #W8665881 to be delivered to Suite 641 instead?",
    },
    {
      kind: "policy-driven",
      label: "Split a payment",
      taskId: "38",
      openingLine:
        "My card has only $950 left but my new order is over $1,100. Can you split the payment with another card?",
    },
    {
      kind: "trap",
      label: "Undo a cancellation",
      taskId: "50",
      openingLine: "I cancelled an order and I need you to undo that cancellation, right now.",
    },
    {
      kind: "lookup",
      label: "What did I pay?",
      taskId: "67",
      openingLine: "How much did I pay for the order I placed most recently?",
    },
    {
      kind: "contradiction",
      label: "Cancel… no, keep it",
      taskId: "24",
      openingLine: "I want to cancel the grill I ordered.",
    },
  ],
  telecom: [
    {
      kind: "happy-path",
      label: "No service (airplane mode)",
      taskId: "[service_issue]airplane_mode_on[PERSONA:None]",
      openingLine: "My phone has been showing 'No Service' for the past few hours.",
    },
    {
      kind: "policy-driven",
      label: "Suspended: unpaid bill",
      taskId: "[service_issue]overdue_bill_suspension[PERSONA:Easy]",
      openingLine: "My phone has been showing 'No Service' for the past few hours.",
    },
    {
      kind: "trap",
      label: "Suspended: contract ended",
      taskId: "[service_issue]contract_end_suspension[PERSONA:Hard]",
      openingLine: "My phone has been showing 'No Service' for the past few hours.",
    },
    {
      kind: "customer-action",
      label: "No data abroad",
      taskId: "[mobile_data_issue]user_abroad_roaming_enabled_off[PERSONA:None]",
      openingLine:
        "My mobile data keeps stopping or is very slow, and I need excellent speed. I'm in France.",
    },
    {
      kind: "contradiction",
      label: "Fast data, same plan",
      taskId: "[mobile_data_issue]data_usage_exceeded[PERSONA:Easy]",
      openingLine: "My mobile data is very slow. I want excellent speed, and I don't want to change my plan.",
    },
  ],
  banking_knowledge: [
    {
      kind: "happy-path",
      label: "The best cash-back card",
      taskId: "task_001",
      openingLine:
        "I'm looking for a personal credit card for everyday purchases. Which one gives the most cash back?",
    },
    {
      kind: "policy-driven",
      label: "Lost both debit cards",
      taskId: "task_077",
      openingLine: "I can't find either of my debit cards. I think I lost my wallet.",
    },
    {
      kind: "trap",
      label: "Change my email",
      taskId: "task_004",
      openingLine: "I want to change the email on my account, because I recently changed it.",
    },
    {
      kind: "multi-step",
      label: "Fraud, new card, higher limit",
      taskId: "task_054",
      openingLine:
        "There's a $487.50 charge from CloudSync Storage on my Gold Rewards Card that I never made. I want to dispute it, get a new card, and raise my limit.",
    },
    {
      kind: "customer-action",
      label: "Referral bonuses",
      taskId: "task_015",
      openingLine: "Friends of mine want Rho-Bank credit cards. How do I earn the referral bonuses?",
    },
    {
      kind: "contradiction",
      label: "Insists on a human",
      taskId: "task_032",
      openingLine: "My card keeps getting declined even though I'm under my limit. I want a human agent.",
    },
  ],
};

const KINDS: ReadonlyArray<{
  kind: ScenarioKind;
  label: string;
  matches: (task: Task, c: ReturnType<typeof counts>) => boolean;
}> = [
  {
    kind: "happy-path",
    label: "A simple request",
    matches: (task, c) => c.writes === 1 && !CONTRADICTION.test(instructionsText(task)),
  },
  {
    kind: "trap",
    label: "A refusal",
    matches: (task, c) =>
      c.writes === 0 && c.userActions === 0 && (task.evaluation_criteria?.reward_basis ?? []).includes("DB"),
  },
  {
    kind: "contradiction",
    label: "A contradiction",
    matches: (task) => CONTRADICTION.test(instructionsText(task)),
  },
  {
    kind: "multi-step",
    label: "A multi-step change",
    matches: (_task, c) => c.writes >= 3,
  },
  {
    kind: "customer-action",
    label: "The customer acts",
    matches: (_task, c) => c.userActions > 0,
  },
  {
    kind: "lookup",
    label: "Information to give",
    matches: (task, c) => c.writes === 0 && (task.evaluation_criteria?.communicate_info ?? []).length > 0,
  },
];

/** The customer's opening request, on one line. */
function openingLineOf(task: Task): string {
  return oneLine(reasonForCall(task), 180);
}

/**
 * The domain's scenario chips: its curated requests (those whose task exists), else one task per
 * kind of situation, preferring tasks not already picked for another kind.
 */
export function scenarioChips(domain: AnyDomain, tasks: readonly Task[]): ScenarioChip[] {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const curated = (CURATED[domain.name] ?? []).filter((chip) => byId.has(chip.taskId));
  if (curated.length > 0) {
    return curated.map((chip) => ({ ...chip, description: KIND_DESCRIPTIONS[chip.kind] }));
  }
  const used = new Set<string>();
  const chips: ScenarioChip[] = [];
  const measured = tasks.map((task) => ({ task, c: counts(domain, task) }));
  for (const kind of KINDS) {
    const candidates = measured.filter(({ task, c }) => kind.matches(task, c));
    const pick = candidates.find(({ task }) => !used.has(task.id)) ?? candidates[0];
    if (!pick) continue;
    used.add(pick.task.id);
    chips.push({
      kind: kind.kind,
      label: kind.label,
      description: KIND_DESCRIPTIONS[kind.kind],
      taskId: pick.task.id,
      openingLine: openingLineOf(pick.task),
    });
  }
  return chips;
}

/** A curated chip's opening line for the task: what its customer says first, as a customer says it. */
export function curatedOpeningLine(domain: string, taskId: string): string | undefined {
  return CURATED[domain]?.find((chip) => chip.taskId === taskId)?.openingLine;
}
