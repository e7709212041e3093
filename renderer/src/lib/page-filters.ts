/*
 * The library's filter by what refreshes found: pages changed or new within a period, or
 * gone. A period is counted back from when the list is asked for.
 */
import type { PageListInput } from '../../../crawler/protocol/api.ts';

export type ChangeFilter = 'all' | 'changed' | 'new' | 'gone';

export type Period = 'hour' | 'day' | 'week' | 'month' | 'ever';

const HOUR_MS = 60 * 60 * 1000;

export const PERIODS: readonly { value: Period; label: string; ms: number | null }[] = [
  { value: 'hour', label: 'in the last hour', ms: HOUR_MS },
  { value: 'day', label: 'in the last day', ms: 24 * HOUR_MS },
  { value: 'week', label: 'in the last 7 days', ms: 7 * 24 * HOUR_MS },
  { value: 'month', label: 'in the last 30 days', ms: 30 * 24 * HOUR_MS },
  { value: 'ever', label: 'ever', ms: null },
];

export const CHANGE_FILTERS: readonly { value: ChangeFilter; label: string }[] = [
  { value: 'all', label: 'All pages' },
  { value: 'changed', label: 'Changed' },
  { value: 'new', label: 'New' },
  { value: 'gone', label: 'Gone' },
];

/** Whether the filter reads a period (gone pages are gone whenever they went). */
export function usesPeriod(filter: ChangeFilter): boolean {
  return filter === 'changed' || filter === 'new';
}

/** The listPages conditions for a filter and period, counted back from `now` (epoch ms). */
export function changeQuery(filter: ChangeFilter, period: Period, now: number): Pick<PageListInput, 'changedSince' | 'newSince' | 'gone'> {
  const span = PERIODS.find((p) => p.value === period)?.ms ?? null;
  const since = span === null ? 0 : Math.max(0, now - span);
  switch (filter) {
    case 'all':
      return {};
    case 'changed':
      return { changedSince: since };
    case 'new':
      return { newSince: since };
    case 'gone':
      return { gone: true };
  }
}

/** What an empty list under the filter means, in words. */
export function describeNoMatch(filter: ChangeFilter, period: Period): string {
  const when = PERIODS.find((p) => p.value === period)?.label ?? '';
  switch (filter) {
    case 'all':
      return 'No pages match.';
    case 'changed':
      return `No page was found changed ${when}. Refresh the collection from its dashboard to look for changes.`;
    case 'new':
      return `No page was first fetched ${when}.`;
    case 'gone':
      return 'No page is gone: every revisit found its page still there.';
  }
}
