import path from "node:path";
import { readAgentPromptTemplates } from "../agents/agent-prompt.js";
import { ConfigError } from "../core/errors.js";
import { getDomain } from "../domains/registry.js";
import type { AnyDomain } from "../env/domain.js";
import { overridesFromSpecFile, ToolSpecFileSchema, type ToolOverrides } from "../env/tool-schema.js";
import { readJsonFile } from "../core/json-file.js";
import { resolveDataDir } from "../formats/tau2/data-dir.js";
import { DomainCatalog } from "../formats/tau2/domain-catalog.js";
import { resolveConfig, type DomainData } from "../formats/tau2/domain-data.js";
import type { CallLimiter } from "../llm/call-limits.js";
import type { ModelCallObserver, PriceOverrides } from "../llm/index.js";
import type { RetrievalConfigKwargs } from "../knowledge/configs.js";
import type { Agent } from "../core/agent.js";
import { resolvePerturbations, type PerturbationRegistry } from "../perturbations/registry.js";
import { customerSpecFor } from "../users/create-user.js";
import { buildParticipants, type Participants } from "./build.js";
import { rerankerToolModel } from "./reranker-model.js";
import {
  resolveAdaptive,
  RunConfigSchema,
  type ModelSpec,
  type ParsedRunSpec,
  type RunConfig,
} from "./run-spec.js";

/** What every library entry point that builds participants may be given besides its spec. */
export interface AssemblyOptions {
  /** API keys and `PASSK_*` settings; by default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Your own domains beside the built-in ones (`defineDomain`). */
  domains?: ReadonlyMap<string, AnyDomain>;
  /** Domain data already parsed (shared with the process's other parts: each domain is parsed once). */
  catalog?: DomainCatalog;
  /** Agents of `module:` specs, by spec. */
  agentModules?: ReadonlyMap<string, Agent>;
  /** The perturbations the spec may name (passk's own by default). */
  perturbations?: PerturbationRegistry;
}

// A run spec turned into what runs it: the spec resolved into what the store keeps, each domain's data
// and the participants. The coordinator of a run and each worker of a distributed run use the same.

/** Read a tool spec file (τ² tools JSON) into description/parameter overrides. */
export function readToolSpecFile(file: string): ToolOverrides {
  const specFile = readJsonFile(file, ToolSpecFileSchema, {
    syntax: "give a JSON file in the format of tau2 fixtures/tools/<domain>.json.",
    schema: "expected {agent_tools: [{type, function: {name, description, parameters}}], user_tools: […]}.",
  });
  return overridesFromSpecFile(specFile);
}

/**
 * The configuration of the run's configurable domains (banking_knowledge's retrieval config): as given
 * or the domain's default, checked by name; undefined when no domain has configurations. Refused for
 * runs whose domains have none.
 */
function retrievalConfigOf(
  spec: ParsedRunSpec,
  domains: readonly AnyDomain[],
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const configurable = domains.filter((d) => d.configs);
  if (configurable.length === 0) {
    if (spec.retrievalConfig !== undefined)
      throw new ConfigError(
        `--retrieval-config applies to banking_knowledge only; none of ${spec.domains.join(", ")} has retrieval configs. Leave it out.`,
      );
    if (spec.retrievalConfigKwargs !== undefined)
      throw new ConfigError("--retrieval-config-kwargs applies to banking_knowledge only. Leave it out.");
    return undefined;
  }
  return resolveConfig(configurable[0]!, spec.retrievalConfig, env);
}

const absolute = (file: string | undefined) => (file === undefined ? undefined : path.resolve(file));

/**
 * A new run's spec resolved into what the store keeps: the data directory, the customer (τ²'s pairing
 * for the agent), the protocol (τ²'s on τ²'s own domains), the retrieval config, perturbations written
 * canonically and files by absolute path (a resume from another directory finds them).
 */
export function resolveRunSpec(
  spec: ParsedRunSpec & { agent: ModelSpec },
  context: {
    env: Readonly<Record<string, string | undefined>>;
    domains: ReadonlyMap<string, AnyDomain>;
    perturbations: PerturbationRegistry;
  },
): RunConfig {
  const domains = [...new Set(spec.domains)];
  const known = domains.map((name) => getDomain(name, context.domains));
  const { store: _store, label: _label, ...rest } = spec;
  const retrievalConfig = retrievalConfigOf(spec, known, context.env);
  const perturbations = resolvePerturbations(
    context.perturbations,
    spec.perturbations ?? [],
    "--perturb",
  ).map((p) => p.spec);
  const files = {
    agentPromptTemplate: absolute(spec.agentPromptTemplate),
    toolSpec: absolute(spec.toolSpec),
    prices: absolute(spec.prices),
    upstream: absolute(spec.upstream),
    saveTo: absolute(spec.saveTo),
    perturbationModules: spec.perturbationModules?.map((file) => path.resolve(file)),
    adaptive: resolveAdaptive(spec.adaptive, undefined, spec.numTrials),
  };
  return RunConfigSchema.parse({
    ...rest,
    ...Object.fromEntries(Object.entries(files).filter(([, v]) => v !== undefined)),
    kind: "passk-run",
    version: 2,
    domains,
    split: spec.split ?? "base",
    dataDir: resolveDataDir(spec.dataDir, context.env),
    user: { ...spec.user, model: customerSpecFor(spec.agent.model, spec.user?.model, spec.solo) },
    protocol: spec.protocol ?? (known.every((d) => d.tau2 !== undefined) ? "tau2" : "passk"),
    ...(retrievalConfig !== undefined ? { retrievalConfig } : { retrievalConfig: undefined }),
    ...(perturbations.length > 0 ? { perturbations } : { perturbations: undefined }),
    scriptedDemo: false,
  });
}

/** What loading a run's domains and building its participants needs from the process. */
export interface RunAssemblyContext {
  env: Readonly<Record<string, string | undefined>>;
  domains: ReadonlyMap<string, AnyDomain>;
  /** Domain data parsed so far: each domain is parsed once per catalog. */
  catalog: DomainCatalog;
  /** The run's `prices` file, read once (the reranker and the participants price with it). */
  priceOverrides?: PriceOverrides;
}

/** Where a domain's data is read from and, for a domain with configurations (banking_knowledge), how it is set up. */
export interface DomainLoadSpec {
  /** The τ² data directory: by default `PASSK_DATA_DIR` or where `passk data pull` puts it. */
  dataDir?: string;
  /** A tasks file to read instead of the domain's own. */
  tasksFile?: string;
  retrievalConfig?: string;
  retrievalConfigKwargs?: RetrievalConfigKwargs;
  upstream?: string;
  /** The model the `_reranker` retrieval configs rate search hits with. */
  reranker?: ModelSpec;
}

/**
 * A domain's data through the one {@link DomainCatalog} (each source and setting parsed once): a
 * configuration is checked against the domain (one that has none refuses it); the kwargs and the
 * reranker apply to configured domains only.
 */
export function loadDomainData(
  name: string,
  load: DomainLoadSpec,
  context: Omit<RunAssemblyContext, "catalog"> & { catalog?: DomainCatalog },
): DomainData {
  const domain = getDomain(name, context.domains);
  const configured = domain.configs !== undefined;
  return (context.catalog ?? new DomainCatalog()).load(domain, {
    dataDir: resolveDataDir(load.dataDir, context.env),
    env: context.env,
    ...(load.tasksFile !== undefined ? { tasksFile: load.tasksFile } : {}),
    ...(load.retrievalConfig !== undefined ? { config: load.retrievalConfig } : {}),
    ...(load.retrievalConfigKwargs !== undefined && configured
      ? { configKwargs: load.retrievalConfigKwargs }
      : {}),
    ...(load.upstream !== undefined ? { upstream: load.upstream } : {}),
    ...(load.reranker !== undefined && configured
      ? rerankerToolModel(load.reranker, {
          env: context.env,
          ...(context.priceOverrides ? { priceOverrides: context.priceOverrides } : {}),
        })
      : {}),
  });
}

/**
 * One domain of a run with its data (from `dataDir`, by default the run's), and for a domain with
 * configurations (banking_knowledge) the run's retrieval config, the upstream folder and the reranker.
 */
export function domainDataOfRun(
  config: RunConfig,
  name: string,
  context: RunAssemblyContext,
  dataDir = config.dataDir,
): DomainData {
  const configured = config.retrievalConfig !== undefined && getDomain(name, context.domains).configs;
  const { retrievalConfig, retrievalConfigKwargs, upstream, reranker } = config;
  return loadDomainData(
    name,
    configured ? { dataDir, retrievalConfig, retrievalConfigKwargs, upstream, reranker } : { dataDir },
    context,
  );
}

/** The agent, customer and judge of a run, as its spec names them, with this process's keys. */
export function participantsOfRun(
  config: RunConfig,
  context: RunAssemblyContext & {
    dataDir?: string;
    agentModules?: ReadonlyMap<string, Agent>;
    observer?: ModelCallObserver;
    limiter?: CallLimiter;
  },
): Participants {
  return buildParticipants({
    agent: config.agent,
    user: config.user,
    ...(config.judge ? { judge: config.judge } : {}),
    protocol: config.protocol,
    ...(config.upstream !== undefined ? { upstream: config.upstream } : {}),
    dataDir: context.dataDir ?? config.dataDir,
    domains: config.domains.map((name) => getDomain(name, context.domains)),
    env: context.env,
    timeoutSeconds: config.timeoutSeconds,
    maxAttempts: config.maxRetries,
    ...(config.agentPromptTemplate
      ? { agentPromptTemplates: readAgentPromptTemplates(config.agentPromptTemplate) }
      : {}),
    ...(config.toolSpec ? { toolOverrides: readToolSpecFile(config.toolSpec) } : {}),
    ...(context.priceOverrides ? { priceOverrides: context.priceOverrides } : {}),
    ...(config.cache ? { cache: config.cache } : {}),
    ...(config.promptCache === false ? { promptCache: false } : {}),
    ...(config.maxAgentMessageBytes !== undefined
      ? { maxAgentMessageBytes: config.maxAgentMessageBytes }
      : {}),
    ...(context.agentModules ? { agentModules: context.agentModules } : {}),
    ...(context.observer ? { observer: context.observer } : {}),
    ...(context.limiter ? { limiter: context.limiter } : {}),
  });
}
