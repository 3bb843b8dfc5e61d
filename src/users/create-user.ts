import { readFileSync } from "node:fs";
import path from "node:path";
import type { UserSimulator } from "../core/agent.js";
import { ConfigError } from "../core/errors.js";
import { createLanguageModel } from "../llm/index.js";
import type { ModelOptions } from "../agents/create-agent.js";
import { goldUser } from "./gold-user.js";
import { llmUser, type LlmUserOptions } from "./llm-user.js";

export const SCRIPTED_USERS: Readonly<Record<string, UserSimulator>> = { "scripted:gold": goldUser };

/** The simulation guidelines from a τ² data directory (`user_simulator/`). */
export function readUserGuidelines(dataDir: string): LlmUserOptions {
  const read = (file: string) => {
    const full = path.join(dataDir, "user_simulator", file);
    try {
      return readFileSync(full, "utf8");
    } catch {
      throw new ConfigError(
        `the user simulator guidelines ${full} are missing; run \`passk data pull\` or fix --data`,
      );
    }
  };
  return {
    guidelines: read("simulation_guidelines.md"),
    guidelinesWithTools: read("simulation_guidelines_tools.md"),
  };
}

/**
 * The customer spec a conversation with `agentSpec` gets. The scripted customer (`scripted:gold`)
 * follows the gold agent's script and answers anything else with "Please go on." until the step limit —
 * reward 0, no error — so it is the default only for the scripted agent; any other agent (a model, your
 * module, an `a2a:`/`http:` service) must be given a customer, or `scripted:gold` chosen explicitly.
 * Solo conversations have no customer.
 */
export function customerSpecFor(agentSpec: string, userSpec: string | undefined, solo = false): string {
  if (userSpec !== undefined) return userSpec;
  if (solo || agentSpec.startsWith("scripted:")) return "scripted:gold";
  throw new ConfigError(
    `--agent-llm ${agentSpec} needs a customer that can answer it: pass --user-llm <provider>:<model> ` +
      `(e.g. --user-llm openai:gpt-4.1), since the default scripted customer only follows scripted:gold's gold path ` +
      `and would score every task 0.`,
  );
}

/** The simulated customer for a `--user-llm` spec: scripted (`scripted:gold`) or an LLM. */
export function createUserSimulator(
  spec: string,
  options: ModelOptions & { guidelines: LlmUserOptions | (() => LlmUserOptions) },
): UserSimulator {
  if (spec.startsWith("scripted:")) {
    const user = SCRIPTED_USERS[spec];
    if (!user)
      throw new ConfigError(
        `--user-llm "${spec}" is not a scripted user (known: ${Object.keys(SCRIPTED_USERS).join(", ")})`,
      );
    return user;
  }
  const { guidelines, ...modelOptions } = options;
  return llmUser(
    createLanguageModel(spec, { ...modelOptions, role: "user" }),
    typeof guidelines === "function" ? guidelines() : guidelines,
  );
}
