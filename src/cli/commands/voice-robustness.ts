import { ConfigError } from "../../core/errors.js";
import type { VoiceRobustnessReport } from "../../runner/voice-robustness.js";
import { println, type CliContext } from "../context.js";
import { formatTable } from "../table.js";
import { fixed, formatRobustnessTable } from "./metrics-table.js";

/** `passk robustness --voice BASELINE OTHER`: two voice runs paired task by task. */
export async function voiceRobustnessCommand(
  dirs: readonly string[],
  flags: { json?: boolean },
  context: CliContext,
): Promise<number> {
  if (dirs.length !== 2)
    throw new ConfigError(
      `passk robustness --voice pairs two voice run directories, the baseline first (e.g. control then regular); got ${dirs.length}`,
    );
  const { compareVoiceRuns } = await import("../../runner/voice-robustness.js");
  const report = compareVoiceRuns(dirs[0]!, dirs[1]!);
  if (flags.json) println(context, JSON.stringify(report, null, 2));
  else println(context, formatVoiceRobustness(report));
  return 0;
}

const value = (v: number | null, unit: string) =>
  v === null ? "-" : unit === "seconds" ? `${v.toFixed(2)} s` : v.toFixed(3);

/** The comparison as text: the robustness row, the interaction metrics side by side, the tasks that flipped. */
export function formatVoiceRobustness(report: VoiceRobustnessReport): string {
  const { baseline, other, row } = report;
  const name = (s: typeof baseline, fallback: string) => s.speechComplexity ?? fallback;
  const b = name(baseline, "baseline");
  const o = name(other, "other");
  const lines = [
    `baseline ${baseline.folder} (${b}) · other ${other.folder} (${o}) · agent ${baseline.agent ?? "unrecorded"}`,
    formatRobustnessTable([row]).replace(
      "same tasks and seeds as the clean run; kept = perturbed ÷ clean pass^k",
      `${o} against ${b} on the same tasks; kept = ${o} ÷ ${b} pass^k`,
    ),
  ];
  if (report.interaction) {
    lines.push(
      "",
      "interaction metrics:",
      formatTable(
        ["metric", "", b, o, "better", "events"],
        report.interaction.map((m) => [
          m.name,
          m.symbol,
          value(m.baseline, m.unit),
          value(m.other, m.unit),
          m.better,
          `${m.baselineEvents} / ${m.otherEvents}`,
        ]),
      ),
    );
  }
  lines.push("");
  if (report.flipped.length === 0) lines.push(`no task's pass^${row.k} changed`);
  else {
    lines.push(`tasks whose pass^${row.k} changed (${b} → ${o}):`);
    for (const task of report.flipped) {
      lines.push(`  task ${task.task_id}: ${task.direction} ${fixed(task.baseline)} → ${fixed(task.other)}`);
      for (const failure of task.failures)
        lines.push(
          `    trial ${failure.trial ?? "?"} in ${task.direction === "broke" ? o : b}: reward ${failure.reward}${failure.explanation ? ` — ${failure.explanation}` : ""}`,
        );
    }
  }
  return lines.join("\n");
}
