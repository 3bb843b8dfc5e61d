import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { builtinDomains } from "../domains/registry.js";
import { DomainData } from "../formats/tau2/domain-data.js";
import { referenceTextMatches, tau2DataDir } from "../testing/tau2-fixtures.js";
import { scenarioText, userSystemPrompt } from "./user-prompt.js";

interface Example {
  task_id: string;
  user_has_tools: boolean;
  instructions_str: string;
  system_prompt: string;
}
const EXAMPLES = "fixtures/prompts/user_system_prompt_examples.json";
const example = (f: { json<T>(file: string): T }, name: string) =>
  f.json<Record<string, Example>>(EXAMPLES)[name]!;

// The reference's example for each domain is its first task; telecom's user has tools.
const cases = [
  { name: "mock", task: "create_task_1", tools: true },
  { name: "airline", task: "0", tools: false },
  { name: "retail", task: "0", tools: false },
  { name: "telecom", task: "[mobile_data_issue]user_abroad_roaming_enabled_off[PERSONA:None]", tools: true },
];

describe("user simulator system prompt", () => {
  it.each(cases)("equals τ²'s for the first task of $name", ({ name, task: taskId, tools }) => {
    const data = new DomainData(builtinDomains.get(name)!, tau2DataDir());
    const task = data.task(taskId);
    const scenario = referenceTextMatches(
      scenarioText(task.user_scenario),
      `${EXAMPLES}#${name}.instructions_str`,
      (f) => {
        expect(example(f, name).task_id).toBe(taskId);
        expect(example(f, name).user_has_tools).toBe(tools);
        return example(f, name).instructions_str;
      },
    );
    expect(scenario.equal, scenario.message).toBe(true);
    const file = tools ? "simulation_guidelines_tools.md" : "simulation_guidelines.md";
    const guidelines = readFileSync(path.join(tau2DataDir(), "user_simulator", file), "utf8");
    const prompt = referenceTextMatches(
      userSystemPrompt({ guidelines, scenario: task.user_scenario }),
      `${EXAMPLES}#${name}.system_prompt`,
      (f) => example(f, name).system_prompt,
    );
    expect(prompt.equal, prompt.message).toBe(true);
  });
});
