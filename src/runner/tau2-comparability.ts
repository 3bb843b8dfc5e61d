import { RunConfigSchema } from "./run-spec.js";

/**
 * How a run departs from the leaderboard's standard setup, by consequence: `trials` (fewer than four:
 * still standard, just less reliable), `task-subset` (omitted questions), `modified-prompts` (the models
 * were not shown τ²'s own texts), `scripted-demo` (no model at all), `modified-protocol` (any other
 * change of the benchmark-side setup).
 */
export type DeviationKind =
  "trials" | "task-subset" | "modified-prompts" | "scripted-demo" | "modified-protocol";

export interface Deviation {
  kind: DeviationKind;
  /** A sentence fragment, e.g. "3 of 50 base-split tasks not run (a task subset)". */
  reason: string;
}

/** Whether a run's numbers can be put beside the τ²-bench leaderboard's, and if not, why. */
export interface Tau2Comparability {
  comparable: boolean;
  /** The deviations' reasons, in order. */
  reasons: string[];
  deviations: Deviation[];
}

export interface ComparabilityInput {
  /** The domain judged (a run may span several). */
  domain?: string;
  /** The run's τ² `info` (with passk's own section when passk made it). */
  info: unknown;
  /** The task ids the run has simulations of. */
  taskIds: Iterable<string>;
  /** Trials per task the run asked for. */
  numTrials: number | null;
  /** Its simulations' reward infos, to see whether NL assertions were judged. */
  rewardInfos: Iterable<
    { reward_breakdown?: Record<string, unknown> | null; info?: unknown } | null | undefined
  >;
  /** The ids of the domain's `base` split, when the data is at hand. */
  baseTaskIds?: readonly string[];
}

const LEADERBOARD_TRIALS = 4;

interface PasskSection {
  protocol?: unknown;
  config?: unknown;
  scripted_demo?: unknown;
  nested_model_descriptions?: unknown;
}

/**
 * The leaderboard's conditions, checked against what a run recorded: τ²'s protocol with the reference's
 * own texts, its default agent and limits, every task of the base split, four or more trials, and every
 * NL assertion judged. A run made by the reference itself (no passk section) is held to the same
 * conditions, bar the protocol, which is τ²'s by construction.
 */
export function tau2Comparability(input: ComparabilityInput): Tau2Comparability {
  const deviations: Deviation[] = [];
  const add = (kind: DeviationKind, reason: string) => deviations.push({ kind, reason });
  const info = (input.info ?? {}) as { agent_info?: { llm?: unknown } | null; passk?: unknown };
  const passk = info.passk as PasskSection | undefined;
  const agentLlm = typeof info.agent_info?.llm === "string" ? info.agent_info.llm : "";
  if (agentLlm.startsWith("scripted:") || passk?.scripted_demo === true)
    add("scripted-demo", "a scripted demo (scripted:gold plays the gold actions), not a model");
  const config = passk ? RunConfigSchema.safeParse(passk.config).data : undefined;
  if (passk !== undefined) {
    const protocol = typeof passk.protocol === "string" ? passk.protocol : (config?.protocol ?? "passk");
    if (protocol !== "tau2")
      add(
        "modified-prompts",
        "run under passk's protocol (its own prompt and tool descriptions, strict argument checks)",
      );
    const nested = (passk.nested_model_descriptions ?? {}) as Record<string, unknown>;
    if (input.domain !== undefined && nested[input.domain] === "missing")
      add(
        "modified-prompts",
        "the tools' nested models lacked the reference's descriptions (the upstream data-model modules were not at hand: `passk data pull` with network)",
      );
  }
  if (config) {
    if (/^(module|a2a|http):/.test(config.agent.model))
      add("modified-prompts", `a custom agent (${config.agent.model}) instead of τ²'s LLM agent`);
    if (config.agentPromptTemplate !== undefined)
      add("modified-prompts", "a custom agent prompt (--agent-prompt-template)");
    if (config.toolSpec !== undefined) add("modified-prompts", "custom tool descriptions (--tool-spec)");
    if (config.retrievalConfig?.includes("_reranker"))
      add(
        "modified-prompts",
        `the reranker's prompt (${config.retrievalConfig}) was read from an upstream file passk cannot verify by hash`,
      );
    if (config.solo) add("modified-protocol", "solo mode");
    if ((config.perturbations ?? []).length > 0)
      add(
        "modified-protocol",
        `perturbed (--perturb ${config.perturbations!.join(", ")}): a robustness measurement, not the benchmark's conditions`,
      );
    if (config.maxSteps !== 200) add("modified-protocol", `--max-steps ${config.maxSteps} (τ²: 200)`);
    if (config.maxErrors !== 10) add("modified-protocol", `--max-errors ${config.maxErrors} (τ²: 10)`);
    if (config.adaptive)
      add(
        "modified-protocol",
        `adaptive trials (${config.numTrials} to ${config.adaptive.maxTrials} per task, more where tasks were undecided)`,
      );
  }
  const ran = new Set(input.taskIds);
  if (input.baseTaskIds) {
    const base = new Set(input.baseTaskIds);
    const missing = input.baseTaskIds.filter((id) => !ran.has(id)).length;
    const extra = [...ran].filter((id) => !base.has(id)).length;
    if (missing > 0)
      add("task-subset", `${missing} of ${base.size} base-split tasks not run (a task subset)`);
    if (extra > 0) add("task-subset", `${extra} task(s) outside the base split`);
  } else if (config) {
    const { split, taskIds, numTasks } = config;
    if (taskIds !== undefined || numTasks !== undefined || (split !== undefined && split !== "base"))
      add("task-subset", "a task subset (--task-ids, --num-tasks or a split other than base)");
  }
  if (input.numTrials !== null && input.numTrials < LEADERBOARD_TRIALS)
    add(
      "trials",
      `${input.numTrials} trial${input.numTrials === 1 ? "" : "s"} per task (the leaderboard asks for ${LEADERBOARD_TRIALS} or more)`,
    );
  let unjudged = 0;
  for (const reward of input.rewardInfos) {
    // Stored runs keep the NL component as null; results files leave it out and say so in the info.
    const pending = (reward?.info as { nl_assertions_needing_llm_judge?: unknown } | null | undefined)
      ?.nl_assertions_needing_llm_judge;
    if (reward?.reward_breakdown?.NL_ASSERTION === null || (typeof pending === "number" && pending > 0))
      unjudged++;
  }
  if (unjudged > 0)
    add("modified-protocol", `NL assertions not judged in ${unjudged} simulation(s) (no --judge-llm)`);
  return {
    comparable: deviations.length === 0,
    reasons: deviations.map((d) => d.reason),
    deviations,
  };
}

/** `τ²-comparable`, or `not τ²-comparable: <reasons>`. */
export function describeComparability(
  comparability: Pick<Tau2Comparability, "comparable" | "reasons">,
): string {
  return comparability.comparable
    ? "τ²-comparable"
    : `not τ²-comparable: ${comparability.reasons.join("; ")}`;
}
