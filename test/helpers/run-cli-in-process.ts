import { Writable } from "node:stream";
import { buildProgram } from "../../src/cli/program.js";
import type { CliContext } from "../../src/cli/context.js";
import { describeError } from "../../src/cli/context.js";
import { builtinDomains } from "../../src/domains/registry.js";
import type { CliRun } from "./run-cli.js";

/**
 * The passk CLI in this process — the binary's own program, its output captured — for tests that
 * need a command's result, not a process: as the binary, a thrown error is a sentence on stderr and
 * exit code 1.
 */
export async function runCliInProcess(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
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
  process.exitCode = undefined;
  let code = 0;
  try {
    await (await buildProgram(context)).exitOverride().parseAsync(["node", "passk", ...args]);
    code = Number(process.exitCode ?? 0);
  } catch (error) {
    stderr += `${describeError(error)}\n`;
    code = 1;
  }
  process.exitCode = undefined;
  return { code, stdout, stderr };
}
