/**
 * What perturbations cost the harness: every airline task played in process by the scripted gold agent
 * and customer (no model, no HTTP: the harness alone), against the work `tool-faults:rate=0.2`,
 * `tool-injection` and `persona` add to the same conversations (their seeded draws, every agent tool
 * call through the boundary, the injection check), one core, warm, median of 5 passes.
 *
 * Usage: node --import tsx bench/perturbations.ts   (run by `npm run bench`)
 */
import os from "node:os";
import { goldAgent } from "../src/agents/gold-agent.js";
import type { ToolCall } from "../src/core/message.js";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { runSimulation } from "../src/orchestrator/simulate.js";
import { perturbConversation } from "../src/perturbations/perturb-conversation.js";
import { createPerturbationRegistry } from "../src/perturbations/registry.js";
import { conversationSetup } from "../src/runner/simulation-setup.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { goldUser } from "../src/users/gold-user.js";

const PASSES = 5;
const data = new DomainData(builtinDomains.get("airline")!, tau2DataDir());
const registry = createPerturbationRegistry();
const perturbations = ["tool-faults:rate=0.2", "tool-injection", "persona"].map((s) => registry.resolve(s));

/** The clean conversations, played once: their agent tool calls with what the world answered. */
async function cleanConversations() {
  const played = [];
  for (const task of data.tasks) {
    const run = await runSimulation(
      conversationSetup({ data, task, agent: goldAgent, user: goldUser, seed: 300 }),
    );
    const calls: Array<{ call: ToolCall; content: string; error: boolean }> = [];
    run.messages.forEach((message, i) => {
      if (message.role !== "tool" || message.requestor !== "assistant") return;
      const caller = run.messages
        .slice(0, i)
        .reverse()
        .find((m) => m.role === "assistant" && m.tool_calls);
      const call =
        caller?.role === "assistant" ? caller.tool_calls?.find((c) => c.id === message.id) : undefined;
      if (call) calls.push({ call, content: message.content ?? "", error: message.error });
    });
    played.push({ task, calls, messages: run.messages });
  }
  return played;
}

/** One pass: the harness plays every task (clean), or the perturbations meet every recorded call. */
async function pass(
  played: Awaited<ReturnType<typeof cleanConversations>>,
  what: "harness" | "perturbations",
): Promise<number> {
  const start = performance.now();
  for (const { task, calls, messages } of played) {
    if (what === "harness") {
      await runSimulation(conversationSetup({ data, task, agent: goldAgent, user: goldUser, seed: 300 }));
      continue;
    }
    const conversation = perturbConversation(perturbations, { task, seed: 300 });
    const boundary = conversation.toolBoundary!;
    for (const { call, content, error } of calls) {
      const info = {
        mutatesState: data.domain.agent.tools.some((t) => t.name === call.name && t.kind === "write"),
      };
      if (!boundary.before(call, info)) boundary.after(call, info, { content, error });
    }
    conversation.violations(messages);
  }
  return performance.now() - start;
}

const played = await cleanConversations();
const toolCalls = played.reduce((sum, p) => sum + p.calls.length, 0);
const median = async (what: "harness" | "perturbations") => {
  await pass(played, what);
  const passes: number[] = [];
  for (let i = 0; i < PASSES; i++) passes.push(await pass(played, what));
  return passes.sort((a, b) => a - b)[Math.floor(PASSES / 2)]!;
};
const harnessMs = await median("harness");
const perturbationsMs = await median("perturbations");
console.log(
  JSON.stringify({
    bench: "perturbations",
    domain: "airline",
    conversations: played.length,
    agent_tool_calls: toolCalls,
    perturbations: perturbations.map((p) => p.spec),
    harness_ms_per_conversation: Number((harnessMs / played.length).toFixed(3)),
    perturbations_us_per_conversation: Number(((perturbationsMs / played.length) * 1000).toFixed(1)),
    perturbations_us_per_tool_call: Number(((perturbationsMs / toolCalls) * 1000).toFixed(2)),
    share_of_harness_time: Number((perturbationsMs / harnessMs).toFixed(4)),
    load_average: os.loadavg().map((l) => Number(l.toFixed(2))),
  }),
);
