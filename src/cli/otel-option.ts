import type { Command } from "commander";
import { resolveOtelSettings } from "../observability/otel-settings.js";
import type { Tracing } from "../observability/start-tracing.js";
import type { CliContext } from "./context.js";

/** `--otel [endpoint]` / `--no-otel`, as commander hands them over. */
export interface OtelFlags {
  otel?: string | boolean;
}

/** Adds `--otel [endpoint]` and `--no-otel` to a command. */
export function withOtelOption(command: Command): Command {
  return command
    .option(
      "--otel [endpoint]",
      "export each conversation as an OpenTelemetry trace over OTLP/HTTP (default endpoint: $OTEL_EXPORTER_OTLP_ENDPOINT, " +
        "else http://localhost:4318; set, that variable turns tracing on by itself)",
    )
    .option("--no-otel", "export no traces, even with OTEL_EXPORTER_OTLP_ENDPOINT set");
}

/**
 * The command's tracing, if `--otel` or the environment asks for it; `shutdown()` it before exiting.
 * The OpenTelemetry SDK is loaded only then (it takes some 400 ms to import).
 */
export async function startCliTracing(flags: OtelFlags, context: CliContext): Promise<Tracing | undefined> {
  const settings = resolveOtelSettings({ flag: flags.otel, env: context.env });
  if (!settings) return undefined;
  const { startTracing } = await import("../observability/start-tracing.js");
  return startTracing({
    settings,
    env: context.env,
    warn: (message) => context.stderr.write(`${message}\n`),
  });
}
