import { PythonSourceError } from "../../../python/py-source/errors.js";
import { readPythonModule, type PyModule } from "../../../python/py-source/module.js";

// The reference's prompt templates, read from its Python source: the agent instruction and system
// prompt templates of `src/tau2/agent/llm_agent.py` (normal, ground truth, solo, plus the solo agent's
// stop tool name, transfer tool name and stop token) and the user simulator's system prompt template
// of `src/tau2/user/user_simulator.py`. Placeholders (`{domain_policy}`…) are left as they are.

export const LLM_AGENT_FILE = "src/tau2/agent/llm_agent.py";
export const USER_SIMULATOR_FILE = "src/tau2/user/user_simulator.py";

// Type aliases (not interfaces) so that they are assignable to string-keyed records.
export type AgentPromptTemplates = {
  AGENT_INSTRUCTION: string;
  SYSTEM_PROMPT: string;
  AGENT_GT_INSTRUCTION: string;
  SYSTEM_PROMPT_GT: string;
  AGENT_SOLO_INSTRUCTION: string;
  SYSTEM_PROMPT_SOLO: string;
  solo_stop_function_name: string;
  solo_transfer_tool_name: string;
  solo_stop_token: string;
};

export type UserPromptTemplates = {
  SYSTEM_PROMPT: string;
};

export type PromptTemplates = {
  agent: AgentPromptTemplates;
  user: UserPromptTemplates;
};

function moduleString(module: PyModule, name: string): string {
  const value = module.assignments.get(name);
  if (value === undefined)
    throw new PythonSourceError(`${module.file}: the constant ${name} was not found`, module.file, name);
  if (value.kind !== "string")
    throw new PythonSourceError(
      `${module.file}: the constant ${name} is not a plain string literal`,
      module.file,
      name,
    );
  return value.value;
}

function classString(module: PyModule, className: string, name: string): string {
  const item = `${className}.${name}`;
  const owner = module.classes.find((c) => c.name === className);
  if (!owner)
    throw new PythonSourceError(`${module.file}: the class ${className} was not found`, module.file, item);
  const value = owner.constants.get(name);
  if (value === undefined)
    throw new PythonSourceError(`${module.file}: the constant ${item} was not found`, module.file, item);
  if (value.kind !== "string")
    throw new PythonSourceError(
      `${module.file}: the constant ${item} is not a plain string literal`,
      module.file,
      item,
    );
  return value.value;
}

/** The prompt templates of the reference's agent and user simulator modules. */
export function extractPromptTemplates(
  llmAgentSource: string,
  userSimulatorSource: string,
  files: { llmAgent?: string; userSimulator?: string } = {},
): PromptTemplates {
  const agent = readPythonModule(llmAgentSource, files.llmAgent ?? LLM_AGENT_FILE);
  const user = readPythonModule(userSimulatorSource, files.userSimulator ?? USER_SIMULATOR_FILE);
  return {
    agent: {
      AGENT_INSTRUCTION: moduleString(agent, "AGENT_INSTRUCTION"),
      SYSTEM_PROMPT: moduleString(agent, "SYSTEM_PROMPT"),
      AGENT_GT_INSTRUCTION: moduleString(agent, "AGENT_GT_INSTRUCTION"),
      SYSTEM_PROMPT_GT: moduleString(agent, "SYSTEM_PROMPT_GT"),
      AGENT_SOLO_INSTRUCTION: moduleString(agent, "AGENT_SOLO_INSTRUCTION"),
      SYSTEM_PROMPT_SOLO: moduleString(agent, "SYSTEM_PROMPT_SOLO"),
      solo_stop_function_name: classString(agent, "LLMSoloAgent", "STOP_FUNCTION_NAME"),
      solo_transfer_tool_name: classString(agent, "LLMSoloAgent", "TRANSFER_TOOL_NAME"),
      solo_stop_token: classString(agent, "LLMSoloAgent", "STOP_TOKEN"),
    },
    user: { SYSTEM_PROMPT: moduleString(user, "SYSTEM_PROMPT") },
  };
}
