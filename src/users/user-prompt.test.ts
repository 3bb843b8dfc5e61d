import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { builtinDomains } from "../domains/registry.js";
import { DomainData } from "../formats/tau2/domain-data.js";
import { readFixtureJson, tau2DataDir } from "../testing/tau2-fixtures.js";
import { scenarioText, userSystemPrompt } from "./user-prompt.js";

interface Example {
  task_id: string;
  user_has_tools: boolean;
  instructions_str: string;
  system_prompt: string;
}
const examples = readFixtureJson<Record<string, Example>>(
  "fixtures/prompts/user_system_prompt_examples.json",
);
const domains = Object.keys(examples).filter((d) => builtinDomains.has(d));

describe("user simulator system prompt", () => {
  it.each(domains)("equals τ²'s for the first task of %s", (name) => {
    const example = examples[name]!;
    const data = new DomainData(builtinDomains.get(name)!, tau2DataDir());
    const task = data.task(example.task_id);
    expect(scenarioText(task.user_scenario)).toBe(example.instructions_str);
    const file = example.user_has_tools ? "simulation_guidelines_tools.md" : "simulation_guidelines.md";
    const guidelines = readFileSync(path.join(tau2DataDir(), "user_simulator", file), "utf8");
    expect(userSystemPrompt({ guidelines, scenario: task.user_scenario })).toBe(example.system_prompt);
  });
});
