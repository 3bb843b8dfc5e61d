import type { Command } from "commander";
import { z } from "zod";
import { ConfigError } from "../../core/errors.js";
import { planTrials } from "../../metrics/statistics.js";
import { println, type CliContext } from "../context.js";
import { formatTable } from "../table.js";

const PlanOptionsSchema = z.object({
  tasks: z.coerce.number().int().min(1).max(1_000_000),
  detect: z.coerce.number().gt(0).max(1),
  successRate: z.coerce.number().gt(0).lt(1),
  alpha: z.coerce.number().gt(0).lt(1),
  power: z.coerce.number().gt(0).lt(1),
});

/**
 * `passk plan --tasks N --detect 0.05`: how many trials per task two runs need so that a difference of
 * that size in mean success rate is detected (a paired test at α, with the given power).
 */
export function registerPlan(program: Command, context: CliContext): void {
  program
    .command("plan")
    .description(
      "How many trials per task two runs need to tell a given difference in success rate from chance",
    )
    .requiredOption("--tasks <n>", "tasks per run (e.g. 50 for airline's base split)")
    .requiredOption("--detect <difference>", "the difference in mean success rate to detect, e.g. 0.05")
    .option("--success-rate <p>", "the success rate the runs are near (0.5 is the worst case)", "0.5")
    .option("--alpha <a>", "significance level of the test", "0.05")
    .option("--power <p>", "chance of detecting a true difference of that size", "0.8")
    .action((raw: Record<string, unknown>) => {
      const parsed = PlanOptionsSchema.safeParse(raw);
      if (!parsed.success)
        throw new ConfigError(
          `passk plan: ${parsed.error.issues.map((i) => `--${String(i.path[0]).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} ${i.message}`).join("; ")}; e.g. passk plan --tasks 50 --detect 0.05`,
        );
      const { tasks, detect, successRate, alpha, power } = parsed.data;
      const { trials: k, choices } = planTrials({ tasks, detect, successRate, alpha, power });
      println(
        context,
        `${k} trial${k === 1 ? "" : "s"} per task (${k * tasks} conversations per run) to detect a difference of ` +
          `${detect} in mean success rate over ${tasks} tasks near ${successRate}, at α = ${alpha} with ${Math.round(power * 100)}% power.`,
      );
      println(
        context,
        formatTable(
          ["trials per task", "conversations", "smallest detectable difference"],
          choices.map((c) => [String(c.trials), String(c.conversations), c.detectable.toFixed(3)]),
        ),
      );
    });
}
