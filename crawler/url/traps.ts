/**
 * Crawler-trap heuristics for a canonical URL: shapes that generated link spaces take.
 * Each check is a string scan over one URL; none looks at other URLs (the engine caps
 * pages per host, which bounds whatever slips through).
 *
 * Reason codes, checked in this order:
 * - 'url-too-long': href longer than maxUrlLength.
 * - 'trap:deep-path': more than maxPathDepth path segments (empty ones count: //// is a trap too).
 * - 'trap:repeated-segments': one segment (compared lowercase, without ;params) occurs more
 *   than maxSegmentRepeats times anywhere in the path: /a/b/a/b/a/b, /x/x/x, /a/1/a/2/a/3.
 *   Relative links on misconfigured sites grow paths this way.
 * - 'trap:query-explosion': more than maxQueryParams non-empty parameters, or a query longer
 *   than maxQueryLength.
 * - 'trap:repeated-params': one parameter name more than maxParamRepeats times
 *   (?page=2&page=3&page=4: links that append instead of replace; faceted combinations).
 * - 'trap:session-id': a session-id query or path parameter (isSessionIdParam): each visit
 *   mints new URLs. canonicalize's stripSessionIds option removes them instead.
 * - 'trap:calendar': see calendarTrap below.
 */
import { isSessionIdParam, MAX_URL_LENGTH } from './canonical.ts';

export interface TrapOptions {
  maxUrlLength?: number;
  maxPathDepth?: number;
  maxSegmentRepeats?: number;
  maxQueryParams?: number;
  maxQueryLength?: number;
  maxParamRepeats?: number;
  /** Dates more than this many years after the current year are traps. */
  yearsAhead?: number;
  /** In a calendar context, dates more than this many years before the current year are traps. */
  yearsBehind?: number;
  /** Dates before this year are traps when the evidence that they are dates is strong. */
  minYear?: number;
  /** Flag session-id parameters. */
  sessionIds?: boolean;
  /** The present, for the calendar rule (ms since the epoch or a Date). Default: now. */
  now?: number | Date;
}

export const TRAP_DEFAULTS = {
  maxUrlLength: MAX_URL_LENGTH,
  maxPathDepth: 16,
  maxSegmentRepeats: 2,
  maxQueryParams: 10,
  maxQueryLength: 512,
  maxParamRepeats: 2,
  yearsAhead: 2,
  yearsBehind: 2,
  minYear: 1990,
  sessionIds: true,
} as const;

export type TrapReason =
  | 'url-too-long'
  | 'trap:deep-path'
  | 'trap:repeated-segments'
  | 'trap:query-explosion'
  | 'trap:repeated-params'
  | 'trap:session-id'
  | 'trap:calendar';

/** The first trap the URL shows, or null. */
export function detectTrap(url: URL, opts?: TrapOptions): TrapReason | null {
  if (url.href.length > (opts?.maxUrlLength ?? TRAP_DEFAULTS.maxUrlLength)) return 'url-too-long';
  const segments = url.pathname.split('/');
  segments.shift();
  if (segments.length > 0 && segments[segments.length - 1] === '') segments.pop();
  if (segments.length > (opts?.maxPathDepth ?? TRAP_DEFAULTS.maxPathDepth)) return 'trap:deep-path';
  if (hasRepeatedSegment(segments, opts?.maxSegmentRepeats ?? TRAP_DEFAULTS.maxSegmentRepeats)) return 'trap:repeated-segments';

  const search = url.search;
  const names: string[] = [];
  const values: string[] = [];
  if (search.length > 1) {
    if (search.length - 1 > (opts?.maxQueryLength ?? TRAP_DEFAULTS.maxQueryLength)) return 'trap:query-explosion';
    for (const pair of search.slice(1).split('&')) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      names.push(eq === -1 ? pair : pair.slice(0, eq));
      values.push(eq === -1 ? '' : pair.slice(eq + 1));
    }
    if (names.length > (opts?.maxQueryParams ?? TRAP_DEFAULTS.maxQueryParams)) return 'trap:query-explosion';
    if (hasRepeatedName(names, opts?.maxParamRepeats ?? TRAP_DEFAULTS.maxParamRepeats)) return 'trap:repeated-params';
  }
  if ((opts?.sessionIds ?? TRAP_DEFAULTS.sessionIds) && hasSessionId(segments, names, values)) return 'trap:session-id';
  if (hasFourDigitRun(url.pathname) || hasFourDigitRun(search)) {
    if (calendarTrap(segments, names, values, opts)) return 'trap:calendar';
  }
  return null;
}

function segmentKey(segment: string): string {
  const semi = segment.indexOf(';');
  return (semi === -1 ? segment : segment.slice(0, semi)).toLowerCase();
}

function hasRepeatedSegment(segments: readonly string[], maxRepeats: number): boolean {
  if (segments.length <= maxRepeats) return false;
  const keys = segments.map(segmentKey);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (key === '') continue;
    let count = 1;
    for (let j = i + 1; j < keys.length; j++) {
      if (keys[j] === key && ++count > maxRepeats) return true;
    }
  }
  return false;
}

function hasRepeatedName(names: readonly string[], maxRepeats: number): boolean {
  if (names.length <= maxRepeats) return false;
  for (let i = 0; i < names.length; i++) {
    let count = 1;
    for (let j = i + 1; j < names.length; j++) {
      if (names[j] === names[i] && ++count > maxRepeats) return true;
    }
  }
  return false;
}

function hasSessionId(segments: readonly string[], names: readonly string[], values: readonly string[]): boolean {
  for (let i = 0; i < names.length; i++) {
    if (isSessionIdParam(names[i] as string, values[i] as string)) return true;
  }
  for (const segment of segments) {
    if (segment.indexOf(';') === -1) continue;
    const params = segment.split(';');
    for (let i = 1; i < params.length; i++) {
      const p = params[i] as string;
      const eq = p.indexOf('=');
      if (eq !== -1 && isSessionIdParam(p.slice(0, eq), p.slice(eq + 1))) return true;
    }
  }
  return false;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function hasFourDigitRun(s: string): boolean {
  let run = 0;
  for (let i = 0; i < s.length; i++) {
    run = isDigit(s.charCodeAt(i)) ? run + 1 : 0;
    if (run === 4) return true;
  }
  return false;
}

// A word of a segment or parameter name that marks a calendar view.
const CALENDAR_WORD = /calend|kalend|agenda|(?:^|[^a-z])cal(?:[^a-z]|$)/;
const YEAR_NAME = /year|jahr|^(?:y|yr|yy|yyyy)$/;
const DATE_NAME = /date|day|month|week|^(?:d|m|mo|mm|dd|ym|ymd)$/;
// 'YYYY-MM' or 'YYYY-MM-DD' (separators - _ . /) not inside a longer number.
const DATE_IN_TEXT = /(?:^|\D)(\d{4})[-_./](\d{1,2})(?:[-_./](\d{1,2}))?(?!\d)/;
const COMPACT_DATE = /^(\d{4})(\d{2})(\d{2})$/;
const FOUR_DIGITS = /^\d{4}$/;
// A calendar walking forward passes through the first years after the window, so weak
// evidence only needs to count those; beyond them a 4-digit number is more likely an id.
const WEAK_EVIDENCE_YEARS = 20;
const MONTH_SEGMENT = /^(?:0[1-9]|1[0-2])$/;
const DAY_SEGMENT = /^(?:0?[1-9]|[12]\d|3[01])$/;

function validMonth(m: string | undefined): boolean {
  const v = Number(m);
  return v >= 1 && v <= 12;
}

function validDay(d: string | undefined): boolean {
  const v = Number(d);
  return v >= 1 && v <= 31;
}

/**
 * Infinite calendars: every page links the next and the previous month or day, forever.
 * A year is collected from the URL with its evidence:
 * - strong: a full date (/2031/07/14/, 2031-07-14, ?d=20310714 in a date-named parameter),
 *   a 4-digit value of a year-named parameter (?year=2031), a YYYY-MM value of a
 *   date-named parameter (?month=2031-07), or any 4-digit token in a calendar context;
 * - weak: a year-month only (/2031/07/ with a two-digit month, or 2031-07 in a segment or
 *   value).
 * Calendar context: a path segment or parameter name with a calendar word (calendar,
 * kalender, agenda, cal), or both a year-named and a date-named parameter (?month=7&year=2031).
 * The URL is a trap when a year is
 * - more than yearsAhead after the current year (no one publishes in 2031: a calendar ran
 *   off the end); for weak evidence only in the 20 years after that, as 4-digit ids abound;
 * - or, for strong evidence, before minYear (before the web, dated pages are generated);
 * - or, in a calendar context, more than yearsBehind before the current year.
 * So /2019/05/14/my-post and ?date=2019-05-14 pass, /calendar/2019/05/ and /2031/07/ do not.
 */
function calendarTrap(segments: readonly string[], names: readonly string[], values: readonly string[], opts: TrapOptions | undefined): boolean {
  const lowerNames = names.map((n) => n.toLowerCase());
  const yearNamed = lowerNames.some((n) => YEAR_NAME.test(n));
  const dateNamed = lowerNames.some((n) => DATE_NAME.test(n));
  const context = (yearNamed && dateNamed) ||
    lowerNames.some((n) => CALENDAR_WORD.test(n)) ||
    segments.some((s) => CALENDAR_WORD.test(s.toLowerCase()));

  const nowYear = opts?.now === undefined ? new Date().getUTCFullYear() : new Date(opts.now).getUTCFullYear();
  const ahead = nowYear + (opts?.yearsAhead ?? TRAP_DEFAULTS.yearsAhead);
  const behind = nowYear - (opts?.yearsBehind ?? TRAP_DEFAULTS.yearsBehind);
  const minYear = opts?.minYear ?? TRAP_DEFAULTS.minYear;
  const isTrapYear = (year: number, strong: boolean): boolean => {
    if (!strong) return year > ahead && year <= ahead + WEAK_EVIDENCE_YEARS;
    return year > ahead || year < minYear || (context && year < behind);
  };

  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i] as string;
    if (!hasFourDigitRun(seg)) continue;
    if (FOUR_DIGITS.test(seg)) {
      const year = Number(seg);
      if (MONTH_SEGMENT.test(segments[i + 1] ?? '')) {
        const fullDate = DAY_SEGMENT.test(segments[i + 2] ?? '');
        if (isTrapYear(year, fullDate || context)) return true;
      } else if (context && isTrapYear(year, true)) {
        return true;
      }
      continue;
    }
    if (textHasTrapDate(seg, context, context, isTrapYear)) return true;
  }
  for (let i = 0; i < values.length; i++) {
    const value = values[i] as string;
    if (!hasFourDigitRun(value)) continue;
    const name = lowerNames[i] as string;
    const isYearName = YEAR_NAME.test(name);
    const isDateName = DATE_NAME.test(name) || CALENDAR_WORD.test(name);
    if (FOUR_DIGITS.test(value)) {
      if ((isYearName || isDateName || context) && isTrapYear(Number(value), true)) return true;
      continue;
    }
    const compact = COMPACT_DATE.exec(value);
    if (compact !== null) {
      if ((isDateName || context) && validMonth(compact[2]) && validDay(compact[3]) && isTrapYear(Number(compact[1]), true)) return true;
      continue;
    }
    if (textHasTrapDate(decodeSlashes(value), isDateName || isYearName || context, context, isTrapYear)) return true;
  }
  return false;
}

function textHasTrapDate(text: string, strongYearMonth: boolean, anyYear: boolean, isTrapYear: (year: number, strong: boolean) => boolean): boolean {
  const m = DATE_IN_TEXT.exec(text);
  if (m !== null && validMonth(m[2])) {
    const fullDate = m[3] !== undefined && validDay(m[3]);
    if (isTrapYear(Number(m[1]), fullDate || strongYearMonth)) return true;
  }
  if (!anyYear) return false;
  for (const token of text.split(/\D+/)) {
    if (token.length === 4 && isTrapYear(Number(token), true)) return true;
  }
  return false;
}

function decodeSlashes(value: string): string {
  return value.indexOf('%2F') === -1 ? value : value.replaceAll('%2F', '/');
}
