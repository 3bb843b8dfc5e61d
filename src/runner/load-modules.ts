// Teams' own code, loaded from module files: an agent (`module:<path>`), a domain (`defineDomain`), perturbations
// (`definePerturbation`). TypeScript modules are loaded through tsx.

import path from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigError } from "../core/errors.js";
import type { Agent } from "../core/agent.js";
import type { AnyDomain } from "../env/domain.js";
import { perturbationSources, type PerturbationDefinition } from "../perturbations/perturbation.js";

function isDomain(value: unknown): value is AnyDomain {
  const v = value as Partial<AnyDomain> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.name === "string" &&
    typeof v.agent === "object" &&
    typeof v.data === "object"
  );
}

async function importModule(file: string, what: string): Promise<Record<string, unknown>> {
  const full = path.resolve(file);
  if (/\.[cm]?ts$/.test(full)) {
    const { register } = await import("tsx/esm/api");
    register();
  }
  try {
    return (await import(pathToFileURL(full).href)) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`could not load the ${what} module ${full}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

function isAgent(value: unknown): value is Agent {
  const v = value as Partial<Agent> | null;
  return typeof v === "object" && v !== null && typeof v.name === "string" && typeof v.start === "function";
}

/**
 * Load a team's own agent (`--agent-llm module:./my-agent.ts`): the module's default export, or its one
 * exported value implementing the Agent interface.
 */
export async function importAgentModule(file: string): Promise<Agent> {
  const module = await importModule(file, "agent");
  const candidates = isAgent(module.default) ? [module.default] : Object.values(module).filter(isAgent);
  if (candidates.length !== 1) {
    throw new ConfigError(
      `${path.resolve(file)} must export one Agent ({ name, start(init) }) as default export or its only agent export; found ${candidates.length}`,
    );
  }
  return candidates[0]!;
}

/**
 * Load the agents of `module:<path>` specs (`--agent-llm module:./my-agent.ts`), each keyed by its spec: the
 * name a run's configuration gives its agent by.
 */
export async function importAgentModules(specs: readonly string[]): Promise<Map<string, Agent>> {
  const agents = new Map<string, Agent>();
  for (const spec of specs) {
    if (!spec.startsWith("module:")) throw new ConfigError(`${spec} is not a module:<path> agent`);
    agents.set(spec, await importAgentModule(spec.slice("module:".length)));
  }
  return agents;
}

/**
 * Load a team's domain from a module (`--domain ./my-domain/index.ts`): its default export, or the one
 * exported value that is a domain. TypeScript modules are loaded through tsx.
 */
export async function importDomainModule(file: string): Promise<AnyDomain> {
  const full = path.resolve(file);
  const module = await importModule(file, "domain");
  const candidates = isDomain(module.default) ? [module.default] : Object.values(module).filter(isDomain);
  if (candidates.length !== 1) {
    throw new ConfigError(
      `${full} must export one domain made with defineDomain (as default export or its only domain export); found ${candidates.length}`,
    );
  }
  return candidates[0]!;
}

function isPerturbation(value: unknown): value is PerturbationDefinition {
  const v = value as Partial<PerturbationDefinition> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.name === "string" &&
    typeof v.version === "number" &&
    typeof v.effects === "function" &&
    typeof (v.params as { safeParse?: unknown } | undefined)?.safeParse === "function"
  );
}

/**
 * Load a team's perturbations (`--perturbation-module ./my-perturbations.ts`): every exported value made
 * with definePerturbation (the default export may also be a list of them).
 */
export async function importPerturbationModule(file: string): Promise<PerturbationDefinition[]> {
  const module = await importModule(file, "perturbation");
  const values = Object.values(module).flatMap((value) => (Array.isArray(value) ? value : [value]));
  const found = [...new Set(values.filter(isPerturbation))];
  if (found.length === 0)
    throw new ConfigError(
      `${path.resolve(file)} exports no perturbation; export one made with definePerturbation({ name, version, kind, summary, params, effects })`,
    );
  for (const definition of found) perturbationSources.set(definition, path.resolve(file));
  return found;
}
