/*
 * Numbers and times in words for the screens. English only, fixed separators, so the
 * figures read the same on every machine and tests can compare them.
 */
const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** A count with thousands separators: 12,345. */
export function formatCount(n: number): string {
  return Number.isFinite(n) ? grouped.format(n) : '–';
}

/** A plain number with a fixed number of decimals and no separators, for figures that programs read. */
export function formatPlain(n: number, decimals: number): string {
  return Number.isFinite(n) ? n.toFixed(decimals) : '0';
}

/** A fraction as a percentage: 0.4123 → "41.2%"; null → "–". */
export function formatPercent(fraction: number | null, decimals = 1): string {
  if (fraction === null || !Number.isFinite(fraction)) return '–';
  return `${(fraction * 100).toFixed(decimals)}%`;
}

/** A score or relevance with three decimals; null → "–". */
export function formatScore(n: number | null): string {
  if (n === null || !Number.isFinite(n)) return '–';
  return n.toFixed(3);
}

const BYTE_UNITS = ['kB', 'MB', 'GB', 'TB'] as const;

/** Decimal byte units: 512 B, 1.5 kB, 3.2 MB. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 1000) return `${Number.isFinite(bytes) ? Math.max(0, Math.round(bytes)) : 0} B`;
  let value = bytes;
  let unit = 'B';
  for (const next of BYTE_UNITS) {
    if (value < 1000) break;
    value /= 1000;
    unit = next;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${unit}`;
}

/** A span of time: 45 s, 3 min 5 s, 2 h 3 min. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return seconds % 60 === 0 ? `${minutes} min` : `${minutes} min ${seconds % 60} s`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}

/** How long ago an ISO time was: "just now", "5 s ago", "3 min ago", "2 h ago", "4 days ago"; null → "never". */
export function formatAgo(iso: string | null, nowMs: number): string {
  if (iso === null) return 'never';
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return 'unknown';
  const seconds = Math.floor((nowMs - then) / 1000);
  if (seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} days ago`;
}

/** How long until an ISO time: "now" when it has passed or is null, else "in 1.2 s", "in 3 min". */
export function formatWait(iso: string | null, nowMs: number): string {
  if (iso === null) return 'now';
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return 'unknown';
  const ms = then - nowMs;
  if (ms <= 0) return 'now';
  if (ms < 10_000) return `in ${(ms / 1000).toFixed(1)} s`;
  return `in ${formatDuration(ms)}`;
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** An ISO time as a local date and time to the second, "2026-05-10 14:03:07"; "unknown" when it is no time. */
export function formatDateTime(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return 'unknown';
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
}
