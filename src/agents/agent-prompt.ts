import { z } from "zod";
import { AGENT_STOP_TOKEN } from "../core/agent.js";
import { readJsonFile } from "../core/json-file.js";
import { pyFormat } from "../python/py-str-format.js";

/**
 * Agent prompt templates in the format of τ²'s `prompt_templates.json` (`agent` section). Passing the
 * reference's file (`--agent-prompt-template`) reproduces its system prompt byte for byte.
 */
export const AgentPromptTemplatesSchema = z.looseObject({
  agent: z.looseObject({
    AGENT_INSTRUCTION: z.string(),
    SYSTEM_PROMPT: z.string(),
    AGENT_SOLO_INSTRUCTION: z.string().optional(),
    SYSTEM_PROMPT_SOLO: z.string().optional(),
    solo_stop_function_name: z.string().optional(),
  }),
});
export type AgentPromptTemplates = z.infer<typeof AgentPromptTemplatesSchema>["agent"];

/** passk's own wording of the agent instructions (the reference's layout: instructions, then policy). */
export const DEFAULT_AGENT_TEMPLATES: AgentPromptTemplates = {
  AGENT_INSTRUCTION: [
    "You are a customer service agent. Help the customer, and follow the <policy> below at all times.",
    "On each turn, do exactly one of these:",
    "- write a message to the customer, or",
    "- call one or more tools.",
    "Never do both in the same turn.",
    "",
    "Look facts up with the tools instead of guessing, and refuse what the policy does not allow. Tool arguments must be valid JSON.",
  ].join("\n"),
  SYSTEM_PROMPT: "<instructions>\n{agent_instruction}\n</instructions>\n<policy>\n{domain_policy}\n</policy>",
  AGENT_SOLO_INSTRUCTION: [
    "You are a customer service agent working on a support ticket, following the <policy> below.",
    "There is no customer to talk to: solve the ticket only by calling tools.",
    "When the ticket is solved, send one message whose only tool call is `{stop_function_name}`.",
    "",
    "Always follow the policy. Tool arguments must be valid JSON.",
  ].join("\n"),
  SYSTEM_PROMPT_SOLO:
    "<instructions>\n{agent_instruction}\n</instructions>\n<policy>\n{domain_policy}\n</policy>\n<ticket>\n{ticket}\n</ticket>",
  solo_stop_function_name: "done",
};

export function readAgentPromptTemplates(file: string): AgentPromptTemplates {
  const { agent } = readJsonFile(file, AgentPromptTemplatesSchema, {
    syntax: "give a JSON file in the format of τ²'s prompt_templates.json.",
    schema:
      'expected {"agent": {"AGENT_INSTRUCTION": …, "SYSTEM_PROMPT": "…{agent_instruction}…{domain_policy}…"}}.',
  });
  return { ...DEFAULT_AGENT_TEMPLATES, ...agent };
}

/** The agent's system prompt: instructions and policy (and the ticket in solo mode). */
export function agentSystemPrompt(options: {
  policy: string;
  templates?: AgentPromptTemplates;
  solo?: boolean;
  ticket?: string | null;
}): string {
  const t = options.templates ?? DEFAULT_AGENT_TEMPLATES;
  if (options.solo) {
    const stop = t.solo_stop_function_name ?? "done";
    const instruction = pyFormat(
      t.AGENT_SOLO_INSTRUCTION ?? DEFAULT_AGENT_TEMPLATES.AGENT_SOLO_INSTRUCTION!,
      {
        stop_function_name: stop,
        stop_token: AGENT_STOP_TOKEN,
      },
    );
    return pyFormat(t.SYSTEM_PROMPT_SOLO ?? DEFAULT_AGENT_TEMPLATES.SYSTEM_PROMPT_SOLO!, {
      agent_instruction: instruction,
      domain_policy: options.policy,
      ticket: options.ticket ?? "",
    });
  }
  return pyFormat(t.SYSTEM_PROMPT, { agent_instruction: t.AGENT_INSTRUCTION, domain_policy: options.policy });
}
