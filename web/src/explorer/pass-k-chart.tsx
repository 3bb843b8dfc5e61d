import { useMemo } from "react";
import type { PassKPoint } from "../../../src/server/api-schemas.js";
import { EChart, type ChartOption } from "../components/echart.js";
import { formatPercent } from "../format.js";

export interface PassKSeries {
  name: string;
  points: readonly PassKPoint[];
}

const COLORS = ["#2563eb", "#db2777", "#16a34a", "#ea580c", "#7c3aed", "#0891b2"];

/** pass^k for k = 1…K, one line per run, each with its bootstrap confidence band. */
export function PassKChart(props: { series: readonly PassKSeries[]; height?: number }) {
  const option = useMemo((): ChartOption => {
    const maxK = Math.max(1, ...props.series.map((s) => s.points.length));
    const ks = Array.from({ length: maxK }, (_, i) => String(i + 1));
    const series = props.series.flatMap((run, i) => {
      const color = COLORS[i % COLORS.length]!;
      const stack = `band-${i}`;
      const lows = run.points.map((p) => p.low ?? p.value);
      const widths = run.points.map((p) => (p.high ?? p.value) - (p.low ?? p.value));
      // One trial per task: a band over one k has no width, so its interval is drawn as a whisker.
      const single = run.points.length === 1 ? run.points[0] : undefined;
      const whisker =
        single && single.low !== null && single.high !== null
          ? {
              markLine: {
                symbol: ["circle", "circle"],
                symbolSize: 5,
                silent: true,
                label: { show: false },
                lineStyle: { color, width: 3, type: "solid", opacity: 0.55 },
                data: [[{ coord: ["1", single.low] }, { coord: ["1", single.high] }]],
              },
            }
          : {};
      return [
        {
          name: `${run.name} low`,
          type: "line",
          data: lows,
          stack,
          symbol: "none",
          lineStyle: { opacity: 0 },
          tooltip: { show: false },
          silent: true,
        },
        {
          name: `${run.name} band`,
          type: "line",
          data: widths,
          stack,
          symbol: "none",
          lineStyle: { opacity: 0 },
          areaStyle: { color, opacity: 0.15 },
          tooltip: { show: false },
          silent: true,
        },
        {
          name: run.name,
          type: "line",
          data: run.points.map((p) => p.value),
          color,
          symbolSize: 7,
          lineStyle: { width: 2.5 },
          ...whisker,
        },
      ];
    });
    return {
      animation: false,
      grid: { left: 48, right: 16, top: 36, bottom: 36 },
      legend: { data: props.series.map((s) => s.name), top: 0, type: "scroll" },
      tooltip: {
        trigger: "axis",
        valueFormatter: (value: unknown) =>
          typeof value === "number" ? formatPercent(value) : String(value),
      },
      xAxis: { type: "category", data: ks, name: "k", nameLocation: "middle", nameGap: 24 },
      yAxis: {
        type: "value",
        min: 0,
        max: 1,
        axisLabel: { formatter: (v: number) => `${Math.round(v * 100)}%` },
      },
      series,
    };
  }, [props.series]);
  const interval = (p: PassKPoint) =>
    p.low !== null && p.high !== null
      ? ` (95% interval ${formatPercent(p.low, 0)}–${formatPercent(p.high, 0)})`
      : "";
  const summary = props.series
    .map(
      (s) =>
        `${s.name}: ${s.points.map((p) => `pass^${p.k} ${formatPercent(p.value)}${interval(p)}`).join(", ")}`,
    )
    .join("; ");
  return (
    <EChart
      option={option}
      height={props.height ?? 280}
      summary={`pass^k chart. ${summary}`}
      testId="pass-k-chart"
    />
  );
}
