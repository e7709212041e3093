import type { HarvestPoint } from '../../../crawler/protocol/api.ts';

/**
 * At most `max` items, evenly spaced by index, always keeping the first and the last, so
 * a chart of a long crawl costs the same as a short one and still ends at "now".
 */
export function sampleEvenly<T>(items: readonly T[], max: number): T[] {
  const limit = Math.max(2, Math.floor(max));
  if (items.length <= limit) return items.slice();
  const out: T[] = [];
  const step = (items.length - 1) / (limit - 1);
  for (let i = 0; i < limit; i++) out.push(items[Math.round(i * step)] as T);
  return out;
}

/** uPlot columns for the live chart: pages fetched, harvest rate, hot pages. */
export type HarvestColumns = [number[], number[], number[]];

export function harvestColumns(series: readonly HarvestPoint[], max: number): HarvestColumns {
  const xs: number[] = [];
  const rates: number[] = [];
  const hot: number[] = [];
  let lastX = -Infinity;
  for (const point of sampleEvenly(series, max)) {
    // uPlot needs x strictly increasing; a repeated count keeps its latest values.
    if (point.fetched <= lastX) {
      rates[rates.length - 1] = point.harvestRate;
      hot[hot.length - 1] = point.hot;
      continue;
    }
    lastX = point.fetched;
    xs.push(point.fetched);
    rates.push(point.harvestRate);
    hot.push(point.hot);
  }
  return [xs, rates, hot];
}

/** A cheap identity of a series, to skip redrawing when nothing new arrived. */
export function seriesKey(series: readonly HarvestPoint[]): string {
  const last = series.at(-1);
  return last === undefined ? '0' : `${series.length}:${last.fetched}:${last.hot}:${last.harvestRate}`;
}

export interface Curve {
  x: readonly number[];
  y: readonly (number | null)[];
}

export interface AlignedCurves {
  x: number[];
  ys: (number | null)[][];
}

/**
 * Puts curves sampled at different x on one shared, increasing x (what uPlot wants): each
 * curve has its value where it was sampled and null elsewhere (the chart spans the gaps).
 */
export function alignCurves(curves: readonly Curve[], maxPerCurve: number): AlignedCurves {
  const sampled = curves.map((curve) => {
    const points = curve.x.map((x, i) => ({ x, y: curve.y[i] ?? null }));
    return sampleEvenly(points, maxPerCurve);
  });
  const xs = [...new Set(sampled.flatMap((points) => points.map((p) => p.x)))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const ys = sampled.map((points) => {
    const column: (number | null)[] = new Array<number | null>(xs.length).fill(null);
    for (const p of points) column[index.get(p.x) as number] = p.y;
    return column;
  });
  return { x: xs, ys };
}
