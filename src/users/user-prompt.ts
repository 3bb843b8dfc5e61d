import type { StructuredUserInstructions, UserScenario } from "../core/task.js";
import { pyFormat } from "../python/py-str-format.js";

/** Python `textwrap.indent(text, prefix)`: prefix every line that is not only whitespace. */
function indent(text: string, prefix = "\t"): string {
  return text
    .split(/(?<=\n)/)
    .map((line) => (line.trim() === "" ? line : prefix + line))
    .join("");
}

function instructionsText(instructions: StructuredUserInstructions | string): string {
  if (typeof instructions === "string") return instructions;
  const lines = [
    `Domain: ${instructions.domain}`,
    `Reason for call:\n${indent(instructions.reason_for_call)}`,
  ];
  if (instructions.known_info !== null) lines.push(`Known info:\n${indent(instructions.known_info)}`);
  if (instructions.unknown_info !== null) lines.push(`Unknown info:\n${indent(instructions.unknown_info)}`);
  lines.push(`Task instructions:\n${indent(instructions.task_instructions)}`);
  return lines.join("\n");
}

/** The scenario as τ² renders it for the user simulator (`str(UserScenario)`). */
export function scenarioText(scenario: UserScenario): string {
  const lines: string[] = [];
  if (scenario.persona !== null) lines.push("Persona:", indent(scenario.persona));
  lines.push("Instructions:", indent(instructionsText(scenario.instructions)));
  return lines.join("\n");
}

/**
 * The user simulator's system prompt: the simulation guidelines (the with-tools variant when the
 * customer has tools), then the hidden scenario — laid out by `template` when given (τ²'s, with
 * `{global_user_sim_guidelines_with_persona}` and `{instructions}`), else by passk's own layout.
 */
export function userSystemPrompt(options: {
  guidelines: string;
  scenario: UserScenario;
  template?: string;
}): string {
  const scenario = scenarioText(options.scenario);
  if (options.template === undefined) return `${options.guidelines}\n\n<scenario>\n${scenario}\n</scenario>`;
  return pyFormat(options.template, {
    global_user_sim_guidelines_with_persona: options.guidelines,
    instructions: scenario,
  });
}
