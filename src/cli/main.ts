import { buildProgram } from "./program.js";
import { defaultContext, describeError } from "./context.js";

const context = defaultContext();
try {
  await buildProgram(context).parseAsync(process.argv);
} catch (error) {
  context.stderr.write(`${describeError(error)}\n`);
  process.exitCode = process.exitCode && process.exitCode !== 0 ? process.exitCode : 1;
}
