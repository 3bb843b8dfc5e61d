/**
 * What prompt caching saves on τ²'s airline domain: every task of the base split, one conversation each,
 * played by the gold script (src/testing/gold-model.ts: the agent makes the task's gold tool calls, then
 * answers; the customer opens and stops) under the τ² protocol — the reference's prompt and tool texts,
 * temperature 0 — against the in-process mock server, which estimates tokens from the prompt's size
 * (4 characters a token) and simulates each provider's cache (src/testing/mock-llm-prompt-cache.ts).
 *
 * - Anthropic (`anthropic:claude-sonnet-4-5`, both sides): with passk's cache breakpoints (the default)
 *   and without them (`--no-prompt-cache`).
 * - OpenAI (`openai:gpt-4.1`, both sides): OpenAI caches prefixes of 1024 tokens or more on its own; the
 *   baseline is the same mock with its cache simulation off (a provider that caches nothing).
 *
 * Costs are the price table's (@pydantic/genai-prices) rates for those models, as a run records them.
 * Conversations run one after another on one mock, as a run's conversations share one provider cache.
 * Prints one JSON line per run and one per ratio. No network, no model.
 *
 * Usage: node --import tsx bench/prompt-caching.ts [tasks=all of the base split]
 */
import type { SimulationRun } from "../src/core/simulation.js";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { tokenUsage } from "../src/metrics/token-usage.js";
import { runSimulation } from "../src/orchestrator/simulate.js";
import { buildParticipants } from "../src/runner/build.js";
import { conversationSetup } from "../src/runner/simulation-setup.js";
import { goldScript, startMockLlmServer } from "../src/testing/index.js";
import { tau2DataDir, tau2UpstreamDir } from "../src/testing/tau2-fixtures.js";

const dataDir = tau2DataDir();
const data = new DomainData(builtinDomains.get("airline")!, dataDir);
const base = new Set(data.splits?.base ?? data.tasks.map((task) => task.id));
const limit = Number(process.argv[2] ?? base.size);
const tasks = data.tasks.filter((task) => base.has(task.id)).slice(0, limit);
const upstream = tau2UpstreamDir();
const env = { ANTHROPIC_API_KEY: "bench-key-0123456789", OPENAI_API_KEY: "bench-key-0123456789" };

interface Figure {
  bench: "prompt-caching";
  model: string;
  caching: boolean;
  conversations: number;
  /** Conversations the customer ended (the gold script played to its end). */
  ended_by_customer: number;
  model_calls: number;
  input_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  /** Prompt tokens neither read from nor written to the cache: billed at the full input rate. */
  input_tokens_billed_full: number;
  output_tokens: number;
  cost_usd: number;
  cost_usd_per_conversation: number;
}

async function measure(model: string, caching: boolean): Promise<Figure> {
  // The OpenAI baseline is a provider without a cache; Anthropic's is the same cache, sent no markers.
  const server = await startMockLlmServer({
    script: [],
    recordRequests: false,
    promptCache: caching || model.startsWith("anthropic:"),
  });
  // τ²'s protocol: the reference's prompts and done tool, temperature 0; no retries.
  const { agent, user, protocol } = buildParticipants({
    agent: { model, baseUrl: server.baseUrl },
    user: { model, baseUrl: server.baseUrl },
    protocol: "tau2",
    upstream,
    dataDir,
    domains: [data.domain],
    env,
    maxAttempts: 1,
    promptCache: caching,
  });
  const runs: SimulationRun[] = [];
  for (const [trial, task] of tasks.entries()) {
    server.setScript(goldScript(task));
    runs.push(
      await runSimulation(conversationSetup({ data, task, agent, user, protocol, seed: trial, trial })),
    );
  }
  await server.close();
  const usage = tokenUsage(
    runs.map((run) => ({ ...run, domain: "airline" })),
    { agent: null, user: null },
  ).total;
  const sum = (key: "calls" | "input" | "cache_read" | "cache_write" | "output") =>
    usage.agent[key] + usage.user[key];
  if (usage.cost === null) throw new Error(`${model} has no price in the table`);
  return {
    bench: "prompt-caching",
    model,
    caching,
    conversations: runs.length,
    ended_by_customer: runs.filter((run) => run.termination_reason === "user_stop").length,
    model_calls: sum("calls"),
    input_tokens: sum("input"),
    cache_read_tokens: sum("cache_read"),
    cache_write_tokens: sum("cache_write"),
    input_tokens_billed_full: sum("input") - sum("cache_read") - sum("cache_write"),
    output_tokens: sum("output"),
    cost_usd: Number(usage.cost.toFixed(6)),
    cost_usd_per_conversation: Number((usage.cost / runs.length).toFixed(6)),
  };
}

for (const model of ["anthropic:claude-sonnet-4-5", "openai:gpt-4.1"]) {
  const without = await measure(model, false);
  const cached = await measure(model, true);
  console.log(JSON.stringify(without));
  console.log(JSON.stringify(cached));
  console.log(
    JSON.stringify({
      bench: "prompt-caching-ratio",
      model,
      conversations: cached.conversations,
      cost_ratio: Number((cached.cost_usd / without.cost_usd).toFixed(3)),
      cost_lower_by: Number((1 - cached.cost_usd / without.cost_usd).toFixed(3)),
      input_billed_full_ratio: Number(
        (cached.input_tokens_billed_full / without.input_tokens_billed_full).toFixed(3),
      ),
    }),
  );
}
