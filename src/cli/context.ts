import type { Command } from "commander";
import type { Agent } from "../core/agent.js";
import { ConfigError, PasskError } from "../core/errors.js";
import { systemFailure } from "../core/system-failure.js";
import type { AnyDomain } from "../env/domain.js";
import type { PerturbationRegistry } from "../perturbations/registry.js";
import { builtinDomains } from "../domains/registry.js";
import { DomainCatalog } from "../formats/tau2/domain-catalog.js";
import { importAgentModule } from "../runner/load-modules.js";
import type { AssemblyOptions } from "../runner/run-assembly.js";
import type { StartRunOptions } from "../runner/start-run.js";
import { loadPerturbations } from "./domain-modules.js";

export { systemFailure };

/** Everything a command needs from its surroundings; tests can swap the streams. */
export interface CliContext {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  domains: ReadonlyMap<string, AnyDomain>;
  /** Agents loaded from modules for `--agent-llm module:<path>`, by spec. */
  agentModules?: ReadonlyMap<string, Agent>;
  /** The perturbations `--perturb` may name: passk's own and those of `--perturbation-module`s. */
  perturbations?: PerturbationRegistry;
  /** The library's one domain cache, shared by this process's commands (a run and its local workers). */
  catalog?: DomainCatalog;
}

export function defaultContext(): CliContext {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    domains: builtinDomains,
    catalog: new DomainCatalog(),
  };
}

/** What the library's builders take from this process: its keys, domains, their data and loaded modules. */
export function assemblyOf(context: CliContext) {
  return {
    env: context.env,
    domains: context.domains,
    catalog: (context.catalog ??= new DomainCatalog()),
    ...(context.perturbations ? { perturbations: context.perturbations } : {}),
    ...(context.agentModules ? { agentModules: context.agentModules } : {}),
  } satisfies AssemblyOptions;
}

/**
 * What the library's runs take from this process: its keys, domains, their data (one cache for all its
 * commands) and the modules it loaded, and how to load those a resumed run names.
 */
export function runOptionsOf(context: CliContext) {
  return {
    ...assemblyOf(context),
    loadPerturbationModules: async (files: readonly string[]) => {
      await loadPerturbations(context, files);
      return context.perturbations!;
    },
    loadAgentModule: (spec: string) => importAgentModule(spec.slice("module:".length)),
  } satisfies StartRunOptions;
}

/** Write one line to stdout. */
export function println(context: CliContext, text = ""): void {
  context.stdout.write(`${text}\n`);
}

/** A flag's whole-number value (0…max), or a ConfigError naming the flag. */
export function wholeNumber(flag: string, text: string, max = Number.MAX_SAFE_INTEGER): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value > max)
    throw new ConfigError(`${flag} "${text}" is not a whole number between 0 and ${max}; e.g. ${flag} 42`);
  return value;
}

/** Add the `--data DIR` option shared by commands that read τ² data. */
export function withDataOption(command: Command): Command {
  return command.option(
    "--data <dir>",
    "τ² data directory (default: $PASSK_DATA_DIR, else the per-user data dir)",
  );
}

/**
 * Render an error for the terminal as one sentence with the fix: PasskErrors by their message, the
 * machine's own failures (a full disk, a permission, a corrupt or read-only store, an input too large
 * to hold) by what they mean. Only a failure nobody foresaw keeps its stack — that is a bug to report.
 */
export function describeError(error: unknown): string {
  if (PasskError.isInstance(error)) return `error: ${error.message}`;
  const known = systemFailure(error);
  if (known !== undefined) return `error: ${known}`;
  if (error instanceof Error) return `error: ${error.stack ?? error.message}`;
  return `error: ${String(error)}`;
}
