import type { InteractionMetricRowView } from "../../../src/server/voice-api-schemas.js";
import { formatPercent } from "../format.js";

/** `12.4 s`, or `3:05.2` past a minute. */
export function formatSeconds(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  const rest = seconds - minutes * 60;
  return minutes > 0 ? `${minutes}:${rest.toFixed(1).padStart(4, "0")}` : `${rest.toFixed(1)} s`;
}

/** An interaction metric's value in its unit: seconds, a percentage, or turns. */
export function formatMetric(value: number | null, unit: InteractionMetricRowView["unit"]): string {
  if (value === null) return "—";
  if (unit === "seconds") return `${value.toFixed(2)} s`;
  if (unit === "rate") return formatPercent(value);
  return value.toFixed(2);
}

/** A 95% interval in the metric's unit (`40.0%–90.0%`), or "" when there is none. */
export function formatInterval(
  interval: { low: number; high: number } | null | undefined,
  unit: InteractionMetricRowView["unit"],
): string {
  if (!interval) return "";
  return `${formatMetric(interval.low, unit)}–${formatMetric(interval.high, unit)}`;
}
