import { Option, type Command } from "commander";
import { ConfigError } from "../../core/errors.js";
import { toOpenAiTools, toolSpecs, type ToolOverrides } from "../../env/tool-schema.js";
import { readToolSpecFile } from "../../runner/run-assembly.js";
import { getDomain } from "../../domains/registry.js";
import type { AnyDomain } from "../../env/domain.js";
import { println, type CliContext } from "../context.js";
import { resolveDataDir } from "../../formats/tau2/data-dir.js";
import { resolveConfig } from "../../formats/tau2/domain-data.js";
import {
  loadReferenceTexts,
  missingUpstreamMessage,
  resolveUpstreamDir,
  type ReferenceTexts,
} from "../../formats/tau2/upstream/reference-texts.js";
import { formatTable } from "../table.js";

interface ToolsOptions {
  domain: string;
  retrievalConfig?: string;
  format: string;
  side: string;
  toolSpec?: string;
  protocol?: "tau2" | "passk";
  upstream?: string;
  data?: string;
}

/**
 * The reference's texts when the τ² protocol applies: asked for, or by default on τ²'s domains when
 * the upstream files are at hand (a note says when they are not, and passk's own texts are shown).
 */
function referenceTextsFor(
  context: CliContext,
  domain: AnyDomain,
  options: ToolsOptions,
): ReferenceTexts | undefined {
  if (options.protocol === "passk") return undefined;
  if (domain.tau2 === undefined) {
    if (options.protocol === "tau2")
      throw new ConfigError(`--protocol tau2: domain ${domain.name} is not one of τ²-bench's domains`);
    return undefined;
  }
  let dataDir: string | undefined;
  try {
    dataDir = resolveDataDir(options.data, context.env);
  } catch {
    dataDir = undefined;
  }
  const dir = resolveUpstreamDir(options.upstream, context.env, dataDir);
  if (dir === undefined) {
    if (options.protocol === "tau2") throw new ConfigError(missingUpstreamMessage("--protocol tau2"));
    context.stderr.write(
      "note: passk's own tool descriptions (the reference's texts need the upstream files: `passk data pull`)\n",
    );
    return undefined;
  }
  return loadReferenceTexts(dir);
}

export function registerTools(program: Command, context: CliContext): void {
  program
    .command("tools")
    .description("The tools of a domain as sent to a model")
    .requiredOption("--domain <name>", "domain")
    .addOption(
      new Option("--format <format>", "table, or openai (the JSON sent to a model)")
        .choices(["table", "openai"])
        .default("table"),
    )
    .addOption(new Option("--side <side>", "whose toolkit").choices(["agent", "user"]).default("agent"))
    .option(
      "--tool-spec <file>",
      "take descriptions and parameters from this tools JSON (exact-prompt comparisons)",
    )
    .addOption(
      new Option(
        "--protocol <name>",
        "tau2: the reference's own texts, as a default run on τ²'s domains shows them (when the upstream files are at hand); passk: passk's own",
      ).choices(["tau2", "passk"]),
    )
    .option(
      "--upstream <dir>",
      "the upstream τ²-bench source files (default: $PASSK_TAU2_UPSTREAM, else <data>/upstream)",
    )
    .option("--data <dir>", "τ² data directory, where `passk data pull` puts the upstream files")
    .option(
      "--retrieval-config <name>",
      "banking_knowledge's retrieval config, which decides the agent's search tools (default bm25)",
    )
    .action((options: ToolsOptions) => {
      const domain = getDomain(options.domain, context.domains);
      const side = options.side === "user" ? "user" : "agent";
      const toolkit = side === "user" ? domain.user : domain.agent;
      if (!toolkit)
        throw new ConfigError(
          `domain ${options.domain} has no user tools (its customer only talks); drop --side user to list the agent's tools.`,
        );
      // The tools a world of this configuration offers (banking_knowledge: search tools per config).
      const config = resolveConfig(domain, options.retrievalConfig, context.env);
      const tools = (domain.toolsFor?.(side, config !== undefined ? { config } : {}) ??
        toolkit.tools) as typeof toolkit.tools;
      const overrides = options.toolSpec ? readToolSpecFile(options.toolSpec) : undefined;
      if (overrides) warnAboutSpecCoverage(context, options.toolSpec!, tools, overrides, domain);
      const texts = referenceTextsFor(context, domain, options);
      const specs = (texts ? texts.toolSpecs(domain, side, tools) : toolSpecs(tools)).map((spec) => {
        const override = overrides?.get(spec.name);
        return override ? { name: spec.name, ...override } : spec;
      });
      if (options.format === "openai") {
        println(context, JSON.stringify(toOpenAiTools(specs), null, 2));
        return;
      }
      println(
        context,
        formatTable(
          ["tool", "kind", "replayed", "parameters"],
          tools.map((t) => [
            t.name,
            t.kind,
            t.mutatesState ? "yes" : "no",
            t.parameterNames.map((p) => (t.requiredParameters.includes(p) ? p : `${p}?`)).join(", "),
          ]),
        ),
      );
    });
}

/**
 * A spec file meant for another domain (or another version) changes only the tools whose names match,
 * silently mixing two sets of descriptions; say which of this side's tools keep passk's text and which
 * names in the file match no tool of the domain.
 */
function warnAboutSpecCoverage(
  context: CliContext,
  file: string,
  tools: readonly { name: string }[],
  overrides: ToolOverrides,
  domain: AnyDomain,
): void {
  const known = new Set([...domain.agent.tools, ...(domain.user?.tools ?? [])].map((t) => t.name));
  const uncovered = tools.filter((t) => !overrides.has(t.name)).map((t) => t.name);
  const foreign = [...overrides.keys()].filter((name) => !known.has(name));
  if (uncovered.length > 0)
    context.stderr.write(
      `warning: ${file} has no entry for ${uncovered.join(", ")}; passk's own descriptions are used for ${uncovered.length === 1 ? "it" : "them"}\n`,
    );
  if (foreign.length > 0)
    context.stderr.write(
      `warning: ${file} names tools that domain ${domain.name} does not have: ${foreign.join(", ")} — is it the spec of another domain?\n`,
    );
}
