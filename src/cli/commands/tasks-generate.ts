import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import { ConfigError } from "../../core/errors.js";
import { resolveDataDir } from "../../formats/tau2/data-dir.js";
import { checkComposedTasks } from "../../generator/check-composed-tasks.js";
import { formatPyJson } from "../../python/py-json-indent.js";
import { generateTasks } from "../../generator/generate-tasks.js";
import { readTaskComponents } from "../../generator/read-task-components.js";
import { println, wholeNumber, withDataOption, type CliContext } from "../context.js";
import { loadDomain } from "../domain-flags.js";

/** Name of the components file inside a domain's data folder. */
export const COMPONENTS_FILE = "task_components.json";

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

/** Where the components come from: `--components FILE`, else `<data dir>/<domain folder>/task_components.json`. */
function componentsFile(options: Options, context: CliContext): string {
  if (options.components) {
    const file = path.resolve(options.components);
    if (!existsSync(file))
      throw new ConfigError(`--components ${options.components}: no such file (${file})`);
    return file;
  }
  if (!options.domain)
    throw new ConfigError(
      "give --domain NAME (reads <data dir>/NAME/task_components.json) or --components FILE",
    );
  // The domain need not be registered: generation reads only the components file.
  const folder = context.domains.get(options.domain)?.data.folder ?? options.domain;
  const file = path.join(resolveDataDir(options.data, context.env), folder, COMPONENTS_FILE);
  if (!existsSync(file))
    throw new ConfigError(
      `domain ${options.domain} has no ${COMPONENTS_FILE} at ${file}; write one (see the README, "Add your own domain") or pass --components FILE`,
    );
  return file;
}

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
      const file = componentsFile(options, context);
      const components = readTaskComponents(file);
      if (options.domain) {
        // A module path (`--domain ./x/index.ts`) is registered under the path; its tasks carry the domain's name.
        const name = context.domains.get(options.domain)?.name ?? options.domain;
        const other = components.managers.find((m) => m.domain !== name);
        if (other)
          throw new ConfigError(
            `${file} composes tasks of domain "${other.domain}" (manager ${other.name}), not --domain ${options.domain}`,
          );
      }
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
