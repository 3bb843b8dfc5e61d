import { buildProgram } from "./program.js";
import { defaultContext, describeError } from "./context.js";

// `passk … | head` closes the pipe early: that is not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

const context = defaultContext();
try {
  await buildProgram(context).parseAsync(process.argv);
} catch (error) {
  context.stderr.write(`${describeError(error)}\n`);
  process.exitCode = process.exitCode && process.exitCode !== 0 ? process.exitCode : 1;
}
