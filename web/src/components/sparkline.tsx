import { formatPercent } from "../format.js";

/**
 * pass^1…pass^k as a small line (0 at the bottom, 100% at the top): how fast reliability falls as
 * more attempts must all succeed. The values are in its label for screen readers and the tooltip.
 */
export function PassKSparkline(props: {
  passHatKs: Record<string, number>;
  width?: number;
  height?: number;
}) {
  const width = props.width ?? 84;
  const height = props.height ?? 24;
  const points = Object.entries(props.passHatKs)
    .map(([k, value]) => ({ k: Number(k), value }))
    .sort((a, b) => a.k - b.k);
  const label = `pass^k curve: ${points.map((p) => `pass^${p.k} ${formatPercent(p.value)}`).join(", ")}`;
  if (points.length === 0) return null;
  const pad = 3;
  const x = (i: number) =>
    points.length === 1 ? width / 2 : pad + (i * (width - 2 * pad)) / (points.length - 1);
  const y = (v: number) => pad + (1 - Math.max(0, Math.min(1, v))) * (height - 2 * pad);
  const path = points.map((p, i) => `${x(i).toFixed(1)},${y(p.value).toFixed(1)}`).join(" ");
  return (
    <svg
      className="sparkline"
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={label}
      data-testid="sparkline"
    >
      <title>{label}</title>
      <line x1={pad} x2={width - pad} y1={y(0)} y2={y(0)} className="sparkline-axis" />
      {points.length > 1 && <polyline points={path} className="sparkline-line" fill="none" />}
      {points.map((p, i) => (
        <circle
          key={p.k}
          cx={x(i)}
          cy={y(p.value)}
          r={i === 0 || i === points.length - 1 ? 2.2 : 1.4}
          className="sparkline-dot"
        />
      ))}
    </svg>
  );
}
