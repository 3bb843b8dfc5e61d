import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { ConfigError } from "../../core/errors.js";
import { ToolRequestorSchema } from "../../core/message.js";
import { runCallLines, runSingleCallAsync } from "../../evaluation/single-call.js";
import { println, withDataOption, type CliContext } from "../context.js";
import { loadDomain, withRetrievalConfigOption } from "../domain-flags.js";

function parseArgs(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      `--args is not valid JSON (${(error as Error).message}); pass an object, e.g. --args '{"user_id":"user_1"}'`,
    );
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ConfigError(`--args must be a JSON object, e.g. --args '{"user_id":"user_1"}'`);
  }
  return value as Record<string, unknown>;
}

export function registerCall(program: Command, context: CliContext): void {
  withRetrievalConfigOption(
    withDataOption(
      program
        .command("call")
        .description(
          "Make one tool call in a fresh world; print {output, error, agent_db_changed, user_db_changed}",
        )
        .requiredOption("--domain <name>", "domain")
        .option("--tool <name>", "tool to call")
        .option("--args <json>", "arguments as a JSON object", "{}")
        .option("--requestor <who>", "assistant | user", "assistant")
        .option(
          "--batch <file>",
          "JSON lines {requestor, name, arguments} ('-' for stdin), each in its own fresh world",
        )
        .option(
          "--one-conversation",
          "with --batch: make every call in order in one world, as one conversation would (state, files written by a shell, unlocked tools carry over)",
        )
        .option("--lenient", "check arguments as τ²-bench does (names only) instead of against the schema"),
    ),
  ).action(
    async (options: {
      domain: string;
      tool?: string;
      args: string;
      requestor: string;
      batch?: string;
      oneConversation?: boolean;
      lenient?: boolean;
      data?: string;
      retrievalConfig?: string;
    }) => {
      const data = loadDomain(context, options.domain, options);
      const validation = options.lenient ? "lenient" : "strict";
      if (options.batch) {
        if (options.tool)
          throw new ConfigError(
            "give either --tool NAME or --batch FILE, not both (batch lines name their tools)",
          );
        const text = readFileSync(options.batch === "-" ? 0 : options.batch, "utf8");
        const newWorld = () => data.newWorld({ validation });
        let invalidLines = 0;
        for await (const outcome of runCallLines(text, newWorld, { oneWorld: options.oneConversation })) {
          if ("invalid_input" in outcome) invalidLines++;
          println(context, JSON.stringify(outcome));
        }
        // A call that returns an error is a result; a line that is not a call is bad input.
        if (invalidLines > 0) {
          context.stderr.write(
            `error: ${invalidLines} input line(s) are not calls {requestor, name, arguments}; see their invalid_input lines\n`,
          );
          process.exitCode = 1;
        }
        return;
      }
      if (options.oneConversation) throw new ConfigError("--one-conversation goes with --batch FILE");
      if (!options.tool) throw new ConfigError("give --tool NAME (and --args JSON), or --batch FILE");
      const requestor = ToolRequestorSchema.safeParse(options.requestor);
      if (!requestor.success)
        throw new ConfigError(`--requestor must be "assistant" or "user", not "${options.requestor}"`);
      const result = await runSingleCallAsync(data.newWorld({ validation }), {
        name: options.tool,
        arguments: parseArgs(options.args),
        requestor: requestor.data,
      });
      println(context, JSON.stringify(result));
      if (result.error) process.exitCode = 2;
    },
  );
}
