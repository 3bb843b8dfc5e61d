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
      const specs = toolSpecs(tools, options.toolSpec ? readToolSpecFile(options.toolSpec) : undefined);
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
