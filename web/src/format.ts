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

/** Reward colour: red (0) through amber to green (1); grey when not evaluated. */
export function rewardColor(reward: number | null): string {
  if (reward === null) return "var(--muted-cell)";
  const hue = Math.round(Math.max(0, Math.min(1, reward)) * 130);
  return `hsl(${hue} 65% 45%)`;
}
