import type { AnyDomain } from "../env/domain.js";
import { buildProgram } from "./program.js";
import { defaultContext, describeError } from "./context.js";
import { agentModuleArguments, domainModuleArguments } from "./domain-modules.js";
import { importAgentModules, importDomainModule } from "../runner/load-modules.js";

// `passk … | head` closes the pipe early: that is not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

const context = defaultContext();
try {
  // Teams' own domains: `--domain ./path/to/domain.ts` is loaded before the command runs.
  const modules = domainModuleArguments(process.argv.slice(2));
  if (modules.length > 0) {
    const domains = new Map<string, AnyDomain>(context.domains);
    for (const file of modules) domains.set(file, await importDomainModule(file));
    context.domains = domains;
  }
  // Teams' own agents: `--agent-llm module:./my-agent.ts`.
  const agentSpecs = agentModuleArguments(process.argv.slice(2));
  if (agentSpecs.length > 0) context.agentModules = await importAgentModules(agentSpecs);
  await (await buildProgram(context, process.argv)).parseAsync(process.argv);
} catch (error) {
  context.stderr.write(`${describeError(error)}\n`);
  process.exitCode = process.exitCode && process.exitCode !== 0 ? process.exitCode : 1;
}
