import type { ResultsInput } from "../formats/tau2/results.js";

export interface RunInfoOptions {
  domain: string;
  policy: string;
  agent: { name: string; llm: string | null; llmArgs: Record<string, unknown> };
  user: { name: string; llm: string | null; llmArgs: Record<string, unknown>; guidelines: string | null };
  numTrials: number;
  maxSteps: number;
  maxErrors: number;
  seed: number;
  /** Recorded as `git_commit` (τ² records its own commit; passk records its version). */
  version: string;
  /** passk's own section: run id, configuration, scripted-demo notice. τ²'s loader ignores it. */
  passk: Record<string, unknown>;
}

/**
 * τ² `Info` of a run, with τ²'s fields in τ²'s order (the results writer puts them in order again):
 * what `tau2 run` records about the agent, the user simulator and the environment. Tool definitions
 * are left out, as τ² does.
 */
export function runInfo(options: RunInfoOptions): ResultsInput["info"] {
  return {
    git_commit: options.version,
    num_trials: options.numTrials,
    max_steps: options.maxSteps,
    max_errors: options.maxErrors,
    user_info: {
      implementation: options.user.name,
      llm: options.user.llm,
      llm_args: options.user.llmArgs,
      global_simulation_guidelines: options.user.guidelines,
    },
    agent_info: {
      implementation: options.agent.name,
      llm: options.agent.llm,
      llm_args: options.agent.llmArgs,
    },
    environment_info: { domain_name: options.domain, policy: options.policy, tool_defs: null },
    seed: options.seed,
    passk: options.passk,
  };
}

/** Who played one side of a run as its τ² info records it: the model (`llm`), else the implementation. */
export function participantOf(
  info: Record<string, unknown> | null,
  side: "agent_info" | "user_info",
): string | null {
  const part = info?.[side] as { llm?: unknown; implementation?: unknown } | null | undefined;
  return typeof part?.llm === "string"
    ? part.llm
    : typeof part?.implementation === "string"
      ? part.implementation
      : null;
}
