import { partialCoverageLabel } from "../../src/metrics/coverage.js";

/** Short text for any JSON value (cards show values inline). */
export function showValue(value: unknown, max = 120): string {
  if (value === undefined) return "—";
  const text = JSON.stringify(value);
  if (text === undefined) return String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return "unknown";
  if (usd === 0) return "$0";
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

export function formatPercent(value: number | null | undefined, digits = 1): string {
  return value === null || value === undefined ? "—" : `${(value * 100).toFixed(digits)}%`;
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "—";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toISOString().slice(0, 16).replace("T", " ");
}

/**
 * Reward colour: red (0) through amber to green (1); grey when not evaluated. Dark enough that the
 * white ✓/✗ on it reads at 4.5:1 or more at every hue (WCAG AA for small text).
 */
export function rewardColor(reward: number | null): string {
  if (reward === null) return "var(--muted-cell)";
  const hue = Math.round(Math.max(0, Math.min(1, reward)) * 130);
  return `hsl(${hue} 65% 29%)`;
}

/** `text` cut in the middle to at most `max` characters: its start and its end stay readable. */
export function middleTruncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = max - 1;
  const head = Math.ceil(keep / 2);
  return `${text.slice(0, head)}…${text.slice(text.length - (keep - head))}`;
}

/** A telecom task id, `[issue]fault|fault…[PERSONA:name]`, read as its parts. */
export interface TelecomTaskId {
  issue: string;
  faults: string[];
  persona: string;
}

export function parseTelecomTaskId(id: string): TelecomTaskId | null {
  const match = /^\[([^\]]+)\](.*)\[PERSONA:([^\]]*)\]$/.exec(id);
  if (!match) return null;
  const words = (s: string) => s.replace(/_/g, " ").trim();
  return {
    issue: words(match[1]!),
    faults: match[2]!
      .split("|")
      .filter((f) => f !== "")
      .map(words),
    persona: match[3]! === "None" ? "no persona" : `${match[3]!.toLowerCase()} persona`,
  };
}

/**
 * Faults joined with " + ", at most `max` characters: whole faults from both ends around "…" when
 * they fit (`a + b + … + h`), else the text cut in the middle.
 */
function faultsText(faults: readonly string[], max: number): string {
  const all = faults.join(" + ");
  if (all.length <= max) return all;
  let head = 0;
  let tail = 0;
  const text = (h: number, t: number) =>
    [...faults.slice(0, h), "…", ...faults.slice(faults.length - t)].join(" + ");
  for (let turn = 0; head + tail < faults.length; turn++) {
    const [h, t] = turn % 2 === 0 ? [head + 1, tail] : [head, tail + 1];
    if (text(h, t).length > max) {
      // The other end may still have room for one more.
      const [h2, t2] = turn % 2 === 0 ? [head, tail + 1] : [head + 1, tail];
      if (h2 + t2 <= faults.length - 1 && text(h2, t2).length <= max) {
        head = h2;
        tail = t2;
        continue;
      }
      break;
    }
    head = h;
    tail = t;
  }
  return head > 0 && tail > 0 ? text(head, tail) : middleTruncate(all, max);
}

/**
 * How a task id is shown: telecom's `[mms_issue]a|b|c[PERSONA:Hard]` as `mms issue · a + b + c · hard
 * persona`, the faults cut in the middle when long (the tooltip has the whole id); other ids as they
 * are, cut in the middle past `max`.
 */
export function taskLabel(id: string, max = 48): string {
  const telecom = parseTelecomTaskId(id);
  if (!telecom) return middleTruncate(id, max);
  const fixed = telecom.issue.length + telecom.persona.length + 6;
  const faults =
    telecom.faults.length > 0 ? faultsText(telecom.faults, Math.max(12, max - fixed)) : "no fault";
  return `${telecom.issue} · ${faults} · ${telecom.persona}`;
}

/**
 * "graded 8 of 40" when a run's scores cover only part of it (infrastructure errors, a stopped run),
 * else undefined: shown beside every score of that run, so that no partial score reads as the run's.
 */
export function runCoverage(run: {
  graded: number;
  simulations: number;
  progress: { planned: number };
}): string | undefined {
  return partialCoverageLabel({
    graded: run.graded,
    total: Math.max(run.simulations, run.progress.planned),
  });
}

/** "perturbed: --perturb X" when the run is a robustness measurement (its comparability says so), else undefined. */
export function runPerturbation(run: { comparability: { reasons: readonly string[] } }): string | undefined {
  const reason = run.comparability.reasons.find((r) => /(^|: )perturbed \(--perturb /.test(r));
  const flags = reason ? /perturbed \((--perturb [^)]*)\)/.exec(reason)?.[1] : undefined;
  return reason ? `perturbed${flags ? `: ${flags}` : ""}` : undefined;
}
