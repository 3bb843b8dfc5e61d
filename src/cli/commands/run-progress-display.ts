import cliProgress from "cli-progress";
import type { RunEvent } from "../../runner/run-events.js";
import { describeProgress, formatDuration, RunProgress } from "../../runner/run-progress.js";

export type ProgressMode = "auto" | "bar" | "lines" | "none";

export interface ProgressDisplay {
  onEvent(event: RunEvent): void;
  /** A one-off line (budget reached, stop requested…), printed above the bar or as its own line. */
  note(text: string): void;
  stop(): void;
  readonly progress: RunProgress;
}

interface Stream extends NodeJS.WritableStream {
  isTTY?: boolean;
}

/**
 * The live progress of a run: on a terminal a bar (done/total, successes, running cost, ETA, errors by
 * kind) redrawn as events arrive; otherwise (CI, logs) one plain line every `intervalMs` and at each
 * notable event. `prefix` labels every line (a scripted demo says so).
 */
export function progressDisplay(options: {
  stream: Stream;
  mode: ProgressMode;
  intervalMs: number;
  prefix: string;
}): ProgressDisplay {
  const progress = new RunProgress();
  const { stream, prefix } = options;
  const mode = options.mode === "auto" ? (stream.isTTY ? "bar" : "lines") : options.mode;

  if (mode === "none") {
    return { progress, onEvent: (e) => progress.apply(e), note: () => undefined, stop: () => undefined };
  }

  if (mode === "lines") {
    let last = "";
    const print = (force = false) => {
      const line = `${prefix}${describeProgress(progress.snapshot())}`;
      if (!force && line === last) return;
      last = line;
      stream.write(`${line}\n`);
    };
    const timer = setInterval(() => print(), options.intervalMs);
    timer.unref();
    return {
      progress,
      onEvent: (event) => {
        progress.apply(event);
        if (event.type === "run-start") print(true);
      },
      note: (text) => stream.write(`${prefix}${text}\n`),
      stop: () => {
        clearInterval(timer);
        print(true);
      },
    };
  }

  const bars = new cliProgress.MultiBar(
    {
      stream,
      format: (_options, params) => {
        const snapshot = progress.snapshot();
        const width = 24;
        const filled = params.total > 0 ? Math.round((params.value / params.total) * width) : 0;
        const bar = `${"█".repeat(filled)}${"░".repeat(width - filled)}`;
        return `${prefix}${bar} ${describeProgress(snapshot)} | ${formatDuration(snapshot.elapsedMs)} elapsed`;
      },
      hideCursor: true,
      fps: 5,
      linewrap: true,
      clearOnComplete: false,
      forceRedraw: true,
    },
    cliProgress.Presets.shades_classic,
  );
  const bar = bars.create(0, 0);
  return {
    progress,
    onEvent: (event) => {
      progress.apply(event);
      const snapshot = progress.snapshot();
      bar.setTotal(snapshot.total);
      bar.update(snapshot.done);
    },
    note: (text) => {
      bars.log(`${prefix}${text}\n`);
      bars.update(); // draw now: the bar may stop before its next frame
    },
    stop: () => {
      bar.update(progress.snapshot().done);
      bars.stop();
    },
  };
}
