/*
 * Form text to API input, with every problem as a sentence next to its field. The defaults
 * and limits are the settings schema's (crawler/protocol/settings.ts), which the service
 * checks too: checked here first so the user hears about a typo before the service does.
 */
import type { ExportFilter, NewCollectionInput, SessionInfo } from '../../../crawler/protocol/api.ts';
import { DEFAULT_SETTINGS, NEW_CRAWL_INPUT_BOUNDS, numberRange, type NumberRange, type RenderMode, type ScopeMode, type SpendMode } from '../../../crawler/protocol/settings.ts';
import { readUrlPattern } from '../../../crawler/protocol/url-pattern.ts';
import { proxySettingProblem } from '../../../crawler/protocol/proxy-url.ts';
import { parseCookieLines } from '../../../crawler/protocol/cookies-txt.ts';
import { parseSeedLines } from './seeds.ts';

export type FieldErrors<K extends string> = Partial<Record<K, string>>;
export type Parsed<T, K extends string> = { ok: true; value: T } | { ok: false; errors: FieldErrors<K> };

type NumberResult = { ok: true; value: number | undefined } | { ok: false; error: string };

interface NumberRule extends NumberRange {
  what: string;
}

const formatNumber = (n: number): string => n.toLocaleString('en-US');

/** An optional number field: blank → undefined. */
export function parseNumberField(text: string, rule: NumberRule): NumberResult {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, value: undefined };
  const value = Number(trimmed);
  if (!Number.isFinite(value)) return { ok: false, error: `${rule.what} must be a number.` };
  if (rule.integer && !Number.isInteger(value)) return { ok: false, error: `${rule.what} must be a whole number.` };
  if (value < rule.min || value > rule.max) {
    // A setting without an upper limit has Number.MAX_SAFE_INTEGER as its maximum, which says nothing to a person.
    const range = rule.max >= Number.MAX_SAFE_INTEGER ? `at least ${formatNumber(rule.min)}` : `between ${formatNumber(rule.min)} and ${formatNumber(rule.max)}`;
    return { ok: false, error: `${rule.what} must be ${range}.` };
  }
  return { ok: true, value };
}

export interface NewCrawlFields {
  name: string;
  query: string;
  seeds: string;
  maxPages: string;
  delayMs: string;
  scope: ScopeMode;
  strategy: string;
  concurrency: string;
  maxDepth: string;
  hotPredicate: string;
  hotThreshold: string;
  allowPrivate: boolean;
  render: RenderMode;
  spend: SpendMode;
  /** How long after its last check a stored page is revisited by a crawl that keeps going; '' never. */
  revisitAfter: string;
  /** The documents read besides web pages (the `documents` setting: pdf,text, pdf, text or none). */
  documents: string;
  /** The largest document downloaded, in MiB as typed. */
  maxDocumentMiB: string;
  /** Include patterns, one a line (the `include` setting). */
  include: string;
  /** Exclude patterns, one a line (the `exclude` setting). */
  exclude: string;
  /** The `proxy` setting: '' the app's environment (HTTPS_PROXY…), `none` direct, or a proxy URL. */
  proxy: string;
  /** A Netscape cookies.txt's text, for a logged-in session; '' none. */
  cookies: string;
}

export type NewCrawlField = keyof NewCrawlFields;

const numberText = (value: number | null): string => (value === null ? '' : String(value));

const MIB = 1024 * 1024;

/** The largest document, typed in MiB: the settings schema's byte limits in whole MiB. */
export const DOCUMENT_MIB_RULE: NumberRule = {
  what: 'The largest document',
  min: Math.ceil(numberRange('maxDocumentBytes').min / MIB),
  max: Math.floor(numberRange('maxDocumentBytes').max / MIB),
  integer: true,
};

/** The form as it opens: the settings' defaults (a blank hot rule means the default rule). */
export const NEW_CRAWL_DEFAULTS: NewCrawlFields = {
  name: '',
  query: '',
  seeds: '',
  maxPages: numberText(DEFAULT_SETTINGS.maxPages),
  delayMs: numberText(DEFAULT_SETTINGS.delayMs),
  scope: DEFAULT_SETTINGS.scope,
  strategy: DEFAULT_SETTINGS.strategy,
  concurrency: numberText(DEFAULT_SETTINGS.concurrency),
  maxDepth: numberText(DEFAULT_SETTINGS.maxDepth),
  hotPredicate: DEFAULT_SETTINGS.hotPredicate ?? '',
  hotThreshold: numberText(DEFAULT_SETTINGS.hotThreshold),
  allowPrivate: DEFAULT_SETTINGS.allowPrivate,
  render: DEFAULT_SETTINGS.render,
  spend: DEFAULT_SETTINGS.spend,
  revisitAfter: DEFAULT_SETTINGS.revisitAfter,
  documents: DEFAULT_SETTINGS.documents,
  maxDocumentMiB: numberText(DEFAULT_SETTINGS.maxDocumentBytes / MIB),
  include: DEFAULT_SETTINGS.include.join('\n'),
  exclude: DEFAULT_SETTINGS.exclude.join('\n'),
  proxy: DEFAULT_SETTINGS.proxy,
  cookies: '',
};

export interface PatternLines {
  /** The patterns, in order, blank lines left out. */
  patterns: string[];
  /** One sentence per pattern the crawl would refuse, and for too many. */
  problems: string[];
}

/**
 * Reads an include or exclude box: one pattern a line, spaces around it and blank lines
 * ignored, each read as the crawler reads it (crawler/protocol/url-pattern.ts).
 */
export function parsePatternLines(text: string): PatternLines {
  const patterns: string[] = [];
  const problems: string[] = [];
  text.split(/\r\n|\r|\n/).forEach((raw, index) => {
    const pattern = raw.trim();
    if (pattern === '') return;
    const reading = readUrlPattern(pattern);
    if (reading.ok) patterns.push(pattern);
    else problems.push(`Line ${index + 1}: ${reading.why}.`);
  });
  const max = NEW_CRAWL_INPUT_BOUNDS.patternCount;
  if (patterns.length > max) problems.push(`There are ${patterns.length} patterns; at most ${max} are allowed.`);
  return { patterns, problems };
}

/** What is wrong with the proxy field (trimmed), checked as the crawler checks the setting; undefined when nothing is. */
export function proxyFieldError(text: string): string | undefined {
  const proxy = text.trim();
  if (proxy.length > NEW_CRAWL_INPUT_BOUNDS.proxyLength) return `The proxy is too long (at most ${formatNumber(NEW_CRAWL_INPUT_BOUNDS.proxyLength)} characters).`;
  const problem = proxySettingProblem(proxy);
  // The problem never quotes the URL: it may hold the proxy's password.
  return problem === undefined ? undefined : `This proxy ${problem}.`;
}

/** The cookies that would be imported (none while there are problems), and the sites they are for, sorted. */
export interface CookiesReading extends SessionInfo {
  /** One sentence per malformed line (never quoting it: a cookie's value is a secret), or why the text cannot be used. */
  problems: string[];
}

/** Malformed lines listed at most: a paste that is not a cookies.txt would otherwise list itself line by line. */
const MAX_COOKIE_PROBLEMS_SHOWN = 10;

/**
 * Reads the cookies box as the service will (crawler/protocol/cookies-txt.ts); the service also
 * refuses a domain that is a public suffix, which only it can tell.
 */
export function readCookiesField(text: string): CookiesReading {
  if (text.trim() === '') return { cookies: 0, domains: [], problems: [] };
  const max = NEW_CRAWL_INPUT_BOUNDS.cookiesLength;
  if (text.length > max) return { cookies: 0, domains: [], problems: [`The cookies are too long: at most ${formatNumber(max)} characters.`] };
  const reading = parseCookieLines(text);
  if (reading.problems.length > 0) {
    const problems = reading.problems.slice(0, MAX_COOKIE_PROBLEMS_SHOWN).map((p) => `Line ${p.line}: ${p.problem}.`);
    const more = reading.problems.length - MAX_COOKIE_PROBLEMS_SHOWN;
    if (more > 0) problems.push(`And ${more} more malformed ${more === 1 ? 'line' : 'lines'}.`);
    return { cookies: 0, domains: [], problems };
  }
  if (reading.cookies.length === 0) return { cookies: 0, domains: [], problems: ['No cookie in it is still valid: they have all expired, or there are only comments.'] };
  return { cookies: reading.cookies.length, domains: [...new Set(reading.cookies.map((c) => c.domain))].sort(), problems: [] };
}

/** The New crawl form's choices of documents to read (the CLI's --documents takes the same values). */
export const DOCUMENT_CHOICES: readonly { value: string; label: string }[] = [
  { value: 'pdf,text', label: 'PDF and plain text' },
  { value: 'pdf', label: 'PDF only' },
  { value: 'text', label: 'Plain text only' },
  { value: 'none', label: 'None: web pages only' },
];

/** The New crawl form's choices of revisit interval (the CLI's --revisit-after takes any duration). */
export const REVISIT_CHOICES: readonly { value: string; label: string }[] = [
  { value: '', label: 'Never: stop when the budget is spent' },
  { value: '1d', label: 'Every day' },
  { value: '7d', label: 'Every week' },
  { value: '30d', label: 'Every 30 days' },
];

/** The form's number fields: their names in words, and the settings schema's limits. */
export const NUMBER_RULES = {
  maxPages: { what: 'The page budget', ...numberRange('maxPages') },
  delayMs: { what: 'The politeness delay', ...numberRange('delayMs') },
  concurrency: { what: 'Concurrency', ...numberRange('concurrency') },
  maxDepth: { what: 'The maximum depth', ...numberRange('maxDepth') },
  hotThreshold: { what: 'The hot threshold', ...numberRange('hotThreshold') },
} satisfies Partial<Record<NewCrawlField, NumberRule>>;

export type NewCrawlNumberField = keyof typeof NUMBER_RULES;

const NAME_PATTERN = /^[\p{L}\p{N}_ -]+$/u;

export function newCrawlInput(fields: NewCrawlFields): Parsed<NewCollectionInput, NewCrawlField> {
  const errors: FieldErrors<NewCrawlField> = {};
  const query = fields.query.trim();
  if (query === '') errors.query = 'Describe what you are looking for: the driving query cannot be empty.';
  else if (query.length > NEW_CRAWL_INPUT_BOUNDS.queryLength) {
    errors.query = `The driving query is too long (at most ${formatNumber(NEW_CRAWL_INPUT_BOUNDS.queryLength)} characters).`;
  }

  const seeds = parseSeedLines(fields.seeds);
  if (seeds.problems.length > 0) errors.seeds = seeds.problems.join('\n');
  else if (seeds.urls.length === 0) errors.seeds = 'Give at least one seed URL, such as https://example.org/.';

  const name = fields.name.trim();
  if (name !== '' && (name.length > NEW_CRAWL_INPUT_BOUNDS.nameLength || !NAME_PATTERN.test(name))) {
    errors.name = `A collection name may hold letters, digits, spaces, “-” and “_” (at most ${NEW_CRAWL_INPUT_BOUNDS.nameLength} characters).`;
  }

  const numbers: Partial<Record<NewCrawlNumberField, number>> = {};
  for (const key of Object.keys(NUMBER_RULES) as NewCrawlNumberField[]) {
    const result = parseNumberField(fields[key], NUMBER_RULES[key]);
    if (!result.ok) errors[key] = result.error;
    else if (result.value !== undefined) numbers[key] = result.value;
  }
  for (const key of ['maxPages', 'delayMs', 'concurrency', 'maxDepth'] as const) {
    if (errors[key] === undefined && numbers[key] === undefined) errors[key] = `${NUMBER_RULES[key].what} cannot be empty.`;
  }

  const documentMiB = parseNumberField(fields.maxDocumentMiB, DOCUMENT_MIB_RULE);
  if (!documentMiB.ok) errors.maxDocumentMiB = documentMiB.error;

  const include = parsePatternLines(fields.include);
  if (include.problems.length > 0) errors.include = include.problems.join('\n');
  const exclude = parsePatternLines(fields.exclude);
  if (exclude.problems.length > 0) errors.exclude = exclude.problems.join('\n');

  const proxy = fields.proxy.trim();
  const proxyError = proxyFieldError(proxy);
  if (proxyError !== undefined) errors.proxy = proxyError;
  const cookies = readCookiesField(fields.cookies);
  if (cookies.problems.length > 0) errors.cookies = cookies.problems.join('\n');

  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const hotPredicate = fields.hotPredicate.trim();
  const input: NewCollectionInput = {
    query,
    seeds: seeds.urls,
    maxPages: numbers.maxPages,
    delayMs: numbers.delayMs,
    scope: fields.scope,
    strategy: fields.strategy,
    concurrency: numbers.concurrency,
    maxDepth: numbers.maxDepth,
    hotPredicate: hotPredicate === '' ? null : hotPredicate,
    hotThreshold: numbers.hotThreshold ?? null,
    allowPrivate: fields.allowPrivate,
    render: fields.render,
    spend: fields.spend,
    revisitAfter: fields.revisitAfter,
    documents: fields.documents,
    include: include.patterns,
    exclude: exclude.patterns,
    ...(documentMiB.ok && documentMiB.value !== undefined ? { maxDocumentBytes: documentMiB.value * MIB } : {}),
    start: true,
  };
  if (name !== '') input.name = name;
  if (proxy !== '') input.proxy = proxy;
  if (cookies.cookies > 0) input.cookies = fields.cookies;
  return { ok: true, value: input };
}

/** "0.05, 0.1 20%" → [0.05, 0.1, 0.2]: fractions of the stored pages, sorted, each once. */
export function parseBudgets(text: string): { ok: true; value: number[] } | { ok: false; error: string } {
  const items = text.split(/[\s,;]+/).filter((item) => item !== '');
  if (items.length === 0) return { ok: false, error: 'Give at least one budget, such as 0.1 for a tenth of the stored pages.' };
  const budgets = new Set<number>();
  for (const item of items) {
    const percent = item.endsWith('%');
    const value = Number(percent ? item.slice(0, -1) : item) / (percent ? 100 : 1);
    if (!Number.isFinite(value) || value <= 0 || value > 1) {
      return { ok: false, error: `“${item}” is not a budget: each budget is a fraction of the stored pages above 0 and at most 1 (or a percentage).` };
    }
    budgets.add(value);
  }
  if (budgets.size > 20) return { ok: false, error: 'At most 20 budgets can be compared at once.' };
  return { ok: true, value: [...budgets].sort((a, b) => a - b) };
}

export interface ExportFields {
  hotOnly: boolean;
  minRelevance: string;
  labelledRelevant: boolean;
  text: string;
  host: string;
  skipDuplicates: boolean;
}

export type ExportField = keyof ExportFields;

export function exportFilter(fields: ExportFields): Parsed<ExportFilter, ExportField> {
  const filter: ExportFilter = {};
  if (fields.hotOnly) filter.hotOnly = true;
  if (fields.labelledRelevant) filter.labelledRelevant = true;
  if (fields.skipDuplicates) filter.skipDuplicates = true;
  const min = parseNumberField(fields.minRelevance, { what: 'The minimum relevance', min: 0, max: 1, integer: false });
  if (!min.ok) return { ok: false, errors: { minRelevance: min.error } };
  if (min.value !== undefined) filter.minRelevance = min.value;
  const text = fields.text.trim();
  if (text !== '') filter.text = text;
  const host = fields.host.trim();
  if (host !== '') filter.host = host;
  return { ok: true, value: filter };
}
