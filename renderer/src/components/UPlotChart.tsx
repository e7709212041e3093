import { memo, useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

interface UPlotChartProps {
  /** Must keep its identity while the chart's shape stays the same: a new object rebuilds the chart. */
  options: Omit<uPlot.Options, 'width' | 'height'>;
  data: uPlot.AlignedData;
  height: number;
  /** Read by screen readers in place of the canvas. */
  label: string;
}

/** A uPlot chart that is built once and then updated in place with setData. */
export const UPlotChart = memo(function UPlotChart({ options, data, height, label }: UPlotChartProps) {
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);
  const latestData = useRef(data);
  latestData.current = data;

  useEffect(() => {
    const element = host.current;
    if (element === null) return;
    let plot: uPlot | null = null;
    let resize: ResizeObserver | null = null;
    // Built in a task of its own, not in the one that commits the screen around it.
    const timer = setTimeout(() => {
      const built = new uPlot({ ...options, width: Math.max(200, element.clientWidth), height }, latestData.current, element);
      resize = new ResizeObserver(() => {
        const width = Math.max(200, element.clientWidth);
        if (width !== built.width) built.setSize({ width, height });
      });
      resize.observe(element);
      plot = built;
      chart.current = built;
    }, 0);
    return () => {
      clearTimeout(timer);
      resize?.disconnect();
      plot?.destroy();
      chart.current = null;
    };
  }, [options, height]);

  useEffect(() => {
    chart.current?.setData(data);
  }, [data]);

  return <div className="chart" ref={host} role="img" aria-label={label} />;
});
