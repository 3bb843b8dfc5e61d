import { BarChart, LineChart } from "echarts/charts";
import { GridComponent, LegendComponent, MarkLineComponent, TooltipComponent } from "echarts/components";
import * as echarts from "echarts/core";
import { CanvasRenderer } from "echarts/renderers";
import { useEffect, useRef } from "react";

echarts.use([
  LineChart,
  BarChart,
  GridComponent,
  LegendComponent,
  MarkLineComponent,
  TooltipComponent,
  CanvasRenderer,
]);

export type ChartOption = echarts.EChartsCoreOption;

/** An ECharts canvas that follows its container's size; `summary` is what screen readers get. */
export function EChart(props: { option: ChartOption; height: number; summary: string; testId?: string }) {
  const element = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);
  useEffect(() => {
    if (!element.current) return;
    const instance = echarts.init(element.current, undefined, { renderer: "canvas" });
    chart.current = instance;
    const observer = new ResizeObserver(() => instance.resize());
    observer.observe(element.current);
    return () => {
      observer.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, []);
  useEffect(() => {
    chart.current?.setOption(props.option, { notMerge: true });
  }, [props.option]);
  return (
    <figure className="chart" data-testid={props.testId}>
      <div
        ref={element}
        style={{ height: props.height, width: "100%" }}
        role="img"
        aria-label={props.summary}
      />
      <figcaption className="visually-hidden">{props.summary}</figcaption>
    </figure>
  );
}
