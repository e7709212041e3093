import { memo, useMemo } from 'react';
import type uPlot from 'uplot';
import type { HarvestPoint } from '../../../../crawler/protocol/api.ts';
import { UPlotChart } from '../../components/UPlotChart.tsx';
import { harvestColumns, seriesKey } from '../../lib/series.ts';

/** Enough points for a chart a few hundred pixels wide, whatever the crawl's length. */
const MAX_POINTS = 600;

const OPTIONS: Omit<uPlot.Options, 'width' | 'height'> = {
  scales: { x: { time: false }, rate: { range: [0, 1] }, hot: {} },
  series: [
    { label: 'Pages fetched' },
    { label: 'Harvest rate', scale: 'rate', stroke: '#1f7a6d', width: 2, value: (_u, v) => (v === null ? '–' : `${(v * 100).toFixed(1)}%`) },
    { label: 'Hot pages', scale: 'hot', stroke: '#b5651d', width: 2, value: (_u, v) => (v === null ? '–' : String(v)) },
  ],
  axes: [
    { label: 'Pages fetched' },
    { scale: 'rate', label: 'Harvest rate', values: (_u, ticks) => ticks.map((t) => `${Math.round(t * 100)}%`) },
    { scale: 'hot', side: 1, label: 'Hot pages', grid: { show: false } },
  ],
  cursor: { drag: { x: false, y: false } },
};

export const HarvestChart = memo(
  function HarvestChart({ series }: { series: HarvestPoint[] }) {
    const data = useMemo<uPlot.AlignedData>(() => harvestColumns(series, MAX_POINTS), [series]);
    if (series.length === 0) return <p className="muted chart-empty">The chart starts with the first pages fetched.</p>;
    return <UPlotChart options={OPTIONS} data={data} height={260} label="Harvest rate and hot pages over pages fetched" />;
  },
  (a, b) => seriesKey(a.series) === seriesKey(b.series),
);
