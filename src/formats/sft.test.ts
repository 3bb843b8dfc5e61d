import { describe, expect, it } from "vitest";
import { sftExport } from "./sft.js";
import type { ResultsInput } from "./tau2/results.js";

const simulation = (id: string, taskId: string, reward: number) => ({
  id,
  task_id: taskId,
  trial: 0,
  start_time: "",
  end_time: "",
  duration: 1,
  termination_reason: "user_stop" as const,
  reward_info: { reward },
  messages: [
    { role: "assistant" as const, content: "Hi! How can I help you today?" },
    { role: "user" as const, content: "My phone has no data." },
    {
      role: "assistant" as const,
      content: null,
      tool_calls: [{ id: "a1", name: "get_line", arguments: { n: 1 } }],
    },
    { role: "tool" as const, id: "a1", content: '{"line": 1}', requestor: "assistant" as const },
    { role: "assistant" as const, content: "Please toggle airplane mode." },
    // The customer's own device: not what the agent sees.
    {
      role: "user" as const,
      content: null,
      tool_calls: [{ id: "u1", name: "toggle_airplane_mode", arguments: {}, requestor: "user" as const }],
    },
    { role: "tool" as const, id: "u1", content: "Airplane mode off", requestor: "user" as const },
    { role: "user" as const, content: "Done, it works. ###STOP###" },
  ],
});

const results = (sims: ReturnType<typeof simulation>[]): ResultsInput => ({
  info: { environment_info: { domain_name: "telecom", policy: "POLICY" } },
  tasks: [],
  simulations: sims,
});

describe("sftExport", () => {
  it("keeps only passing conversations, as the agent saw them", () => {
    const exported = sftExport(results([simulation("s1", "t1", 1), simulation("s2", "t2", 0)]));
    expect(exported.passing).toBe(1);
    expect(exported.examples).toHaveLength(1);
    expect(exported.examples[0]!.messages).toEqual([
      { role: "system", content: "POLICY" },
      { role: "assistant", content: "Hi! How can I help you today?" },
      { role: "user", content: "My phone has no data." },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "a1", type: "function", function: { name: "get_line", arguments: '{"n":1}' } }],
      },
      { role: "tool", tool_call_id: "a1", content: '{"line": 1}' },
      { role: "assistant", content: "Please toggle airplane mode." },
      { role: "user", content: "Done, it works. ###STOP###" },
    ]);
  });

  it("leaves out test-split tasks unless asked, and other splits when one is named", () => {
    const sims = [simulation("s1", "train-1", 1), simulation("s2", "test-1", 1)];
    const splits = { train: ["train-1"], test: ["test-1"] };
    expect(sftExport(results(sims), { splits })).toMatchObject({ leftOutTestSplit: 1, passing: 2 });
    expect(sftExport(results(sims), { splits, includeTestSplit: true }).examples).toHaveLength(2);
    expect(sftExport(results(sims), { splits, split: "train", includeTestSplit: true })).toMatchObject({
      leftOutOtherSplits: 1,
    });
  });
});
