import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "../../../core/errors.js";
import type { LlmToolSpec } from "../../../core/llm.js";
import type { AnyDomain } from "../../../env/domain.js";
import { gitBlobHash, UPSTREAM_FOLDER } from "../data-pull.js";
import {
  DATA_MODEL_MODULES,
  OFFICIAL_COMMIT,
  UPSTREAM_FILES,
  type DataModelModule,
} from "../official-manifest.js";
import { checkDataModelSource, defNames, replaceableDefs, withDefs } from "./data-models.js";
import { extractDoneTool, extractToolkit, type ExtractedTool } from "./extract-tools.js";
import { extractPromptTemplates, type PromptTemplates } from "./extract-prompts.js";
import type { JsonObject } from "./pydantic-schema.js";

const AGENT_MODULE = "src/tau2/agent/llm_agent.py";
const USER_MODULE = "src/tau2/user/user_simulator.py";

/**
 * The texts the reference shows models, read out of its source files at the pinned commit: the agent
 * and user-simulator prompt templates, the solo agent's `done` tool, and each τ² domain's tools
 * (descriptions and parameter schemas, in the reference's order). Built once per folder and process;
 * a domain's tools are extracted on first use.
 */
export interface ReferenceTexts {
  /** The folder the source files were read from. */
  readonly dir: string;
  /** The upstream commit those files are from. */
  readonly commit: string;
  readonly prompts: PromptTemplates;
  /** The solo agent's stop tool, as the reference describes it. */
  readonly doneTool: LlmToolSpec;
  /**
   * A τ² domain's tools on one side, as the reference shows them to a model: its toolkit's tools, or —
   * given `tools`, the tools a world offers (`World.offeredTools`) — those, in that order, from the
   * toolkit class and the domain's extra toolkit classes (banking_knowledge's retrieval mixins).
   */
  toolSpecs(domain: AnyDomain, side: "agent" | "user", tools?: readonly { name: string }[]): LlmToolSpec[];
  /**
   * Whether the nested models of a τ² domain's tool schemas (`$defs`) carry the reference's descriptions:
   * "complete" when every one comes from a verified data-model module (or the tools have none), "missing"
   * when some are passk's description-less rebuild. Everything else in the tools is exact either way.
   */
  nestedModelDescriptions(domain: AnyDomain): NestedModelDescriptions;
  /** What became of each optional data-model module (`DATA_MODEL_MODULES`) in the folder. */
  readonly dataModels: ReadonlyArray<DataModelStatus>;
}

export type NestedModelDescriptions = "complete" | "missing";

export interface DataModelStatus {
  /** The module's path in the repository (and under the folder). */
  readonly path: string;
  readonly status: "verified" | "absent" | "unreadable" | "mismatch";
  /** Why it is not used, when it is not. */
  readonly reason?: string;
}

/**
 * Where the upstream source files are: `--upstream DIR`, else `PASSK_TAU2_UPSTREAM`, else
 * `<data dir>/upstream` (where `passk data pull` puts them). Undefined when none of these exists.
 */
export function resolveUpstreamDir(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  dataDir: string | undefined,
): string | undefined {
  const chosen = flag ?? (env.PASSK_TAU2_UPSTREAM || undefined);
  if (chosen !== undefined) {
    const resolved = path.resolve(chosen);
    if (!existsSync(resolved) || !statSync(resolved).isDirectory()) {
      const source = flag !== undefined ? "--upstream" : "PASSK_TAU2_UPSTREAM";
      throw new ConfigError(
        `${source} names ${resolved}, which is not a folder; point it at a copy of the upstream source files ` +
          "(a folder holding src/tau2/…), or run `passk data pull` and leave it unset.",
      );
    }
    return resolved;
  }
  if (dataDir === undefined) return undefined;
  const inData = path.join(dataDir, UPSTREAM_FOLDER);
  return existsSync(inData) ? inData : undefined;
}

/** The sentence for a τ²-protocol model run that has no upstream source files to read. */
export function missingUpstreamMessage(what: string): string {
  return (
    `${what} shows models the reference's own prompt and tool texts (the τ² protocol, the default on τ²'s ` +
    "domains), which passk reads from the upstream source files: run `passk data pull` (it puts them in " +
    "<data dir>/upstream), or point --upstream / PASSK_TAU2_UPSTREAM at a copy of them — or pass " +
    "--protocol passk to use passk's own prompt and tool descriptions (not comparable with the τ²-bench leaderboard)."
  );
}

const loaded = new Map<string, ReferenceTexts>();

/**
 * The reference's texts from a folder of upstream source files. Every file is checked against its
 * git blob hash at the pinned commit first: a different version would show models other texts. The
 * optional data-model modules (`DATA_MODEL_MODULES`) are used when present and verified by the digest
 * of the schema entries read from them; otherwise nested models go without their descriptions.
 */
export function loadReferenceTexts(dir: string): ReferenceTexts {
  const resolved = path.resolve(dir);
  const cached = loaded.get(resolved);
  if (cached) return cached;
  const sources = new Map<string, string>();
  const problems: string[] = [];
  for (const file of UPSTREAM_FILES) {
    const full = path.join(resolved, file.path);
    if (!existsSync(full)) {
      problems.push(`${file.path} is missing`);
      continue;
    }
    const bytes = readFileSync(full);
    if (gitBlobHash(bytes) !== file.blob) problems.push(`${file.path} is not the pinned commit's version`);
    else sources.set(file.path, bytes.toString("utf8"));
  }
  if (problems.length > 0) {
    throw new ConfigError(
      `the upstream source files in ${resolved} cannot be used: ${problems.join("; ")}. ` +
        "Run `passk data pull` to fetch them again (or fix --upstream / PASSK_TAU2_UPSTREAM).",
    );
  }
  const source = (file: string) => sources.get(file)!;
  let prompts: PromptTemplates;
  let doneTool: ExtractedTool;
  try {
    prompts = extractPromptTemplates(source(AGENT_MODULE), source(USER_MODULE));
    doneTool = extractDoneTool(source(AGENT_MODULE));
  } catch (error) {
    throw new ConfigError(`reading the reference's prompts from ${resolved}: ${(error as Error).message}`);
  }
  const { verified, statuses } = readDataModels(resolved);
  const replacements = new Map<AnyDomain, Map<string, JsonObject>>();
  const replacementsFor = (domain: AnyDomain) => {
    let found = replacements.get(domain);
    if (!found) {
      found = replaceableDefs(verified, domain.tau2?.types);
      replacements.set(domain, found);
    }
    return found;
  };
  const toolkits = new Map<string, LlmToolSpec[]>();
  const toolsByName = new Map<string, Map<string, LlmToolSpec>>();
  const texts: ReferenceTexts = {
    dir: resolved,
    commit: OFFICIAL_COMMIT,
    prompts,
    doneTool: asSpec(doneTool),
    toolSpecs(domain, side, tools) {
      const key = `${domain.name}\u0000${side}`;
      let specs = toolkits.get(key);
      if (!specs) {
        const defs = replacementsFor(domain);
        specs = domainToolSpecs(domain, side, source).map((spec) =>
          defs.size === 0 ? spec : { ...spec, parameters: withDefs(spec.parameters as JsonObject, defs) },
        );
        toolkits.set(key, specs);
      }
      if (tools === undefined) return specs;
      let byName = toolsByName.get(key);
      if (!byName) {
        byName = new Map(specs.map((spec) => [spec.name, spec]));
        if (side === "agent")
          for (const spec of extraToolSpecs(domain, source))
            if (!byName.has(spec.name)) byName.set(spec.name, spec);
        toolsByName.set(key, byName);
      }
      return tools.map((tool) => {
        const spec = byName.get(tool.name);
        if (!spec)
          throw new ConfigError(
            `${domain.name}'s ${side} tool ${tool.name} has no counterpart in the reference's source files, so it cannot be shown with the reference's texts; pass --protocol passk.`,
          );
        return spec;
      });
    },
    nestedModelDescriptions(domain) {
      const defs = replacementsFor(domain);
      const sides = (["agent", "user"] as const).filter((side) => (domain[side]?.tools.length ?? 0) > 0);
      const complete = sides.every((side) =>
        texts
          .toolSpecs(domain, side)
          .every((spec) => defNames(spec.parameters as JsonObject).every((name) => defs.has(name))),
      );
      return complete ? "complete" : "missing";
    },
    dataModels: statuses,
  };
  loaded.set(resolved, texts);
  return texts;
}

/**
 * The optional data-model modules in the folder: those whose `$defs` entries have the expected digest,
 * and what became of each. A module that is absent, unreadable or different is simply not used.
 */
function readDataModels(dir: string): {
  verified: Array<{ module: DataModelModule; defs: JsonObject }>;
  statuses: DataModelStatus[];
} {
  const verified: Array<{ module: DataModelModule; defs: JsonObject }> = [];
  const statuses: DataModelStatus[] = [];
  for (const module of DATA_MODEL_MODULES) {
    const full = path.join(dir, module.path);
    if (!existsSync(full)) {
      statuses.push({ path: module.path, status: "absent" });
      continue;
    }
    const check = checkDataModelSource(module, readFileSync(full, "utf8"));
    if (check.status === "verified") {
      verified.push({ module, defs: check.defs });
      statuses.push({ path: module.path, status: "verified" });
    } else {
      statuses.push({ path: module.path, status: check.status, reason: check.reason });
    }
  }
  return { verified, statuses };
}

/** The agent tools of a domain's extra toolkit classes (`DomainTau2Source.extraAgentToolkits`). */
function extraToolSpecs(domain: AnyDomain, source: (file: string) => string): LlmToolSpec[] {
  return (domain.tau2?.extraAgentToolkits ?? []).flatMap(({ file, className }) => {
    try {
      return extractToolkit(source(file), file, { className }).map(asSpec);
    } catch (error) {
      throw new ConfigError(
        `reading ${domain.name}'s ${className} tools from ${file}: ${(error as Error).message}`,
      );
    }
  });
}

function asSpec(tool: ExtractedTool): LlmToolSpec {
  return { name: tool.name, description: tool.description, parameters: tool.parameters };
}

/**
 * A domain's tools as the reference shows them, in passk's order — which must be the reference's: the
 * same names in the same order, or the source is of another version than the domain.
 */
function domainToolSpecs(
  domain: AnyDomain,
  side: "agent" | "user",
  source: (file: string) => string,
): LlmToolSpec[] {
  const toolkit = side === "agent" ? domain.agent : domain.user;
  if (!toolkit || toolkit.tools.length === 0) return [];
  const file = side === "agent" ? domain.tau2?.agentTools : domain.tau2?.userTools;
  if (!domain.tau2 || file === undefined || toolkit.className === undefined) {
    throw new ConfigError(
      `domain ${domain.name} has no τ²-bench counterpart for its ${side} tools, so it cannot run under the τ² ` +
        "protocol; pass --protocol passk.",
    );
  }
  let extracted: ExtractedTool[];
  try {
    extracted = extractToolkit(source(file), file, {
      className: toolkit.className,
      ...(domain.tau2.types ? { types: domain.tau2.types } : {}),
    });
  } catch (error) {
    throw new ConfigError(`reading ${domain.name}'s ${side} tools from ${file}: ${(error as Error).message}`);
  }
  const ours = toolkit.tools.map((t) => t.name);
  const theirs = extracted.map((t) => t.name);
  if (ours.join("\n") !== theirs.join("\n")) {
    throw new ConfigError(
      `${file} defines the ${side} tools ${theirs.join(", ")}, but passk's ${domain.name} domain has ` +
        `${ours.join(", ")}: the upstream files are of another version than the domain.`,
    );
  }
  return extracted.map(asSpec);
}
