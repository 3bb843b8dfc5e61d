import { describe, expect, it } from "vitest";
import { goldAgent } from "../agents/gold-agent.js";
import type { Judge } from "../core/judge.js";
import { builtinDomains } from "../domains/registry.js";
import { DomainData } from "../formats/tau2/domain-data.js";
import { tau2DataDir } from "../testing/tau2-fixtures.js";
import { goldUser } from "../users/gold-user.js";
import { conversationJob } from "./conversation-job.js";
import { simulationCost } from "../metrics/simulation-cost.js";

describe("conversationJob", () => {
  it("records the NL judge's cost with the reward and counts it in the conversation's cost", async () => {
    const data = new DomainData(builtinDomains.get("retail")!, tau2DataDir());
    const task = data.tasks.find((t) => (t.evaluation_criteria?.nl_assertions?.length ?? 0) > 0)!;
    const judge: Judge = {
      judge: async ({ assertions, onCost }) => {
        onCost?.(0.002);
        onCost?.(0.001);
        return assertions.map((a) => ({ nl_assertion: a, met: true, justification: "said so" }));
      },
    };
    const reported: Array<number | null> = [];
    const run = await conversationJob({
      domains: new Map([["retail", { data, tasks: new Map([[task.id, task]]) }]]),
      agent: goldAgent,
      user: goldUser,
      judge,
    })({
      job: {
        runId: "r",
        domain: "retail",
        taskId: task.id,
        trial: 0,
        attempt: 1,
        workerId: "w",
        leaseExpiresAt: "2099-01-01T00:00:00.000Z",
      },
      seed: 1,
      signal: new AbortController().signal,
      reportCost: (cost) => reported.push(cost),
    });
    expect(run.reward_info?.reward_breakdown).toMatchObject({ NL_ASSERTION: 1 });
    expect(run.reward_info?.info).toMatchObject({ judge_cost: 0.003 });
    expect(simulationCost(run)).toBeCloseTo((run.agent_cost ?? 0) + (run.user_cost ?? 0) + 0.003, 12);
    expect(reported.at(-1)).toBeCloseTo(0.003, 12);
  });
});
