/*
 * The crawl settings, once: one zod schema holding every setting's type, default and
 * limits, with its help text and command-line flag in a registry beside it. Everything else
 * is made from it:
 *
 * - the CrawlSettings type and DEFAULT_SETTINGS (here);
 * - the checks of settings from anywhere — the command line, the New crawl form, a stored
 *   collection, an imported WACZ: crawler/settings.ts parses with this schema and adds the
 *   checks that need the rest of the crawler (query words, product token, strategy names);
 * - the service's createCollection input (crawler/service/schema.ts) and NewCollectionInput
 *   (api.ts): the settings the form may set, with these very limits;
 * - the `crawl` command's flags, value parsers, usage text and README's option table
 *   (crawler/cli/crawl-options.ts);
 * - the New crawl form's defaults and number limits (renderer/src/lib/forms.ts).
 *
 * A setting's limits are written here and nowhere else. This file is part of the contract
 * the renderer imports too: it imports zod and nothing else.
 */
import { z } from 'zod';

export const FORAGER_VERSION = '0.1.0';
const PROJECT_URL = 'https://github.com/forager-crawler/forager';

/** Forager's User-Agent: the product token robots.txt is matched on, and a URL where site owners can reach the operator. */
export function userAgentWithContact(contactUrl: string): string {
  return `Forager/${FORAGER_VERSION} (+${contactUrl})`;
}

export const DEFAULT_USER_AGENT = userAgentWithContact(PROJECT_URL);

/** Which links a crawl may follow (crawler/url/scope.ts says how each is judged). */
export const SCOPES = ['hosts', 'domains', 'any'] as const;
export const scopeModeSchema = z.enum(SCOPES);
export type ScopeMode = z.infer<typeof scopeModeSchema>;

/** When pages are rendered in a browser (crawler/render): learnt per host and path, never, or every HTML page. */
export const RENDER_MODES = ['auto', 'never', 'always'] as const;
export const renderModeSchema = z.enum(RENDER_MODES);
export type RenderMode = z.infer<typeof renderModeSchema>;

/** The per-host render modes of settings.renderHostModes ("host=mode"), by lower-case host name. */
export function hostRenderModes(entries: readonly string[]): Map<string, RenderMode> {
  const modes = new Map<string, RenderMode>();
  for (const entry of entries) {
    const at = entry.lastIndexOf('=');
    modes.set(entry.slice(0, at).toLowerCase(), entry.slice(at + 1) as RenderMode);
  }
  return modes;
}

/** settings.renderHostModes with one host's mode set, or removed (null: the crawl's own mode). */
export function withHostRenderMode(entries: readonly string[], host: string, mode: RenderMode | null): string[] {
  const modes = hostRenderModes(entries);
  if (mode === null) modes.delete(host.toLowerCase());
  else modes.set(host.toLowerCase(), mode);
  return [...modes].map(([name, value]) => `${name}=${value}`);
}

/**
 * What a crawl economises when hosts compete for turns (crawler/frontier/crawl-frontier.ts):
 * its pages (a host's turn goes only to one of the crawl's best URLs, waiting for polite hosts
 * if need be) or its time (an idle host's turn goes to any URL the page budget would still reach).
 */
export const SPEND_MODES = ['pages', 'time'] as const;
export const spendModeSchema = z.enum(SPEND_MODES);
export type SpendMode = z.infer<typeof spendModeSchema>;

/** Which page requisites (stylesheets, images, fonts) are fetched with each page: none, the page's own host's, or all. */
export const REQUISITE_MODES = ['none', 'same-host', 'all'] as const;
export const requisiteModeSchema = z.enum(REQUISITE_MODES);
export type RequisiteMode = z.infer<typeof requisiteModeSchema>;

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** The longest duration: beyond it, a revisit never comes and "that long ago" is before the web. */
export const MAX_DURATION_MS = 36_500 * 86_400_000;
/** The limits of a duration, in words for messages. */
export const DURATION_LIMITS = 'from 1ms to 36500d (100 years)';

/** A text read as a duration: its whole ms, or why it is not one (not written as one, or outside DURATION_LIMITS). */
export type DurationReading = { ok: true; ms: number } | { ok: false; why: 'not-a-duration' | 'out-of-range' };

/** A duration as people write it (7d, 12h, 30m, 45s, 500ms, 2w, 1.5h), rounded to whole ms. */
export function readDuration(text: string): DurationReading {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)$/.exec(text.trim());
  if (match === null) return { ok: false, why: 'not-a-duration' };
  const ms = Math.round(Number(match[1]) * (DURATION_UNITS_MS[match[2] as string] as number));
  return ms >= 1 && ms <= MAX_DURATION_MS ? { ok: true, ms } : { ok: false, why: 'out-of-range' };
}

/** A duration's ms, or undefined when the text is not a duration within DURATION_LIMITS. */
export function durationMs(text: string): number | undefined {
  const reading = readDuration(text);
  return reading.ok ? reading.ms : undefined;
}

/** What the schema alone does not say about a setting: its words for people, and its flag. */
export interface SettingInfo {
  /** One line of help: the meaning column of README's option table. */
  help: string;
  /**
   * The `crawl` command's flag, without "--". Omitted: the setting's name in kebab-case
   * (maxPages → max-pages). null: the command line does not set it (it keeps its default,
   * or the value stored in the collection).
   */
  flag?: string | null;
  /** The placeholder of the flag's value in usage text: N, X, URL… (an enum shows its values instead). */
  value?: string;
  /** The default as the docs say it, when the value alone says too little (0 → "unlimited", null → what happens instead). */
  defaultText?: string;
  /** The rule in words, for settings whose type and range do not say it ("a non-empty single line"). */
  rule?: string;
  /** The refusal of an empty list, when "must be" would read badly. */
  emptyRefusal?: string;
}

/** Help text and flags of the settings, keyed by the schema of each field. */
export const settingInfo = z.registry<SettingInfo>();

const UNBOUNDED = Number.MAX_SAFE_INTEGER;
const wholeNumber = (min: number, max: number = UNBOUNDED) => z.number().int().min(min).max(max);
const fraction = () => z.number().min(0).max(1);

/** Everything that shapes a crawl. Stored in the collection so that `resume` continues the same crawl. */
export const crawlSettingsSchema = z.object({
  query: z.string().register(settingInfo, { value: 'TEXT', defaultText: 'required for a new collection', help: 'the driving query', rule: 'a text' }),
  seeds: z
    .array(z.string())
    .min(1)
    .register(settingInfo, {
      flag: 'seed',
      value: 'URL',
      defaultText: 'required for a new collection',
      help: 'repeat for several seeds',
      rule: 'a list of URLs',
      emptyRefusal: 'at least one seed URL is needed',
    }),
  maxPages: wholeNumber(1)
    .default(1000)
    .register(settingInfo, { value: 'N', help: 'total page budget of the collection (a resumed crawl counts what is stored)' }),
  revisitAfter: z
    .string()
    .refine((text) => text === '' || durationMs(text) !== undefined)
    .default('')
    .register(settingInfo, {
      value: 'DURATION',
      defaultText: 'never',
      help: 'keep crawling: revisit each stored page this long after its last check (7d, 12h, 30m, 45s)',
      rule: `a duration such as 7d, 12h, 30m or 45s, ${DURATION_LIMITS}`,
    }),
  strategy: z.string().default('focused').register(settingInfo, { value: 'NAME', help: 'URL ordering', rule: 'a strategy name' }),
  delayMs: wholeNumber(0, 3_600_000)
    .default(1000)
    .register(settingInfo, { value: 'N', help: 'minimum wait between two requests to one host' }),
  delayFactor: z
    .number()
    .min(0)
    .max(100)
    .default(2)
    .register(settingInfo, { value: 'K', help: "the wait is at least K × the host's last response time" }),
  maxCrawlDelayMs: wholeNumber(0, 3_600_000)
    .default(30_000)
    .register(settingInfo, { value: 'N', help: 'cap on a robots.txt Crawl-delay, so a hostile file cannot stall the crawl' }),
  concurrency: wholeNumber(1, 256).default(16).register(settingInfo, { value: 'N', help: 'requests being answered at once across hosts (never more than one per host); a request still waiting after 2 s steps aside for another, and up to 4×N may wait so' }),
  spend: spendModeSchema.default('pages').register(settingInfo, {
    help: "what hosts' turns are spent on: pages (a host is asked only for one of the crawl's best URLs, waiting for polite hosts if need be) or time (an idle host is asked for any URL the budget still reaches)",
  }),
  scope: scopeModeSchema.default('hosts').register(settingInfo, { help: 'stay on the seed hosts, their registrable domains, or go anywhere' }),
  include: z
    .array(z.string())
    .default([])
    .register(settingInfo, {
      value: 'PATTERN',
      defaultText: 'every URL in scope',
      help: 'fetch only URLs matching one of these (repeat): a glob over the whole URL (`https://example.org/docs/**`) or a /regular expression/; seeds are always fetched',
      rule: 'a list of globs or /regular expressions/',
    }),
  exclude: z
    .array(z.string())
    .default([])
    .register(settingInfo, {
      value: 'PATTERN',
      defaultText: 'none',
      help: 'never fetch URLs matching one of these (repeat), e.g. `**/*.zip` or `/\\/v\\d+\\//`; a page\'s requisites follow their page',
      rule: 'a list of globs or /regular expressions/',
    }),
  probeSoft404: z
    .boolean()
    .default(true)
    .register(settingInfo, { flag: null, help: 'ask each host once for a page that cannot exist, to recognise its soft 404s (a 200 saying "not found")' }),
  allowPrivate: z
    .boolean()
    .default(false)
    .register(settingInfo, { help: 'allow private, loopback and link-local addresses (seed hosts always are)' }),
  userAgent: z
    .string()
    .refine((ua) => ua.trim() !== '' && !/[\r\n]/.test(ua))
    .default(DEFAULT_USER_AGENT)
    .register(settingInfo, {
      value: 'UA',
      help: 'the whole User-Agent instead; must start with a product token, which robots.txt is matched on',
      rule: 'a non-empty single line',
    }),
  proxy: z
    .string()
    .refine((text) => !/[\s]/.test(text))
    .default('')
    .register(settingInfo, {
      value: 'URL',
      defaultText: 'HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, NO_PROXY as curl reads them',
      help: 'the proxy every request goes through (pages, robots.txt, sitemaps, requisites, renders): `http://`, `https://`, `socks5://` or `socks5h://` URL; `none` ignores the environment',
      rule: 'a proxy URL, none, or empty',
    }),
  maxDepth: wholeNumber(0, 10_000).default(32).register(settingInfo, { value: 'N', help: 'how many links away from a seed a page may be' }),
  // Finite by default so that one host (a calendar, an endless faceted search) cannot take a whole large budget;
  // 50,000 is ten times the largest documentation site the benchmarks crawl.
  maxPagesPerHost: wholeNumber(0)
    .default(50_000)
    .register(settingInfo, { value: 'N', help: 'pages fetched from one host at most (0: no limit)' }),
  maxUrlLength: wholeNumber(64, 1_000_000).default(2048).register(settingInfo, { flag: null, help: 'longer URLs are skipped' }),
  maxBodyBytes: wholeNumber(1024)
    .default(10 * 1024 * 1024)
    .register(settingInfo, { flag: null, help: 'bytes of a response body downloaded at most' }),
  maxDecodedBytes: wholeNumber(1024)
    .default(32 * 1024 * 1024)
    .register(settingInfo, { flag: null, help: 'bytes of a body after decompression at most' }),
  documents: z
    .string()
    .regex(/^\s*(none|(pdf|text)(\s*,\s*(pdf|text))*)\s*$/)
    .default('pdf,text')
    .register(settingInfo, {
      value: 'TYPES',
      help: 'documents read besides web pages: `pdf`, `text` (plain text), both (`pdf,text`), or `none`; a document is judged, searched, shown and exported like a page',
      rule: 'pdf, text, pdf,text or none',
    }),
  maxDocumentBytes: wholeNumber(1024, 1024 * 1024 * 1024)
    .default(50 * 1024 * 1024)
    .register(settingInfo, { value: 'N', help: 'bytes of a document (a PDF, plain text) downloaded at most; a larger one is recorded as failed (`too-large:body`)' }),
  connectTimeoutMs: wholeNumber(1).default(10_000).register(settingInfo, { flag: null, help: 'time-out of a connection' }),
  headersTimeoutMs: wholeNumber(1).default(15_000).register(settingInfo, { flag: null, help: "time-out of a response's headers" }),
  bodyIdleTimeoutMs: wholeNumber(1).default(15_000).register(settingInfo, { flag: null, help: 'time-out between two chunks of a body' }),
  totalTimeoutMs: wholeNumber(1).default(60_000).register(settingInfo, { flag: null, help: 'time-out of a whole request' }),
  maxRetries: wholeNumber(0, 20)
    .default(2)
    .register(settingInfo, { flag: null, help: 'further attempts after a transient failure (timeout, reset, 5xx, 429)' }),
  maxRetryAfterMs: wholeNumber(0, 86_400_000)
    .default(600_000)
    .register(settingInfo, {
      value: 'N',
      help: "the longest Retry-After (on 429 and 503) the host is waited for before the URL's next attempt; longer, and the URL is recorded as failed",
    }),
  robotsRetryMs: wholeNumber(0)
    .default(60_000)
    .register(settingInfo, { value: 'N', help: 'how long a host waits before its robots.txt is fetched again after a 5xx or network failure' }),
  robotsMaxAttempts: wholeNumber(1, 100)
    .default(3)
    .register(settingInfo, { flag: null, help: "after this many failed robots.txt fetches in a row, the host's URLs are recorded as blocked" }),
  maxLinksPerPage: wholeNumber(0, 1_000_000)
    .default(10_000)
    .register(settingInfo, { flag: null, help: 'links kept per page; the rest are counted as dropped' }),
  randomSeed: wholeNumber(0, 2 ** 31 - 1)
    .default(1)
    .register(settingInfo, { value: 'N', help: 'seed of the `random` strategy, so a crawl can be repeated' }),
  hotPredicate: z
    .string()
    .nullable()
    .default(null)
    .register(settingInfo, {
      flag: 'hot',
      value: 'SPEC',
      defaultText: 'relevance rule',
      help: 'Cho-style hot predicate, e.g. `"title:checkpoint|body>=3:wal"` (OR of clauses)',
      rule: 'a hot predicate or null',
    }),
  render: renderModeSchema
    .default('auto')
    .register(settingInfo, { help: 'render pages built by JavaScript in a browser: learnt per host and path (auto), never, or every HTML page' }),
  browserPath: z
    .string()
    .default('')
    .register(settingInfo, {
      flag: 'browser',
      value: 'PATH',
      defaultText: 'found on the system',
      help: 'the Chromium-family browser that renders pages; without one, rendering is off',
      rule: 'a path to an executable, or empty',
    }),
  renderHostModes: z
    .array(z.string().regex(/^[^\s=]+=(auto|never|always)$/))
    .default([])
    .register(settingInfo, {
      flag: 'render-host',
      value: 'HOST=MODE',
      defaultText: 'none',
      help: 'render one host differently from --render: e.g. `app.example.org=always` (repeat)',
      rule: 'a list of HOST=auto|never|always',
    }),
  renderAllowHosts: z
    .array(z.string())
    .default([])
    .register(settingInfo, {
      flag: 'render-allow-host',
      value: 'HOST',
      defaultText: 'none',
      help: "another host a rendered page's scripts, styles and API calls may come from (repeat); other hosts are blocked",
      rule: 'a list of host names',
    }),
  requisites: requisiteModeSchema
    .default('same-host')
    .register(settingInfo, { help: "fetch the stylesheets, images and fonts each page needs, so it can be shown offline as it was: none, those of the page's own host, or all" }),
  renderTimeoutMs: wholeNumber(1000, 120_000)
    .default(15_000)
    .register(settingInfo, { value: 'N', help: "the longest one page's render may take, navigation and scripts included" }),
  hotThreshold: fraction()
    .nullable()
    .default(null)
    .register(settingInfo, { value: 'X', defaultText: 'relative to the best pages', help: 'a page is hot when its relevance (0–1) is at least X' }),
});

export type CrawlSettings = z.infer<typeof crawlSettingsSchema>;
export type SettingKey = keyof CrawlSettings;

/** Every setting but the query and the seeds has a default. */
export const DEFAULT_SETTINGS: Omit<CrawlSettings, 'query' | 'seeds'> = crawlSettingsSchema.omit({ query: true, seeds: true }).parse({});

export type SettingKind = 'integer' | 'number' | 'enum' | 'boolean' | 'string' | 'list';

/** One setting as the schema defines it, read back from the schema. */
export interface SettingSpec {
  key: SettingKey;
  /** Its name in messages and docs: kebab-case (max-pages). */
  name: string;
  /** Its `crawl` flag without "--", or null when the command line does not set it. */
  flag: string | null;
  kind: SettingKind;
  /** Whether null is a value (it stands for a documented rule). */
  nullable: boolean;
  /** Limits of a number, inclusive. */
  min?: number;
  max?: number;
  /** The values of an enum. */
  values?: readonly string[];
  /** The default; undefined for the query and the seeds. */
  defaultValue: unknown;
  info: SettingInfo;
}

export function kebabCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

function readSpec(key: SettingKey): SettingSpec {
  const field = crawlSettingsSchema.shape[key];
  const info = settingInfo.get(field);
  if (info === undefined) throw new Error(`the setting ${key} has no help text`);
  let schema: z.ZodType = field;
  let defaultValue: unknown;
  let nullable = false;
  if (schema instanceof z.ZodDefault) {
    defaultValue = schema.def.defaultValue;
    schema = schema.unwrap() as z.ZodType;
  }
  if (schema instanceof z.ZodNullable) {
    nullable = true;
    schema = schema.unwrap() as z.ZodType;
  }
  const spec: SettingSpec = { key, name: kebabCase(key), flag: info.flag === undefined ? kebabCase(key) : info.flag, kind: 'string', nullable, defaultValue, info };
  if (schema instanceof z.ZodNumber) {
    spec.kind = schema.isInt ? 'integer' : 'number';
    spec.min = schema.minValue ?? undefined;
    spec.max = schema.maxValue ?? undefined;
  } else if (schema instanceof z.ZodEnum) {
    spec.kind = 'enum';
    spec.values = schema.options as string[];
  } else if (schema instanceof z.ZodBoolean) {
    spec.kind = 'boolean';
  } else if (schema instanceof z.ZodArray) {
    spec.kind = 'list';
  } else if (!(schema instanceof z.ZodString)) {
    throw new Error(`the setting ${key} has a type the settings schema does not describe`);
  }
  return spec;
}

export const SETTING_KEYS = Object.keys(crawlSettingsSchema.shape) as SettingKey[];

/** Every setting, in the schema's order. */
export const SETTING_SPECS: readonly SettingSpec[] = SETTING_KEYS.map(readSpec);

const SPEC_BY_KEY = new Map(SETTING_SPECS.map((spec) => [spec.key, spec]));

export function settingSpec(key: SettingKey): SettingSpec {
  return SPEC_BY_KEY.get(key) as SettingSpec;
}

export interface NumberRange {
  min: number;
  max: number;
  integer: boolean;
}

/** The inclusive limits of a numeric setting (Number.MAX_SAFE_INTEGER when it has no upper one). */
export function numberRange(key: SettingKey): NumberRange {
  const spec = settingSpec(key);
  if (spec.kind !== 'integer' && spec.kind !== 'number') throw new Error(`the setting ${key} is not a number`);
  return { min: spec.min ?? -UNBOUNDED, max: spec.max ?? UNBOUNDED, integer: spec.kind === 'integer' };
}

/** What a setting must be, in words: "a whole number from 1 to 256", "one of hosts, domains, any". */
export function settingRule(spec: SettingSpec): string {
  switch (spec.kind) {
    case 'integer':
      return `a whole number from ${spec.min} to ${spec.max}`;
    case 'number':
      return `a number from ${spec.min} to ${spec.max}`;
    case 'enum':
      return `one of ${(spec.values ?? []).join(', ')}`;
    case 'boolean':
      return 'true or false';
    default:
      return spec.info.rule ?? 'a text';
  }
}

/** The sentence refusing a value of a setting: "max-depth must be a whole number from 0 to 10000, got 20000". */
export function settingRefusal(spec: SettingSpec, value: unknown): string {
  if (spec.info.emptyRefusal !== undefined && Array.isArray(value) && value.length === 0) return spec.info.emptyRefusal;
  const sentence = `${spec.name} must be ${settingRule(spec)}`;
  switch (spec.kind) {
    case 'integer':
    case 'number':
      return `${sentence}, got ${String(value)}`;
    case 'enum':
      return `${sentence}, got "${String(value)}"`;
    default:
      return sentence;
  }
}

export type SettingsCheck =
  | { ok: true; value: CrawlSettings }
  | { ok: false; key: SettingKey | undefined; value: unknown; message: string };

const keepingUnknownKeys = crawlSettingsSchema.loose();

/**
 * Parses settings with the schema: defaults fill the missing ones, the first problem is one
 * sentence naming the setting and what it must be. Unknown keys are dropped, or kept with
 * `unknownKeys: 'keep'` (settings written by a newer Forager survive a round trip).
 */
export function checkSettings(input: unknown, unknownKeys: 'drop' | 'keep' = 'drop'): SettingsCheck {
  const result = (unknownKeys === 'keep' ? keepingUnknownKeys : crawlSettingsSchema).safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  const key = issue?.path[0];
  const spec = typeof key === 'string' ? SPEC_BY_KEY.get(key as SettingKey) : undefined;
  if (spec === undefined) return { ok: false, key: undefined, value: input, message: `the crawl settings must be an object of settings (${issue?.message ?? 'invalid'})` };
  const value = typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[spec.key] : undefined;
  return { ok: false, key: spec.key, value, message: settingRefusal(spec, value) };
}

/** The settings the New crawl form and the createCollection call may set; the others keep their defaults. */
export const NEW_CRAWL_SETTINGS = [
  'maxPages',
  'delayMs',
  'scope',
  'strategy',
  'concurrency',
  'spend',
  'maxDepth',
  'hotPredicate',
  'hotThreshold',
  'allowPrivate',
  'render',
  'revisitAfter',
  'documents',
  'maxDocumentBytes',
  'include',
  'exclude',
  'proxy',
] as const satisfies readonly SettingKey[];

export type NewCrawlSettingKey = (typeof NEW_CRAWL_SETTINGS)[number];

type Shape = typeof crawlSettingsSchema.shape;
type WithoutDefault<S> = S extends z.ZodDefault<infer Inner> ? Inner : S;

/** Settings as optional input fields: the schema's types and limits, without its defaults (absent stays absent). */
export function optionalSettingFields<K extends SettingKey>(keys: readonly K[]): { [P in K]: z.ZodOptional<WithoutDefault<Shape[P]>> } {
  const fields: Record<string, z.ZodType> = {};
  for (const key of keys) {
    const field: z.ZodType = crawlSettingsSchema.shape[key];
    fields[key] = (field instanceof z.ZodDefault ? (field.unwrap() as z.ZodType) : field).optional();
  }
  return fields as { [P in K]: z.ZodOptional<WithoutDefault<Shape[P]>> };
}

/**
 * Sizes the New crawl input may have when it crosses a transport, beyond the settings' own
 * limits: bounds on text and lists, so a hostile page in the renderer cannot make the service
 * allocate without limit. The form checks them first (renderer/src/lib/), the service's
 * input schema enforces them (crawler/service/schema.ts).
 */
export const NEW_CRAWL_INPUT_BOUNDS = {
  nameLength: 100,
  queryLength: 2_000,
  seedCount: 1_000,
  seedLength: 4_096,
  strategyLength: 40,
  hotPredicateLength: 2_000,
  /** Include or exclude patterns, each list (protocol/url-pattern.ts reads one). */
  patternCount: 100,
  patternLength: 1_000,
  /** A proxy URL: scheme, credentials, host and port. */
  proxyLength: 2_000,
  /** A pasted cookies.txt, in characters: a whole browser's export is rarely above 200 kB, and the call must stay within serve's 1 MiB body. */
  cookiesLength: 500_000,
} as const;
