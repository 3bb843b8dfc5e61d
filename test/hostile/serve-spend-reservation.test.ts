import { describe, expect, it } from "vitest";
import type { Agent } from "../../src/core/agent.js";
import { builtinDomains } from "../../src/domains/registry.js";
import type { AnyDomain } from "../../src/env/domain.js";
import { DomainData } from "../../src/formats/tau2/domain-data.js";
import { goldUser } from "../../src/users/gold-user.js";
import { createServer } from "../../src/server/create-server.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";

// F2-c: 25 parallel starts spent 416× a $0.05 daily cap, because a start only checked what was already
// spent. Each conversation now reserves an estimate, and running ones stop once the cap is reached.

const pricey: Agent = {
  name: "pricey",
  start: () => ({
    respond: async () => ({
      role: "assistant",
      content: "Sure, tell me more.",
      cost: 0.3,
      usage: { prompt_tokens: 100, completion_tokens: 10 },
    }),
  }),
};

function server(limits: { dailySpendCapUsd: number; conversationEstimateUsd?: number }) {
  let data: DomainData | undefined;
  return createServer({
    domains: builtinDomains,
    dataDir: tau2DataDir(),
    loadDomainData: (domain: AnyDomain, dir: string) => (data ??= new DomainData(domain, dir)),
    participants: {
      agents: ["test:pricey"],
      users: ["scripted:gold"],
      agentFor: () => pricey,
      customerFor: () => goldUser,
    },
    limits,
  });
}

const startHuman = (app: ReturnType<typeof server>) =>
  app.request("/api/conversations", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ domain: "mock", mode: "human" }),
  });

describe("passk serve: the daily spend cap under a burst", () => {
  it("a burst of 25 starts admits only what the cap can pay for; the rest get 429 spend_cap_committed", async () => {
    const app = server({ dailySpendCapUsd: 1, conversationEstimateUsd: 0.3 });
    const answers = await Promise.all(Array.from({ length: 25 }, () => startHuman(app)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    const refused = answers.find((a) => a.status === 429)!;
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({
      code: "spend_cap_committed",
      message: expect.stringMatching(/committed to the conversations already running/),
    });
  });

  it("the default estimate is the cap shared by --max-conversations (20): a 21st start is refused", async () => {
    const app = server({ dailySpendCapUsd: 1 });
    const answers = await Promise.all(Array.from({ length: 21 }, () => startHuman(app)));
    // 20 reserve $0.05 each; the busy limit and the reservation agree on the 21st.
    expect(answers.filter((a) => a.status === 201)).toHaveLength(20);
  });

  it("a running conversation stops at the model call that reaches the cap", async () => {
    const app = server({ dailySpendCapUsd: 0.5, conversationEstimateUsd: 0.1 });
    const started = (await (await startHuman(app)).json()) as { conversationId: string; ownerToken: string };
    const say = (content: string) =>
      app.request(`/api/conversations/${started.conversationId}/messages`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Passk-Owner-Token": started.ownerToken },
        body: JSON.stringify({ content }),
      });
    let spent = 0;
    for (let turn = 0; turn < 5; turn++) {
      const answer = await say(`turn ${turn}`);
      if (answer.status !== 200) break;
      await expect
        .poll(
          async () => ((await (await app.request("/api/budget")).json()) as { spentUsd: number }).spentUsd,
          {
            timeout: 30_000,
          },
        )
        .toBeGreaterThan(spent);
      spent = ((await (await app.request("/api/budget")).json()) as { spentUsd: number }).spentUsd;
      if (spent >= 0.5) break;
    }
    // Two $0.30 turns reach the cap; nothing beyond them is spent.
    expect(spent).toBeCloseTo(0.6, 10);
    expect((await say("after the cap")).status).not.toBe(200);
    const budget = (await (await app.request("/api/budget")).json()) as { spentUsd: number };
    expect(budget.spentUsd).toBeCloseTo(0.6, 10);
  });
});
