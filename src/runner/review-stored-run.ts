import { SimulationRunSchema } from "../core/simulation.js";
import { TaskSchema, type Task } from "../core/task.js";
import { builtinDomains } from "../domains/registry.js";
import type { AnyDomain } from "../env/domain.js";
import { DomainCatalog } from "../formats/tau2/domain-catalog.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import { createLanguageModel } from "../llm/index.js";
import { reviewSimulations, type ReviewedSimulation } from "../review/review-run.js";
import type { Store } from "../store/store.js";
import { loadDomainData } from "./run-assembly.js";
import { RunConfigSchema } from "./run-spec.js";

export interface ReviewRunOptions {
  /** The model that reviews what no deterministic check places (`<provider>:<model>`); none by default. */
  judgeLlm?: string;
  judgeLlmBaseUrl?: string;
  /** API keys; by default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Your own domains beside the built-in ones. */
  domains?: ReadonlyMap<string, AnyDomain>;
  /** Domain data already parsed (each domain is read from the run's data directory when it recorded one). */
  catalog?: DomainCatalog;
}

/**
 * Review a stored run's failed simulations — who caused each failure, at which turn, on what evidence —
 * and store the verdicts beside the run; returns them. The tasks are those the run stored; the policy is
 * the one its agent was given (the solo policy in solo runs).
 */
export async function reviewRun(
  store: Store,
  runId: string,
  options: ReviewRunOptions = {},
): Promise<{ reviews: ReviewedSimulation[]; cost: number | null }> {
  const env = options.env ?? process.env;
  const run = store.getRun(runId);
  const config = RunConfigSchema.safeParse(run.config);
  const dataDir = config.success ? config.data.dataDir : undefined;
  const known = new Map([...builtinDomains, ...(options.domains ?? [])]);
  const catalog = options.catalog ?? new DomainCatalog();
  const domainData = (name: string, dir: string | undefined): DomainData =>
    loadDomainData(name, dir !== undefined ? { dataDir: dir } : {}, { env, domains: known, catalog });
  const tasks = new Map<string, Task>();
  for (const domain of run.domains)
    for (const { task } of store.getTasks(run.id, domain))
      tasks.set(`${domain}\u0000${String((task as { id: unknown }).id)}`, TaskSchema.parse(task));
  const model = options.judgeLlm
    ? createLanguageModel(options.judgeLlm, {
        role: "judge",
        env,
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
    taskOf: (domain, taskId) =>
      tasks.get(`${domain}\u0000${taskId}`) ?? domainData(domain, dataDir).task(taskId),
    domainOf: (name) => {
      const data = domainData(name, dataDir);
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
