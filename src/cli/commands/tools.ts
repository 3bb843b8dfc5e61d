import { Option, type Command } from "commander";
import { ConfigError } from "../../core/errors.js";
import {
  overridesFromSpecFile,
  toOpenAiTools,
  toolSpecs,
  ToolSpecFileSchema,
  type ToolOverrides,
} from "../../env/tool-schema.js";
import { readJsonFile } from "../../formats/json-file.js";
import { getDomain } from "../../domains/registry.js";
import type { AnyDomain } from "../../env/domain.js";
import { println, type CliContext } from "../context.js";
import { formatTable } from "../table.js";

/** Read a `--tool-spec FILE` (τ² tools JSON) into description/parameter overrides. */
export function readToolSpecFile(file: string): ToolOverrides {
  const specFile = readJsonFile(file, ToolSpecFileSchema, {
    syntax: "give a JSON file in the format of tau2 fixtures/tools/<domain>.json.",
    schema: "expected {agent_tools: [{type, function: {name, description, parameters}}], user_tools: […]}.",
  });
  return overridesFromSpecFile(specFile);
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
    .action((options: { domain: string; format: string; side: string; toolSpec?: string }) => {
      const domain = getDomain(options.domain, context.domains);
      const toolkit = options.side === "user" ? domain.user : domain.agent;
      if (!toolkit)
        throw new ConfigError(
          `domain ${options.domain} has no user tools (its customer only talks); drop --side user to list the agent's tools.`,
        );
      const tools = toolkit.tools;
      const overrides = options.toolSpec ? readToolSpecFile(options.toolSpec) : undefined;
      if (overrides) warnAboutSpecCoverage(context, options.toolSpec!, tools, overrides, domain);
      const specs = toolSpecs(tools, overrides);
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
