import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskSchema } from "../src/core/task.js";
import { mockReply, startMockLlmServer, type MockLlmServer } from "../src/testing/index.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";

const dir = mkdtempSync(path.join(tmpdir(), "passk-judge-run-"));
const retailTasks = TaskSchema.array().parse(
  JSON.parse(readFileSync(path.join(tau2DataDir(), "retail", "tasks.json"), "utf8")),
);
const nlTasks = retailTasks.filter((t) => (t.evaluation_criteria?.nl_assertions?.length ?? 0) > 0);
/** What the scripted customer says first in a task's conversation. */
function firstWordsOf(taskId: string): string {
  const instructions = retailTasks.find((t) => t.id === taskId)!.user_scenario.instructions;
  return typeof instructions === "string" ? instructions : instructions.reason_for_call;
}
/** The judge fails the assertions of one task, so that a verdict visibly decides a reward. */
const FAILED_ASSERTION_TASK = nlTasks.find(
  (task) => nlTasks.filter((other) => firstWordsOf(other.id) === firstWordsOf(task.id)).length === 1,
)!.id;

/**
 * A judge model that reads the numbered expected outcomes of its prompt and meets them all, except
 * in the conversation of one task (told apart by the customer's first words, as scripted:gold plays them).
 */
let judge: MockLlmServer;
beforeAll(async () => {
  judge = await startMockLlmServer({
    script: (request) => {
      const prompt = request.messages.map((m) => (typeof m.content === "string" ? m.content : "")).join("\n");
      const outcomes = [...prompt.matchAll(/^\d+\. (.*)$/gm)].map((m) => m[1]!);
      const failing = prompt.includes(firstWordsOf(FAILED_ASSERTION_TASK));
      return mockReply.text(
        JSON.stringify({
          verdicts: outcomes.map((assertion) => ({
            assertion,
            met: !failing,
            reason: failing ? "The agent never said so." : "The agent did this.",
          })),
        }),
      );
    },
  });
});
afterAll(() => judge.close());

describe("passk run --judge-llm", () => {
  it("fully scores retail's NL-assertion tasks: one verdict per assertion, in the reward", async () => {
    expect(nlTasks).toHaveLength(40);
    const saveTo = path.join(dir, "retail-nl.json");
    const result = await runCliInProcess(
      [
        "run",
        "--domain",
        "retail",
        "--task-ids",
        ...nlTasks.map((t) => t.id),
        "--agent-llm",
        "scripted:gold",
        "--user-llm",
        "scripted:gold",
        "--judge-llm",
        "openai-compatible:mock-judge",
        "--judge-llm-base-url",
        judge.baseUrl,
        "--store",
        path.join(dir, "passk.db"),
        "--save-to",
        saveTo,
        "--progress",
        "none",
      ],
      { PASSK_DATA_DIR: tau2DataDir(), OPENAI_COMPATIBLE_API_KEY: "sk-judge" },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(judge.requests).toHaveLength(40);
    const file = JSON.parse(readFileSync(saveTo, "utf8")) as {
      simulations: Array<{
        task_id: string;
        reward_info: {
          reward: number;
          reward_breakdown: Record<string, number | null>;
          nl_assertions: Array<{ nl_assertion: string; met: boolean; justification: string }> | null;
        };
      }>;
    };
    expect(file.simulations).toHaveLength(40);
    for (const simulation of file.simulations) {
      const task = nlTasks.find((t) => t.id === simulation.task_id)!;
      const { reward_info: info } = simulation;
      expect(info.nl_assertions!.map((v) => v.nl_assertion)).toEqual(task.evaluation_criteria!.nl_assertions);
      const allMet = simulation.task_id !== FAILED_ASSERTION_TASK;
      expect(info.reward_breakdown.NL_ASSERTION, simulation.task_id).toBe(allMet ? 1 : 0);
      // The gold trajectory passes every other check, so the judge's verdicts decide the reward.
      expect(info.reward, simulation.task_id).toBe(allMet ? 1 : 0);
    }
    expect(
      file.simulations.find((s) => s.task_id === FAILED_ASSERTION_TASK)!.reward_info.nl_assertions![0],
    ).toMatchObject({ met: false, justification: "The agent never said so." });
  });
});
