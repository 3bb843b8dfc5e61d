import type { Judge } from "../core/judge.js";
import { createLanguageModel } from "../llm/index.js";
import type { ModelOptions } from "../agents/create-agent.js";
import { llmJudge } from "./llm-judge.js";

/** The NL-assertion judge for a `--judge-llm` spec. */
export function createJudge(spec: string, options: ModelOptions = {}): Judge {
  return llmJudge(createLanguageModel(spec, { ...options, role: "judge" }));
}
