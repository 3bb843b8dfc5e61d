import type { Command } from "commander";
import { describeBlame } from "../../review/blame.js";
import { reviewRun } from "../../runner/review-stored-run.js";
import type { Store } from "../../store/store.js";
import { println, type CliContext } from "../context.js";
import { formatTable } from "../table.js";
import { withStore, withStoreOption } from "./run-source.js";

interface ReviewOptions {
  store?: string;
  judgeLlm?: string;
  judgeLlmBaseUrl?: string;
  json?: boolean;
}

/** Review a stored run through the library, with this process's keys, domains and domain data. */
export function reviewStoredRun(
  context: CliContext,
  store: Store,
  runId: string,
  options: { judgeLlm?: string; judgeLlmBaseUrl?: string },
): ReturnType<typeof reviewRun> {
  const { env, domains, catalog } = context;
  return reviewRun(store, runId, { ...options, env, domains, ...(catalog ? { catalog } : {}) });
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
    const { reviews, cost } = await withStore(context, options.store, { create: false }, (store) =>
      reviewStoredRun(context, store, store.getRun(ref).id, options),
    );
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
