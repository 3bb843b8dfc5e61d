import type { RunSummary } from "../../../src/server/api-schemas.js";
import { formatDuration } from "../../../src/runner/run-progress.js";

/** How often a page showing a run in progress asks again; a stalled one, rarely (it may come back). */
const LIVE_POLL_MS = 2_000;
const STALLED_POLL_MS = 30_000;

/** The refresh interval of a page showing these runs: null once none of them is running. */
export function pollEvery(runs: readonly RunSummary[]): number | null {
  const running = runs.filter((r) => r.status === "running");
  if (running.length === 0) return null;
  return running.some((r) => !r.progress.stalled) ? LIVE_POLL_MS : STALLED_POLL_MS;
}

const STATUS_BADGE: Record<RunSummary["status"], string> = {
  running: "running",
  completed: "added",
  interrupted: "changed",
  failed: "removed",
  imported: "muted",
};

/** The run's status as a badge; a running run nothing was heard of for long says it may have stalled. */
export function RunStatusBadge(props: { run: RunSummary }) {
  const { run } = props;
  if (run.status === "running" && run.progress.stalled)
    return (
      <span className="badge changed" data-testid="run-status" data-status="stalled">
        stalled?
      </span>
    );
  return (
    <span className={`badge ${STATUS_BADGE[run.status]}`} data-testid="run-status" data-status={run.status}>
      {run.status}
    </span>
  );
}

/** "37 / 120 conversations", a bar, and the pace, the time left or when it was last heard of. */
export function RunProgressLine(props: { run: RunSummary; compact?: boolean }) {
  const { status, progress } = props.run;
  const { planned, done } = progress;
  const share = planned > 0 ? Math.min(1, done / planned) : 0;
  const note =
    status !== "running"
      ? null
      : progress.stalled
        ? `no news for ${formatDuration(progress.idleSeconds * 1000)} (last update ${formatTime(progress.updatedAt)}): has its runner stopped?`
        : planned === 0
          ? "queuing its conversations…"
          : done >= planned && !progress.adaptive
            ? "all stored: writing its results…"
            : progress.perMinute === null
              ? "measuring its pace…"
              : `${progress.perMinute.toFixed(progress.perMinute < 10 ? 1 : 0)}/min` +
                (progress.etaSeconds !== null
                  ? ` · about ${formatDuration(progress.etaSeconds * 1000)} left`
                  : progress.adaptive
                    ? " · adaptive: more trials may be queued"
                    : "");
  return (
    <div className={`run-progress${props.compact ? " compact" : ""}`} data-testid="run-progress">
      <span className="run-progress-count">
        {done} / {planned}
        {props.compact ? "" : " conversations"}
      </span>
      <span
        className={`run-progress-bar${progress.stalled ? " stalled" : ""}`}
        role="progressbar"
        aria-label="conversations stored"
        aria-valuemin={0}
        aria-valuemax={planned}
        aria-valuenow={done}
      >
        <span style={{ width: `${(share * 100).toFixed(1)}%` }} />
      </span>
      {note && (
        <span className={`run-progress-note small${progress.stalled ? " stalled" : " muted"}`}>{note}</span>
      )}
    </div>
  );
}

/** A time of day (with the date when not today), in the reader's own zone. */
function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const today = new Date().toDateString() === date.toDateString();
  return today
    ? date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : date.toLocaleString([], { dateStyle: "short", timeStyle: "short" });
}
