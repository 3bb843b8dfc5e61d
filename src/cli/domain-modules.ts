import {
  builtinPerturbations,
  createPerturbationRegistry,
  type PerturbationRegistry,
} from "../perturbations/registry.js";
import type { PerturbationDefinition } from "../perturbations/perturbation.js";
import { importPerturbationModule } from "../runner/load-modules.js";

/** A `--domain` value that names a module file (a team's own domain) rather than a built-in name. */
export function isDomainModulePath(value: string): boolean {
  return /[\\/]/.test(value) || /\.(?:[cm]?[jt]s)$/.test(value);
}

/** The values of `--flag X` / `--flag=X` in an argument list (each value of a variadic flag too). */
export function flagValues(argv: readonly string[], flag: string): string[] {
  const found: string[] = [];
  argv.forEach((arg, i) => {
    if (arg === flag) {
      for (let j = i + 1; j < argv.length && !argv[j]!.startsWith("--"); j++) found.push(argv[j]!);
    } else if (arg.startsWith(`${flag}=`)) found.push(arg.slice(flag.length + 1));
  });
  return found;
}

/** The `--domain` values of an argument list that are module paths. */
export function domainModuleArguments(argv: readonly string[]): string[] {
  return flagValues(argv, "--domain")
    .flatMap((v) => v.split(","))
    .filter(isDomainModulePath);
}

/** The `module:<path>` specs given to `--agent-llm`. */
export function agentModuleArguments(argv: readonly string[]): string[] {
  return flagValues(argv, "--agent-llm").filter((v) => v.startsWith("module:"));
}

/**
 * Load `--perturbation-module`s (given now, recorded with a resumed run, or given to a worker) into the
 * context's registry (the CLI's context), beside passk's own and those loaded before.
 */
export async function loadPerturbations(
  context: { perturbations?: PerturbationRegistry },
  files: readonly string[],
): Promise<void> {
  const registry = context.perturbations;
  const definitions = new Set<PerturbationDefinition>(builtinPerturbations);
  for (const name of registry?.names ?? []) definitions.add(registry!.get(name)!);
  // A module imported again gives the same values: the set keeps each definition once.
  for (const file of files)
    for (const definition of await importPerturbationModule(file)) definitions.add(definition);
  context.perturbations = createPerturbationRegistry([...definitions]);
}
