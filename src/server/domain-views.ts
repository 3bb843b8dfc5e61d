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

export function taskSummary(domain: AnyDomain, task: Task): TaskSummary {
  return {
    id: task.id,
    title: oneLine(task.description?.purpose ?? reasonForCall(task)),
    ...counts(domain, task),
    rewardBasis: task.evaluation_criteria?.reward_basis ?? [],
  };
}

export function toolSummaries(domain: AnyDomain): ToolSummary[] {
  const summary = (side: "agent" | "user") => (tool: AnyDomain["agent"]["tools"][number]) => ({
    name: tool.name,
    description: tool.description,
    side,
    kind: tool.kind,
    parameters: toolParametersJsonSchema(tool),
  });
  return [...domain.agent.tools.map(summary("agent")), ...(domain.user?.tools ?? []).map(summary("user"))];
}

const CONTRADICTION =
  /change (your|their|his|her) mind|insist|contradict|actually|lie |pretend|claim that|argue/i;

const KINDS: ReadonlyArray<{
  kind: ScenarioKind;
  label: string;
  description: string;
  matches: (task: Task, c: ReturnType<typeof counts>) => boolean;
}> = [
  {
    kind: "refusal",
    label: "A refusal",
    description: "The policy says no: the right outcome changes nothing in the database.",
    matches: (task, c) =>
      c.writes === 0 && c.userActions === 0 && (task.evaluation_criteria?.reward_basis ?? []).includes("DB"),
  },
  {
    kind: "contradiction",
    label: "A contradiction",
    description: "The customer changes their mind or insists on something that is not so.",
    matches: (task) => CONTRADICTION.test(instructionsText(task)),
  },
  {
    kind: "multi-step",
    label: "A multi-step change",
    description: "Several changes in a row, each of which must follow the policy.",
    matches: (_task, c) => c.writes >= 3,
  },
  {
    kind: "customer-action",
    label: "The customer acts",
    description: "The customer must do something on their side (their phone) while the agent guides them.",
    matches: (_task, c) => c.userActions > 0,
  },
  {
    kind: "information",
    label: "Information to give",
    description: "The agent must tell the customer specific facts.",
    matches: (task) => (task.evaluation_criteria?.communicate_info ?? []).length > 0,
  },
];

/** One task per kind of situation, preferring tasks not already picked for another kind. */
export function scenarioChips(domain: AnyDomain, tasks: readonly Task[]): ScenarioChip[] {
  const used = new Set<string>();
  const chips: ScenarioChip[] = [];
  const measured = tasks.map((task) => ({ task, c: counts(domain, task) }));
  for (const kind of KINDS) {
    const candidates = measured.filter(({ task, c }) => kind.matches(task, c));
    const pick = candidates.find(({ task }) => !used.has(task.id)) ?? candidates[0];
    if (!pick) continue;
    used.add(pick.task.id);
    chips.push({ kind: kind.kind, label: kind.label, description: kind.description, taskId: pick.task.id });
  }
  return chips;
}
