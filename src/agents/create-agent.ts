import type { Agent } from "../core/agent.js";
import type { LlmToolSpec } from "../core/llm.js";
import { ConfigError } from "../core/errors.js";
import { createLanguageModel, type CreateLanguageModelOptions } from "../llm/index.js";
import type { AgentPromptTemplates } from "./agent-prompt.js";
import { goldAgent } from "./gold-agent.js";
import { llmAgent } from "./llm-agent.js";
import { isRemoteAgentSpec, remoteAgent } from "./remote/index.js";

export type ModelOptions = Omit<CreateLanguageModelOptions, "role">;

/** Keyless agents that need no model. */
export const SCRIPTED_AGENTS: Readonly<Record<string, Agent>> = { "scripted:gold": goldAgent };

/**
 * The agent for an `--agent-llm` spec: a scripted one (`scripted:gold`), a team's agent loaded from a
 * module (`module:<path>`) or running elsewhere (`a2a:URL`, `http:URL`: driven over A2A or passk's HTTP
 * session protocol, its tools served over MCP), or the LLM agent on `<provider>:<model>`. Configuration
 * problems (unknown provider, missing key, a malformed URL) are raised here, before any conversation
 * starts.
 */
export function createAgent(
  spec: string,
  options: ModelOptions & {
    templates?: AgentPromptTemplates;
    /** The solo agent's stop tool as the model sees it. */
    doneTool?: LlmToolSpec;
    /** Agents loaded from modules (`module:<path>` specs), by spec. */
    modules?: ReadonlyMap<string, Agent>;
    /** A remote agent's largest message in bytes (`--max-agent-message-bytes`). */
    maxAgentMessageBytes?: number;
  } = {},
): Agent {
  if (spec.startsWith("module:")) {
    const agent = options.modules?.get(spec);
    if (!agent)
      throw new ConfigError(`--agent-llm "${spec}": the module was not loaded (give its path after module:)`);
    return agent;
  }
  if (spec.startsWith("scripted:")) {
    const agent = SCRIPTED_AGENTS[spec];
    if (!agent)
      throw new ConfigError(
        `--agent-llm "${spec}" is not a scripted agent (known: ${Object.keys(SCRIPTED_AGENTS).join(", ")})`,
      );
    return agent;
  }
  if (isRemoteAgentSpec(spec)) {
    // The agent brings its own prompt and model; passk's timeout and retries apply to reaching it.
    return remoteAgent(spec, {
      ...(options.env ? { env: options.env } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.retry ? { retry: options.retry } : {}),
      ...(options.maxAgentMessageBytes !== undefined
        ? { maxMessageBytes: options.maxAgentMessageBytes }
        : {}),
    });
  }
  const { templates, doneTool, modules: _modules, maxAgentMessageBytes: _max, ...modelOptions } = options;
  return llmAgent(createLanguageModel(spec, { ...modelOptions, role: "agent" }), {
    ...(templates ? { templates } : {}),
    ...(doneTool ? { doneTool } : {}),
  });
}

export { isRemoteAgentSpec };

/** Is this participant spec a scripted demo (no model)? Outputs label such runs. */
export function isScriptedSpec(spec: string): boolean {
  return spec.startsWith("scripted:");
}
