import { Writable } from "node:stream";
import { type Command, CommanderError } from "commander";
import type { Agent } from "../../src/core/agent.js";
import type { AnyDomain } from "../../src/env/domain.js";
import { buildProgram } from "../../src/cli/program.js";
import type { CliContext } from "../../src/cli/context.js";
import { describeError } from "../../src/cli/context.js";
import { agentModuleArguments, domainModuleArguments } from "../../src/cli/domain-modules.js";
import { importAgentModule, importDomainModule } from "../../src/runner/load-modules.js";
import { builtinDomains } from "../../src/domains/registry.js";
import type { CliRun } from "./run-cli.js";

/**
 * The passk CLI in this process — the binary's own program, its output captured — for tests that
 * need a command's result, not a process: as the binary, a thrown error is a sentence on stderr and
 * exit code 1, commander's own refusals (a bad choice, an unknown option) keep commander's exit code,
 * and `--domain ./file.ts` / `--agent-llm module:./file.ts` modules are loaded before the command runs.
 * `env` is the command's whole environment on top of this process's; `process.env` is left alone.
 */
export function runCliInProcess(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
): Promise<CliRun & { code: number }> {
  // Commands of one process share process.exitCode: calls made together (Promise.all) run one by one.
  const run = queue.then(() => runOnce(args, env));
  queue = run.catch(() => undefined);
  return run;
}

let queue: Promise<unknown> = Promise.resolve();

async function runOnce(
  args: readonly string[],
  env: Record<string, string | undefined>,
): Promise<CliRun & { code: number }> {
  let stdout = "";
  let stderr = "";
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        append(chunk.toString());
        callback();
      },
    });
  const context: CliContext = {
    stdout: sink((s) => (stdout += s)),
    stderr: sink((s) => (stderr += s)),
    env: { ...process.env, ...env },
    domains: builtinDomains,
  };
  const argv = ["node", "passk", ...args];
  process.exitCode = undefined;
  let code = 0;
  try {
    const modules = domainModuleArguments(args);
    if (modules.length > 0) {
      const domains = new Map<string, AnyDomain>(context.domains);
      for (const file of modules) domains.set(file, await importDomainModule(file));
      context.domains = domains;
    }
    const agentSpecs = agentModuleArguments(args);
    if (agentSpecs.length > 0) {
      const agents = new Map<string, Agent>();
      for (const spec of agentSpecs) agents.set(spec, await importAgentModule(spec.slice("module:".length)));
      context.agentModules = agents;
    }
    const program = await buildProgram(context, argv);
    // Commander exits the process on a refusal or `--help`: here it throws instead, at every level.
    const throwInsteadOfExit = (command: Command): void => {
      command.exitOverride();
      command.commands.forEach(throwInsteadOfExit);
    };
    throwInsteadOfExit(program);
    await program.parseAsync(argv);
    code = Number(process.exitCode ?? 0);
  } catch (error) {
    // Commander has written its own sentence (or the help) to stderr/stdout already.
    if (error instanceof CommanderError) code = error.exitCode;
    else {
      stderr += `${describeError(error)}\n`;
      code = Number(process.exitCode ?? 0) || 1;
    }
  }
  process.exitCode = undefined;
  return { code, stdout, stderr };
}
