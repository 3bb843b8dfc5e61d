import type { Command } from "commander";
import { SimulationRunSchema } from "../../core/simulation.js";
import { TaskSchema, type Task } from "../../core/task.js";
import { createLanguageModel } from "../../llm/index.js";
import { RunConfigSchema } from "../../runner/run-config.js";
import type { Review } from "../../review/blame.js";
import { reviewSimulations, type ReviewedSimulation } from "../../review/review-run.js";
import type { Store } from "../../store/store.js";
import { loadDomain, println, type CliContext } from "../context.js";
import { formatTable } from "../table.js";
import { openStore, withStoreOption } from "./run-source.js";

interface ReviewOptions {
  store?: string;
  judgeLlm?: string;
  judgeLlmBaseUrl?: string;
  json?: boolean;
}

/**
 * Review a stored run's failed simulations and store the verdicts; returns them. Shared by
 * `passk review` and `passk run --review`.
 */
export async function reviewStoredRun(
  context: CliContext,
  store: Store,
  runId: string,
  options: { judgeLlm?: string; judgeLlmBaseUrl?: string },
): Promise<{ reviews: ReviewedSimulation[]; cost: number | null }> {
  const run = store.getRun(runId);
  const config = RunConfigSchema.safeParse(run.config);
  const dataDir = config.success ? config.data.data : undefined;
  const tasks = new Map<string, Task>();
  for (const domain of run.domains)
    for (const { task } of store.getTasks(run.id, domain))
      tasks.set(`${domain}\u0000${String((task as { id: unknown }).id)}`, TaskSchema.parse(task));
  const model = options.judgeLlm
    ? createLanguageModel(options.judgeLlm, {
        role: "judge",
        env: context.env,
        ...(options.judgeLlmBaseUrl ? { baseUrl: options.judgeLlmBaseUrl } : {}),
      })
    : undefined;
  const simulations = store.getSimulations(run.id).map(({ domain, simulation: stored }) => {
    const simulation = SimulationRunSchema.parse(stored);
    return {
      domain,
      task_id: simulation.task_id,
      trial: simulation.trial ?? 0,
      termination_reason: simulation.termination_reason,
      reward_info: simulation.reward_info ?? null,
      messages: simulation.messages,
      info: (simulation.info ?? null) as Record<string, unknown> | null,
    };
  });
  const result = await reviewSimulations(simulations, {
    taskOf: (domain, taskId) => {
      const task =
        tasks.get(`${domain}\u0000${taskId}`) ??
        loadDomain(context, domain, { ...(dataDir ? { data: dataDir } : {}) }).task(taskId);
      return task;
    },
    domainOf: (name) => {
      const data = loadDomain(context, name, { ...(dataDir ? { data: dataDir } : {}) });
      return {
        domain: data.domain,
        policy: config.success && config.data.solo ? (data.soloPolicy ?? data.policy) : data.policy,
        newWorld: (o) => data.newWorld(o),
      };
    },
    ...(model ? { model } : {}),
  });
  for (const r of result.reviews) store.putReview(run.id, r, r.review);
  return result;
}

/** How many failures each culprit caused, in one line. */
export function describeBlame(reviews: readonly { review: Review }[]): string {
  const counts = new Map<string, number>();
  for (const r of reviews) counts.set(r.review.culprit, (counts.get(r.review.culprit) ?? 0) + 1);
  const order = ["agent", "user_simulator", "task", "infrastructure", "undetermined"];
  const parts = order.filter((c) => counts.has(c)).map((c) => `${c} ${counts.get(c)}`);
  return `${reviews.length} failed simulation(s): ${parts.join(", ") || "none"}`;
}

/** `passk review RUN`: who caused each failure of a stored run. */
export function registerReview(program: Command, context: CliContext): void {
  withStoreOption(
    program
      .command("review")
      .description(
        "Who caused each failed simulation of a run — the agent, the simulated customer, the task, or the infrastructure — " +
          "with the turn and a reason: deterministic checks first, then an LLM reviewer (--judge-llm) for the rest",
      )
      .argument("<run>", "run id (or unique prefix) in the store")
      .option("--judge-llm <model>", "the reviewer model for failures no check places")
      .option("--judge-llm-base-url <url>", "base URL for openai-compatible reviewer models")
      .option("--json", "print the reviews as JSON"),
  ).action(async (ref: string, options: ReviewOptions) => {
    const store = openStore(context, options.store, { create: false });
    let result: Awaited<ReturnType<typeof reviewStoredRun>>;
    try {
      result = await reviewStoredRun(context, store, store.getRun(ref).id, options);
    } finally {
      store.close();
    }
    const { reviews, cost } = result;
    if (options.json) {
      println(context, JSON.stringify({ reviews, reviewer_cost: cost }, null, 2));
      return;
    }
    println(
      context,
      formatTable(
        ["task", "trial", "culprit", "turn", "by", "reason"],
        reviews.map((r) => [
          `${r.domain}/${r.task_id}`,
          String(r.trial),
          r.review.culprit,
          r.review.turn === null ? "-" : String(r.review.turn),
          r.review.source === "llm" ? "reviewer" : (r.review.check ?? "check"),
          r.review.reason,
        ]),
      ),
    );
    println(context);
    println(context, describeBlame(reviews));
  });
}
