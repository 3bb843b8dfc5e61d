import type { SimulationRun } from "../core/simulation.js";
import type { Task } from "../core/task.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import type { Review } from "../review/blame.js";
import { reviewSimulations } from "../review/review-run.js";

/**
 * The verdict `passk review` gives a finished playground conversation, from its deterministic checks
 * only (the playground calls no reviewer model on its own): null when it passed. A failure no check
 * places is `undetermined`, said as such — never guessed.
 */
export async function playgroundReview(
  data: DomainData,
  task: Task,
  run: SimulationRun,
): Promise<Review | null> {
  const simulation = {
    domain: data.domain.name,
    task_id: task.id,
    trial: 0,
    termination_reason: run.termination_reason,
    reward_info: run.reward_info,
    messages: run.messages,
    info: (run.info ?? null) as Record<string, unknown> | null,
  };
  // A passed conversation is not reviewed: no review comes back.
  const { reviews } = await reviewSimulations([simulation], {
    taskOf: () => task,
    domainOf: () => ({
      domain: data.domain,
      policy: data.policyFor(task),
      newWorld: (options) => data.newWorld(options),
    }),
    withoutModel: "no check placed it; the playground asks no reviewer model",
  });
  return reviews[0]?.review ?? null;
}
