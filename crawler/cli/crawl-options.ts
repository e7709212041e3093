/*
 * The `crawl` command's options, made from the settings schema (protocol/settings.ts): each
 * setting with a flag gets `--<kebab-case name>` (or the flag its metadata names), a value
 * parser by its type (whole number, number, enum, boolean, text) and its help text and
 * default in the usage text and in README's option table (a test checks README against
 * crawlOptionsTable()). The range check is the schema's, through validateNewSettings.
 *
 * Explicit exceptions, which no single setting describes:
 * - `--db` and `--json` are not settings;
 * - `--seeds-file FILE` adds the file's URLs to `--seed`'s, and `--cookies FILE` adds a
 *   cookies.txt to the collection's cookie jar (a jar is the collection's, not a setting);
 * - `--query` and `--seed` choose the collection: the crawl command reads them (a new
 *   collection needs both; seeds add to the stored ones), applyFlags does not;
 * - `--contact URL` sets the User-Agent to `Forager/<version> (+URL)`; `--user-agent` wins;
 * - `--timeout-ms N` sets the connect, headers and body-idle time-outs to N and raises the
 *   total time-out to at least N;
 * - `--hot` sets hotPredicate (its flag, named in the schema's metadata);
 * - `--strategy` takes the names of the ordering registry, which protocol/ cannot import.
 */
import { UsageError } from '../errors.ts';
import { strategyNames } from '../ordering/registry.ts';
import { DEFAULT_SETTINGS, SETTING_SPECS, userAgentWithContact, type CrawlSettings, type SettingSpec } from '../protocol/settings.ts';
import { validateNewSettings } from '../settings.ts';
import { integerOption, numberOption, parseCommandArgs, type Options } from './args.ts';

/** Settings with a `crawl` flag, in the schema's order. */
const FLAGGED: readonly (SettingSpec & { flag: string })[] = SETTING_SPECS.filter((spec): spec is SettingSpec & { flag: string } => spec.flag !== null);

/** Read by the crawl command itself: they pick or make the collection. */
const COLLECTION_SETTINGS: ReadonlySet<string> = new Set(['query', 'seeds']);

const TIMEOUT_KEYS = ['connectTimeoutMs', 'headersTimeoutMs', 'bodyIdleTimeoutMs'] as const;

interface ExtraOption {
  flag: string;
  value?: string;
  type: 'string' | 'boolean';
  defaultText: string;
  help: string;
  /** Shown just before this setting's flag in usage and README. */
  before?: string;
}

/** The options that are not one setting each (see the header). */
const EXTRA_OPTIONS: readonly ExtraOption[] = [
  { flag: 'db', value: 'FILE', type: 'string', defaultText: 'required', help: 'the collection (one SQLite file)', before: 'query' },
  {
    flag: 'contact',
    value: 'URL',
    type: 'string',
    defaultText: 'the project page',
    help: `where site owners can reach you; goes into the User-Agent \`${userAgentWithContact('URL')}\``,
    before: 'user-agent',
  },
  {
    flag: 'timeout-ms',
    value: 'N',
    type: 'string',
    defaultText: `${DEFAULT_SETTINGS.connectTimeoutMs}, ${DEFAULT_SETTINGS.headersTimeoutMs}, ${DEFAULT_SETTINGS.bodyIdleTimeoutMs}`,
    help: `the connect, headers and body-idle time-outs; the whole request's (${DEFAULT_SETTINGS.totalTimeoutMs}) becomes at least N`,
    before: 'random-seed',
  },
  {
    flag: 'seeds-file',
    value: 'FILE',
    type: 'string',
    defaultText: 'none',
    help: 'more seeds, one URL a line; `#` comments and blank lines are ignored, and a bad line is named by its number before anything starts',
    before: 'max-pages',
  },
  {
    flag: 'cookies',
    value: 'FILE',
    type: 'string',
    defaultText: 'none',
    help: "a Netscape cookies.txt (as browser extensions export it) added to the collection's session: each cookie is sent only where it matches, and none is ever exported",
    before: 'proxy',
  },
  { flag: 'json', type: 'boolean', defaultText: 'off', help: 'print the final stats as one JSON object' },
];

/** node:util parseArgs options of `crawl`. */
export const CRAWL_OPTIONS: Options = Object.fromEntries([
  ...FLAGGED.map((spec) => [spec.flag, spec.kind === 'boolean' ? { type: 'boolean' } : spec.kind === 'list' ? { type: 'string', multiple: true } : { type: 'string' }]),
  ...EXTRA_OPTIONS.map((option) => [option.flag, { type: option.type }]),
]);

export type CrawlFlags = Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;

export function parseCrawlArgs(argv: string[]): CrawlFlags {
  return parseCommandArgs('crawl', argv, CRAWL_OPTIONS).values;
}

/** A string option's value (parseArgs gives strings for string options). */
export function stringFlag(flags: CrawlFlags, flag: string): string | undefined {
  const value = flags[flag];
  return typeof value === 'string' ? value : undefined;
}

export function stringsFlag(flags: CrawlFlags, flag: string): string[] | undefined {
  const value = flags[flag];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;
}

export function booleanFlag(flags: CrawlFlags, flag: string): boolean | undefined {
  const value = flags[flag];
  return typeof value === 'boolean' ? value : undefined;
}

/**
 * Whole numbers of any sign, for flags whose range is a setting's: validateNewSettings checks it
 * with the rest of the settings, and its refusal names the setting's limits.
 */
const RANGE_OF_THE_SETTING = { min: Number.MIN_SAFE_INTEGER };

/** A flag's value as its setting's type; the range is checked with the rest of the settings. */
function flagValue(spec: SettingSpec & { flag: string }, flags: CrawlFlags): unknown {
  switch (spec.kind) {
    case 'integer':
      return integerOption(spec.flag, stringFlag(flags, spec.flag), RANGE_OF_THE_SETTING);
    case 'number':
      return numberOption(spec.flag, stringFlag(flags, spec.flag));
    case 'boolean':
      return booleanFlag(flags, spec.flag);
    case 'list':
      return stringsFlag(flags, spec.flag);
    default:
      return stringFlag(flags, spec.flag);
  }
}

/** Settings named on the command line, laid over the stored or default ones, and checked. */
export function applyFlags(base: CrawlSettings, flags: CrawlFlags): CrawlSettings {
  const s: Record<string, unknown> = { ...base };
  for (const spec of FLAGGED) {
    if (COLLECTION_SETTINGS.has(spec.key)) continue;
    const value = flagValue(spec, flags);
    if (value !== undefined) s[spec.key] = value;
  }
  const contact = stringFlag(flags, 'contact');
  if (contact !== undefined) {
    if (!URL.canParse(contact)) throw new UsageError(`--contact must be a URL (a page or mailto:) where site owners can reach you, got "${contact}"`, { option: 'contact' });
    if (stringFlag(flags, 'user-agent') === undefined) s.userAgent = userAgentWithContact(contact);
  }
  const timeout = integerOption('timeout-ms', stringFlag(flags, 'timeout-ms'), RANGE_OF_THE_SETTING);
  if (timeout !== undefined) {
    for (const key of TIMEOUT_KEYS) s[key] = timeout;
    s.totalTimeoutMs = Math.max(timeout, s.totalTimeoutMs as number);
  }
  return validateNewSettings(s as CrawlSettings);
}

/** The settings a `crawl` command line gives over `base` (the stored or default settings with the query and seeds). */
export function crawlSettingsFromArgs(base: CrawlSettings, argv: string[]): CrawlSettings {
  return applyFlags(base, parseCrawlArgs(argv));
}

interface OptionDoc {
  flag: string;
  /** The value's placeholder, or null for a switch. */
  value: string | null;
  /** Repeatable (`--seed`). */
  multiple: boolean;
  required: boolean;
  defaultText: string;
  help: string;
}

function strategyChoices(): string[] {
  const names = strategyNames();
  return [DEFAULT_SETTINGS.strategy, ...names.filter((name) => name !== DEFAULT_SETTINGS.strategy)];
}

function defaultText(spec: SettingSpec): string {
  if (spec.info.defaultText !== undefined) return spec.info.defaultText;
  const value = spec.defaultValue;
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  if (typeof value === 'string') return `\`${value}\``;
  return String(value);
}

function settingDoc(spec: SettingSpec & { flag: string }): OptionDoc {
  let help = spec.info.help;
  if (spec.key === 'strategy') {
    const names = strategyChoices().map((name) => `\`${name}\``);
    help = `${help}: ${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
  }
  return {
    flag: spec.flag,
    value: spec.kind === 'boolean' ? null : spec.kind === 'enum' ? (spec.values ?? []).join('|') : (spec.info.value ?? 'VALUE'),
    multiple: spec.kind === 'list',
    required: COLLECTION_SETTINGS.has(spec.key),
    defaultText: defaultText(spec),
    help,
  };
}

function extraDoc(option: ExtraOption): OptionDoc {
  return { flag: option.flag, value: option.value ?? null, multiple: false, required: option.flag === 'db', defaultText: option.defaultText, help: option.help };
}

/** Every option of `crawl`, in the order of usage and README: the schema's, with the exceptions placed beside their settings. */
function optionDocs(): OptionDoc[] {
  const docs: OptionDoc[] = [];
  for (const spec of FLAGGED) {
    for (const extra of EXTRA_OPTIONS) if (extra.before === spec.flag) docs.push(extraDoc(extra));
    docs.push(settingDoc(spec));
  }
  for (const extra of EXTRA_OPTIONS) if (extra.before === undefined) docs.push(extraDoc(extra));
  return docs;
}

const escapeCell = (text: string): string => text.replaceAll('|', '\\|');

/** README's table of `crawl` options, as markdown. */
export function crawlOptionsTable(): string {
  const rows = optionDocs().map((doc) => {
    const option = doc.value === null ? `--${doc.flag}` : `--${doc.flag} ${doc.value}`;
    return `| ${escapeCell(`\`${option}\``)} | ${escapeCell(doc.defaultText)} | ${escapeCell(doc.help)} |`;
  });
  return ['| option | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** The `crawl` lines of `forager --help`, wrapped. */
export function crawlUsage(indent = '          ', width = 100): string {
  const words: string[] = [];
  for (const doc of optionDocs()) {
    const value = doc.flag === 'strategy' ? strategyChoices().join('|') : doc.value;
    const option = value === null ? `--${doc.flag}` : `--${doc.flag} ${value}`;
    if (doc.required) words.push(option);
    if (doc.multiple) words.push(`[${option}…]`);
    else if (!doc.required) words.push(`[${option}]`);
  }
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line !== '' && indent.length + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines.map((text, i) => (i === 0 ? text : `${indent}${text}`)).join('\n');
}
