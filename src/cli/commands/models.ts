import type { Command } from "commander";
import { loadPriceOverrides, type ModelPricing } from "../../llm/cost.js";
import { modelReport, providerReports, type ProviderReport } from "../../llm/provider-report.js";
import { println, type CliContext } from "../context.js";

interface ModelsOptions {
  model?: string;
  baseUrl?: string;
  prices?: string;
  json?: boolean;
}

function packageLine(report: ProviderReport): string {
  const kind = report.optional ? "optional" : "bundled";
  if (!report.installed) return `${report.package} (${kind}): not installed — ${report.install}`;
  if (!report.compatible)
    return `${report.package} (${kind}): ${report.version} is installed — ${report.install}`;
  return `${report.package} (${kind}): installed ${report.version}`;
}

/** The width of the longest variable name, so that the variables' states line up. */
const nameWidth = (reports: readonly ProviderReport[]) =>
  Math.max(...reports.flatMap((report) => report.env.map((variable) => variable.name.length)));

function printProvider(context: CliContext, report: ProviderReport, nameWidth: number): void {
  println(context, `${report.provider}  ${packageLine(report)}  [wire: ${report.protocol}]`);
  for (const variable of report.env) {
    const state = variable.set ? "set" : variable.required ? "not set (needed)" : "not set";
    println(context, `  ${variable.name.padEnd(nameWidth)}  ${state.padEnd(16)}  ${variable.description}`);
  }
}

/** Dollars with at least cents: `$0.30`, `$0.135`, `$4.00`. */
function money(value: number): string {
  const text = String(Number(value.toPrecision(6)));
  return `$${(text.split(".")[1]?.length ?? 0) < 2 ? value.toFixed(2) : text}`;
}

function pricingLine(pricing: ModelPricing | null, spec: string): string {
  if (pricing === null) {
    return (
      `price: ${spec} is not in the price table, so its costs are recorded as unknown; give it a price with ` +
      `--prices FILE ({"models": {"${spec}": {"input_mtok": 1, "output_mtok": 2}}}, USD per million tokens)`
    );
  }
  const from =
    pricing.source === "override"
      ? "the price override file"
      : `the price table (${pricing.tableProvider}/${pricing.tableModel})`;
  return (
    `price from ${from}, USD per million tokens: input ${money(pricing.inputMtok)}, output ${money(pricing.outputMtok)}, ` +
    `cache read ${money(pricing.cacheReadMtok)}, cache write ${money(pricing.cacheWriteMtok)}`
  );
}

/**
 * `passk models [--model <spec>]`: every provider passk knows (its spec prefix, its package and whether
 * it is installed, the variables it reads and whether each is set — never their values), and for one
 * model, whether and how it is priced.
 */
export function registerModels(program: Command, context: CliContext): void {
  program
    .command("models")
    .description(
      "The model providers (<provider>:<model>), their packages and environment variables, and a model's prices",
    )
    .option("--model <spec>", "a model, e.g. google:gemini-2.5-flash: its provider and its prices")
    .option(
      "--base-url <url>",
      "the base URL the model is called at (prices openai-compatible models by host)",
    )
    .option("--prices <file>", "price overrides JSON, as `passk run --prices` takes it")
    .option("--json", "print the same as JSON")
    .action((options: ModelsOptions) => {
      const env = context.env;
      const overrides = options.prices !== undefined ? loadPriceOverrides(options.prices) : undefined;
      if (options.model !== undefined) {
        const { model, provider, pricing } = modelReport(options.model, {
          env,
          ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
          ...(overrides ? { overrides } : {}),
        });
        if (options.json) {
          println(context, JSON.stringify({ model, ...provider, pricing }, null, 2));
          return;
        }
        println(context, `model ${model}`);
        printProvider(context, provider, nameWidth([provider]));
        println(context, pricingLine(pricing, model));
        return;
      }

      const reports = providerReports(env);
      if (options.json) {
        println(context, JSON.stringify(reports, null, 2));
        return;
      }
      println(
        context,
        "Write a model as <provider>:<model>. Variables are read from the environment; their values are never shown.",
      );
      const width = nameWidth(reports);
      for (const report of reports) {
        println(context);
        printProvider(context, report, width);
      }
    });
}
