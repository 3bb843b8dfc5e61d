import { Option, type Command } from "commander";
import { toOpenAiTools } from "../../env/tool-schema.js";
import { domainTools, type DomainToolsSpec } from "../../runner/domain-tools.js";
import { println, type CliContext } from "../context.js";
import { formatTable } from "../table.js";

/** The library's spec as flags, but `--data` for its `dataDir`, and how to print. */
type ToolsOptions = Omit<DomainToolsSpec, "dataDir"> & { format: string; data?: string };

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
    .action(({ format, data, ...spec }: ToolsOptions) => {
      // The flags are the spec's fields (commander sets only those given or defaulted), but --data.
      const { tools, specs } = domainTools(
        { ...spec, ...(data !== undefined ? { dataDir: data } : {}) },
        {
          env: context.env,
          domains: context.domains,
          onNote: (text, kind) => context.stderr.write(`${kind}: ${text}\n`),
        },
      );
      if (format === "openai") {
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
