import { ConfigError } from "../core/errors.js";
import type { LlmToolSpec } from "../core/llm.js";
import { getDomain } from "../domains/registry.js";
import type { AnyDomain } from "../env/domain.js";
import type { Tool } from "../env/tool.js";
import { toolSpecs, type ToolOverrides } from "../env/tool-schema.js";
import { resolveDataDir } from "../formats/tau2/data-dir.js";
import { resolveConfig } from "../formats/tau2/domain-data.js";
import {
  loadReferenceTexts,
  missingUpstreamMessage,
  resolveUpstreamDir,
  type ReferenceTexts,
} from "../formats/tau2/upstream/reference-texts.js";
import { readToolSpecFile } from "./run-assembly.js";

/** Which toolkit of a domain, under which settings: what `passk tools` is asked. */
export interface DomainToolsSpec {
  domain: string;
  side?: "agent" | "user";
  /** banking_knowledge: the retrieval config decides the agent's search tools. */
  retrievalConfig?: string;
  /** A tools JSON whose descriptions and parameters replace the domain's (exact-prompt comparisons). */
  toolSpec?: string;
  /** tau2: the reference's own texts; passk: passk's; by default the reference's on τ²'s domains when at hand. */
  protocol?: "tau2" | "passk";
  upstream?: string;
  dataDir?: string;
}

export interface DomainTools {
  /** The toolkit's tools as the world of these settings offers them. */
  tools: readonly Tool<unknown>[];
  /** What a model is sent for each of them (name, description, parameters). */
  specs: LlmToolSpec[];
}

/**
 * The tools a model is given on one side of a domain, with the texts the conversation's protocol shows
 * it. `onNote` hears what a user should know (passk's own texts shown for want of the upstream files,
 * a tool spec file that covers too little or names tools the domain does not have).
 */
export function domainTools(
  spec: DomainToolsSpec,
  options: {
    env?: NodeJS.ProcessEnv;
    domains?: ReadonlyMap<string, AnyDomain>;
    onNote?: (text: string, kind: "note" | "warning") => void;
  } = {},
): DomainTools {
  const env = options.env ?? process.env;
  const note = options.onNote ?? (() => {});
  const domain = getDomain(spec.domain, options.domains);
  const side = spec.side ?? "agent";
  const toolkit = side === "user" ? domain.user : domain.agent;
  if (!toolkit)
    throw new ConfigError(
      `domain ${spec.domain} has no user tools (its customer only talks); ask for the agent's tools (drop --side user).`,
    );
  const config = resolveConfig(domain, spec.retrievalConfig, env);
  const tools = (domain.toolsFor?.(side, config !== undefined ? { config } : {}) ??
    toolkit.tools) as readonly Tool<unknown>[];
  const overrides = spec.toolSpec !== undefined ? readToolSpecFile(spec.toolSpec) : undefined;
  if (overrides) noteSpecCoverage(note, spec.toolSpec!, tools, overrides, domain);
  const texts = referenceTexts(domain, spec, env, note);
  const specs = (texts ? texts.toolSpecs(domain, side, tools) : toolSpecs(tools)).map((each) => {
    const override = overrides?.get(each.name);
    return override ? { name: each.name, ...override } : each;
  });
  return { tools, specs };
}

/**
 * The reference's texts when the τ² protocol applies: asked for, or by default on τ²'s domains when
 * the upstream files are at hand (a note says when they are not, and passk's own texts are shown).
 */
function referenceTexts(
  domain: AnyDomain,
  spec: DomainToolsSpec,
  env: NodeJS.ProcessEnv,
  note: (text: string, kind: "note" | "warning") => void,
): ReferenceTexts | undefined {
  if (spec.protocol === "passk") return undefined;
  if (domain.tau2 === undefined) {
    if (spec.protocol === "tau2")
      throw new ConfigError(`--protocol tau2: domain ${domain.name} is not one of τ²-bench's domains`);
    return undefined;
  }
  let dataDir: string | undefined;
  try {
    dataDir = resolveDataDir(spec.dataDir, env);
  } catch {
    dataDir = undefined;
  }
  const dir = resolveUpstreamDir(spec.upstream, env, dataDir);
  if (dir === undefined) {
    if (spec.protocol === "tau2") throw new ConfigError(missingUpstreamMessage("--protocol tau2"));
    note(
      "passk's own tool descriptions (the reference's texts need the upstream files: `passk data pull`)",
      "note",
    );
    return undefined;
  }
  return loadReferenceTexts(dir);
}

/**
 * A spec file meant for another domain (or another version) changes only the tools whose names match,
 * silently mixing two sets of descriptions; say which of this side's tools keep passk's text and which
 * names in the file match no tool of the domain.
 */
function noteSpecCoverage(
  note: (text: string, kind: "note" | "warning") => void,
  file: string,
  tools: readonly { name: string }[],
  overrides: ToolOverrides,
  domain: AnyDomain,
): void {
  const known = new Set([...domain.agent.tools, ...(domain.user?.tools ?? [])].map((t) => t.name));
  const uncovered = tools.filter((t) => !overrides.has(t.name)).map((t) => t.name);
  const foreign = [...overrides.keys()].filter((name) => !known.has(name));
  if (uncovered.length > 0)
    note(
      `${file} has no entry for ${uncovered.join(", ")}; passk's own descriptions are used for ${uncovered.length === 1 ? "it" : "them"}`,
      "warning",
    );
  if (foreign.length > 0)
    note(
      `${file} names tools that domain ${domain.name} does not have: ${foreign.join(", ")} — is it the spec of another domain?`,
      "warning",
    );
}
