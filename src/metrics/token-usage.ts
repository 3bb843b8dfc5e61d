/**
 * Tokens and cost of conversations, and what the providers' prompt caches saved: pure functions over
 * the usage each model call recorded on its message (`usage.prompt_tokens`, `completion_tokens`,
 * `cache_read_tokens`, `cache_write_tokens`).
 */

/** What this module reads of a message: its role and the usage of the model call that wrote it. */
export interface UsageMessage {
  role: string;
  usage?: {
    prompt_tokens?: number | undefined;
    completion_tokens?: number | undefined;
    cache_read_tokens?: number | undefined;
    cache_write_tokens?: number | undefined;
  } | null;
}

/** What this module reads of a simulation (a τ² `SimulationRun`). */
export interface UsageSimulation {
  domain: string;
  task_id: string;
  trial?: number | null;
  agent_cost?: number | null;
  user_cost?: number | null;
  messages: readonly UsageMessage[];
}

/** Token counts of model calls. */
export interface TokenCounts {
  /** Model calls that reported usage. */
  calls: number;
  /** Every prompt token, those read from and written to the prompt cache included. */
  input: number;
  /** Of `input`, read from the provider's prompt cache. */
  cache_read: number;
  /** Of `input`, written to the provider's prompt cache. */
  cache_write: number;
  output: number;
}

/** USD per million tokens of one model, as the price table gives them (`modelPricing`). */
export interface TokenRates {
  input_mtok: number;
  cache_read_mtok: number;
  cache_write_mtok: number;
}

/** The rates of the agent's model and of the customer's; null where a model has no price. */
export interface ParticipantRates {
  agent: TokenRates | null;
  user: TokenRates | null;
}

/** One conversation's tokens and cost. */
export interface ConversationUsage {
  domain: string;
  task_id: string;
  trial: number | null;
  /** The agent's model calls (`assistant` messages). */
  agent: TokenCounts;
  /** The simulated customer's model calls (`user` messages). */
  user: TokenCounts;
  /** USD: the agent's and the customer's cost; null when either is unknown. */
  cost: number | null;
  /** USD saved by the prompt cache (see {@link cachingSaving}); null when it cannot be priced. */
  caching_saving: number | null;
}

/** Means over conversations (null when some conversation's value is unknown), and totals. */
export interface TokenUsageSummary {
  conversations: number;
  /** Means per conversation. */
  mean: {
    agent: TokenCounts;
    user: TokenCounts;
    cost: number | null;
    caching_saving: number | null;
  };
  total: {
    agent: TokenCounts;
    user: TokenCounts;
    cost: number | null;
    caching_saving: number | null;
    /**
     * `caching_saving` as a share of what the conversations would have cost without the cache
     * (`cost + caching_saving`); null when either is unknown or nothing was spent.
     */
    saving_share: number | null;
  };
  per_conversation: ConversationUsage[];
}

const EMPTY: TokenCounts = { calls: 0, input: 0, cache_read: 0, cache_write: 0, output: 0 };

/** The tokens of the model calls behind the messages of one role (`assistant` or `user`). */
export function roleTokens(messages: readonly UsageMessage[], role: "assistant" | "user"): TokenCounts {
  const counts = { ...EMPTY };
  for (const message of messages) {
    if (message.role !== role || !message.usage) continue;
    counts.calls++;
    counts.input += message.usage.prompt_tokens ?? 0;
    counts.output += message.usage.completion_tokens ?? 0;
    counts.cache_read += message.usage.cache_read_tokens ?? 0;
    counts.cache_write += message.usage.cache_write_tokens ?? 0;
  }
  return counts;
}

/**
 * USD the prompt cache saved on these tokens: what the cached tokens would have cost at the full input
 * rate minus what they cost — reads at the cache-read rate save, writes at a cache-write rate above the
 * input rate (Anthropic: 1.25×) cost extra, so the saving can be negative. 0 when nothing was cached,
 * whatever the price; null when something was and the model has no price.
 *
 * @example cachingSaving({ ...counts, cache_read: 1_000_000 }, { input_mtok: 3, cache_read_mtok: 0.3, cache_write_mtok: 3.75 }) // 2.7
 */
export function cachingSaving(tokens: TokenCounts, rates: TokenRates | null): number | null {
  if (tokens.cache_read === 0 && tokens.cache_write === 0) return 0;
  if (rates === null) return null;
  return (
    (tokens.cache_read * (rates.input_mtok - rates.cache_read_mtok) +
      tokens.cache_write * (rates.input_mtok - rates.cache_write_mtok)) /
    1e6
  );
}

/** One conversation's tokens, cost and caching saving. */
export function conversationUsage(simulation: UsageSimulation, rates: ParticipantRates): ConversationUsage {
  const agent = roleTokens(simulation.messages, "assistant");
  const user = roleTokens(simulation.messages, "user");
  const agentSaving = cachingSaving(agent, rates.agent);
  const userSaving = cachingSaving(user, rates.user);
  const agentCost = simulation.agent_cost ?? null;
  const userCost = simulation.user_cost ?? null;
  return {
    domain: simulation.domain,
    task_id: simulation.task_id,
    trial: simulation.trial ?? null,
    agent,
    user,
    cost: agentCost === null || userCost === null ? null : agentCost + userCost,
    caching_saving: agentSaving === null || userSaving === null ? null : agentSaving + userSaving,
  };
}

/**
 * Tokens and cost per conversation, their means and totals, and what the prompt cache saved.
 *
 * @example
 * const usage = tokenUsage(results.simulations.map((s) => ({ ...s, domain: "airline" })), { agent: sonnet, user: sonnet });
 * usage.mean.agent.cache_read; usage.total.saving_share;
 */
export function tokenUsage(
  simulations: readonly UsageSimulation[],
  rates: ParticipantRates,
): TokenUsageSummary {
  const perConversation = simulations.map((simulation) => conversationUsage(simulation, rates));
  const n = perConversation.length;
  const agent = sumCounts(perConversation.map((c) => c.agent));
  const user = sumCounts(perConversation.map((c) => c.user));
  const cost = sumKnown(perConversation.map((c) => c.cost));
  const saving = sumKnown(perConversation.map((c) => c.caching_saving));
  const withoutCache = cost === null || saving === null ? null : cost + saving;
  return {
    conversations: n,
    mean: {
      agent: divideCounts(agent, n),
      user: divideCounts(user, n),
      cost: cost === null || n === 0 ? null : cost / n,
      caching_saving: saving === null || n === 0 ? null : saving / n,
    },
    total: {
      agent,
      user,
      cost,
      caching_saving: saving,
      saving_share:
        withoutCache === null || saving === null || withoutCache <= 0 ? null : saving / withoutCache,
    },
    per_conversation: perConversation,
  };
}

function sumCounts(counts: readonly TokenCounts[]): TokenCounts {
  const sum = { ...EMPTY };
  for (const c of counts) {
    sum.calls += c.calls;
    sum.input += c.input;
    sum.cache_read += c.cache_read;
    sum.cache_write += c.cache_write;
    sum.output += c.output;
  }
  return sum;
}

function divideCounts(counts: TokenCounts, n: number): TokenCounts {
  if (n === 0) return { ...EMPTY };
  return {
    calls: counts.calls / n,
    input: counts.input / n,
    cache_read: counts.cache_read / n,
    cache_write: counts.cache_write / n,
    output: counts.output / n,
  };
}

/** The sum, or null when any value is unknown (an unknown price must never read as free). */
function sumKnown(values: ReadonlyArray<number | null>): number | null {
  let sum = 0;
  for (const value of values) {
    if (value === null) return null;
    sum += value;
  }
  return sum;
}

/** The tokens, cost and caching lines of the report; none when no model call recorded usage. */
export function describeTokenUsage(usage: TokenUsageSummary): string[] {
  const { mean, total } = usage;
  if (total.agent.calls + total.user.calls === 0) return [];
  const count = (value: number) => Math.round(value).toLocaleString("en-US");
  const usd = (value: number) => `$${value.toFixed(4)}`;
  const side = (name: string, tokens: TokenCounts) =>
    `  ${name.padEnd(8)} ${count(tokens.calls)} calls  input ${count(tokens.input)} ` +
    `(cache read ${count(tokens.cache_read)}, cache write ${count(tokens.cache_write)})  output ${count(tokens.output)}`;
  const lines = [
    `tokens per conversation (mean over ${usage.conversations} conversations, infrastructure errors included):`,
    side("agent", mean.agent),
    side("customer", mean.user),
    mean.cost === null || total.cost === null
      ? "cost per conversation: unknown (a model has no price)"
      : `cost per conversation: ${usd(mean.cost)} (${usd(total.cost)} in all)`,
  ];
  const cached =
    total.agent.cache_read + total.agent.cache_write + total.user.cache_read + total.user.cache_write;
  if (cached === 0) lines.push("prompt caching: no cached tokens reported");
  else if (mean.caching_saving === null || total.caching_saving === null)
    lines.push("prompt caching: the saving is unknown (a model has no price)");
  else
    lines.push(
      `prompt caching saved ${usd(mean.caching_saving)} per conversation (${usd(total.caching_saving)} in all` +
        (total.saving_share === null
          ? ""
          : `, ${(total.saving_share * 100).toFixed(0)}% of the cost without it`) +
        "): cached tokens at the full input rate minus what they cost",
    );
  return lines;
}
