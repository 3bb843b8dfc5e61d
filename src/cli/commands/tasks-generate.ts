import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { z } from "zod";
import { ConfigError } from "../../core/errors.js";
import { checkComposedTasks } from "../../generator/check-composed-tasks.js";
import { formatPyJson } from "../../python/py-json-indent.js";
import { generateTasks } from "../../generator/generate-tasks.js";
import { COMPONENTS_FILE, readDomainTaskComponents } from "../../runner/task-components.js";
import { println, wholeNumber, withDataOption, type CliContext } from "../context.js";
import { loadDomain } from "../domain-flags.js";

const OptionsSchema = z.object({
  domain: z.string().optional(),
  components: z.string().optional(),
  data: z.string().optional(),
  set: z.string().optional(),
  includeUnofficial: z.boolean().optional(),
  sample: z.string().optional(),
  seed: z.string().optional(),
  out: z.string().optional(),
  check: z.boolean().optional(),
});
type Options = z.infer<typeof OptionsSchema>;

function setName(options: Options): string {
  if (options.includeUnofficial && options.set !== undefined && options.set !== "generated")
    throw new ConfigError(
      `--include-unofficial means --set generated; it cannot be combined with --set ${options.set}`,
    );
  return options.includeUnofficial ? "generated" : (options.set ?? "tasks");
}

/**
 * `passk tasks generate`: compose tasks from a task components file. With no options it writes the
 * official set byte for byte (for telecom: `tasks.json`, 2285 tasks).
 */
export function registerTasksGenerate(tasks: Command, context: CliContext): Command {
  return withDataOption(
    tasks
      .command("generate")
      .description(
        "Compose tasks from a task components file (τ²'s compositional generator); by default the official set, byte-identical",
      ),
  )
    .option("--domain <name>", `domain whose data folder holds ${COMPONENTS_FILE}`)
    .option("--components <file>", "components file to compose from (any domain)")
    .option("--set <name>", "task set of the components file: tasks (default), tasks_small, generated, …")
    .option("--include-unofficial", "every generated task (same as --set generated)")
    .option(
      "--sample <n>",
      "keep n tasks, chosen with a seeded PRNG (mulberry32) and kept in generated order",
    )
    .option("--seed <s>", "seed of --sample, a whole number (default 0)")
    .option("--out <file>", "write the tasks here instead of to stdout")
    .option(
      "--check",
      "first replay every task in the domain (init checks, gold actions, assertions); write nothing if one fails",
    )
    .action((raw: unknown) => {
      const options = OptionsSchema.parse(raw);
      if (options.seed !== undefined && options.sample === undefined)
        throw new ConfigError("--seed only applies with --sample N");
      const source = { components: options.components, domain: options.domain, dataDir: options.data };
      const { components } = readDomainTaskComponents(source, context);
      const set = setName(options);
      const sample = options.sample === undefined ? undefined : wholeNumber("--sample", options.sample);
      const seed = options.seed === undefined ? 0 : wholeNumber("--seed", options.seed, 2 ** 32 - 1);
      const generated = generateTasks(components, { set, ...(sample !== undefined ? { sample, seed } : {}) });
      if (options.check) {
        if (!options.domain)
          throw new ConfigError(
            "--check needs --domain (a domain name or module path) to replay the tasks in",
          );
        const data = loadDomain(context, options.domain, options);
        const problems = checkComposedTasks(components, generated, () => data.newWorld());
        for (const problem of problems) context.stderr.write(`FAIL ${problem.taskId}: ${problem.message}\n`);
        if (problems.length > 0) {
          const failed = new Set(problems.map((p) => p.taskId)).size;
          throw new ConfigError(
            `${failed} of ${generated.length} generated tasks fail the check; nothing written. Fix the components file.`,
          );
        }
        context.stderr.write(`checked ${generated.length} tasks: all pass\n`);
      }
      // Like the official files: Python's json.dumps(indent=2), no trailing newline.
      const text = formatPyJson(generated.map((g) => g.task));
      if (!options.out) {
        context.stdout.write(text);
        return;
      }
      writeFileSync(options.out, text);
      const sampled = sample !== undefined ? `, sample of ${sample} with seed ${seed}` : "";
      println(context, `wrote ${generated.length} tasks (set ${set}${sampled}) to ${options.out}`);
    });
}
