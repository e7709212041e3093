import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { UsageError } from '../../../../crawler/errors.ts';
import {
  checkSettings, crawlSettingsSchema, DEFAULT_SETTINGS, kebabCase, NEW_CRAWL_SETTINGS, SCOPES, SETTING_SPECS, settingSpec, type CrawlSettings, type SettingKey,
} from '../../../../crawler/protocol/settings.ts';
import { parseSettings, validateSettings } from '../../../../crawler/settings.ts';
import { checkInput } from '../../../../crawler/service/schema.ts';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const SETTINGS_FILE = 'crawler/protocol/settings.ts';
const SETTINGS: CrawlSettings = { ...DEFAULT_SETTINGS, query: 'garden tools', seeds: ['http://a.example/'] };

function refusal(input: unknown): string {
  try {
    validateSettings(input as CrawlSettings);
  } catch (err) {
    assert.ok(err instanceof UsageError, String(err));
    return err.message;
  }
  assert.fail(`accepted ${JSON.stringify(input)}`);
}

describe('the settings schema', () => {
  test('every setting has help text and a type the CLI and the docs understand', () => {
    for (const spec of SETTING_SPECS) {
      assert.ok(spec.info.help.length > 0, spec.key);
      assert.equal(spec.name, kebabCase(spec.key));
      if (spec.kind === 'integer' || spec.kind === 'number') assert.ok(spec.min !== undefined && spec.max !== undefined, `${spec.key} has no limits`);
    }
    assert.deepEqual(settingSpec('scope').values, SCOPES);
  });

  test('DEFAULT_SETTINGS are the schema defaults, and parse to themselves', () => {
    assert.deepEqual(Object.keys(DEFAULT_SETTINGS).sort(), SETTING_SPECS.filter((s) => s.key !== 'query' && s.key !== 'seeds').map((s) => s.key).sort());
    for (const spec of SETTING_SPECS) if (spec.key !== 'query' && spec.key !== 'seeds') assert.deepEqual(DEFAULT_SETTINGS[spec.key], spec.defaultValue, spec.key);
    assert.deepEqual(crawlSettingsSchema.parse({ query: 'q', seeds: ['http://a.example/'] }), { query: 'q', seeds: ['http://a.example/'], ...DEFAULT_SETTINGS });
  });

  test('a refusal names the setting and its range', () => {
    assert.equal(refusal({ ...SETTINGS, maxPages: 0 }), 'max-pages must be a whole number from 1 to 9007199254740991, got 0');
    assert.equal(refusal({ ...SETTINGS, maxDepth: 2.5 }), 'max-depth must be a whole number from 0 to 10000, got 2.5');
    assert.equal(refusal({ ...SETTINGS, concurrency: '4' }), 'concurrency must be a whole number from 1 to 256, got 4');
    assert.equal(refusal({ ...SETTINGS, delayFactor: Number.NaN }), 'delay-factor must be a number from 0 to 100, got NaN');
    assert.equal(refusal({ ...SETTINGS, hotThreshold: 1.5 }), 'hot-threshold must be a number from 0 to 1, got 1.5');
    assert.equal(refusal({ ...SETTINGS, scope: 'planet' }), 'scope must be one of hosts, domains, any, got "planet"');
    assert.equal(refusal({ ...SETTINGS, userAgent: 'Bot/1\r\nX: y' }), 'user-agent must be a non-empty single line');
    assert.equal(refusal({ ...SETTINGS, seeds: [] }), 'at least one seed URL is needed');
    assert.equal(refusal({ ...SETTINGS, connectTimeoutMs: 0 }), 'connect-timeout-ms must be a whole number from 1 to 9007199254740991, got 0');
  });

  test('the crawler adds the checks protocol/ cannot make', () => {
    assert.match(refusal({ ...SETTINGS, query: 'the of and' }), /no content words/);
    assert.match(refusal({ ...SETTINGS, userAgent: '(compatible) bot' }), /product token/);
    assert.throws(() => parseSettings({ ...SETTINGS, strategy: 'nope' }), /unknown strategy "nope"/);
  });

  test('stored settings keep keys from a newer Forager; imported ones drop them and get defaults', () => {
    const newer = { ...SETTINGS, fromTheFuture: 3 };
    assert.equal((validateSettings(newer) as CrawlSettings & { fromTheFuture?: number }).fromTheFuture, 3);
    const imported = parseSettings({ query: 'garden tools', seeds: ['http://a.example/'], maxDepth: 3, fromTheFuture: 3 });
    assert.deepEqual(imported, { ...SETTINGS, maxDepth: 3 });
    assert.equal(checkSettings(null).ok, false);
  });

  test('createCollection takes the New crawl settings with the same limits, and nothing else', () => {
    const input = { query: 'garden tools', seeds: ['http://a.example/'] };
    for (const key of NEW_CRAWL_SETTINGS) {
      const spec = settingSpec(key);
      if (spec.max === undefined || spec.min === undefined) continue;
      assert.equal(checkInput('createCollection', { ...input, [key]: spec.max }).ok, true, key);
      assert.equal(checkInput('createCollection', { ...input, [key]: spec.min - 1 }).ok, false, key);
    }
    assert.equal(checkInput('createCollection', { ...input, scope: 'planet' }).ok, false);
    assert.equal(checkInput('createCollection', { ...input, maxRetries: 3 }).ok, false, 'a setting the form does not offer');
    assert.deepEqual(checkInput('createCollection', input), { ok: true, value: input }, 'no defaults are filled in on the way');
    assert.equal(checkInput('startCrawl', { collection: 'c', maxPages: settingSpec('maxPages').max }).ok, true);
    assert.equal(checkInput('startCrawl', { collection: 'c', maxPages: 0 }).ok, false);
  });
});

/** Source files of the crawler, the UI and Electron (tests and benchmarks may spell values out). */
function sourceFiles(): string[] {
  const files: string[] = [];
  for (const dir of ['crawler', 'renderer/src', 'electron']) {
    for (const entry of readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })) {
      if (/\.(ts|tsx|cts|mts)$/.test(entry)) files.push(join(dir, entry));
    }
  }
  return files;
}

/** 10000 as it may be written: 10000, 10_000, 10,000. */
function spellings(n: number): string[] {
  const plain = String(n);
  const grouped = (sep: string): string => plain.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
  return [...new Set([plain, grouped('_'), grouped(',')])];
}

/** Lines of source that name a setting and spell one of its values. */
function linesSpelling(key: SettingKey, values: number[]): string[] {
  const names = new RegExp(`\\b(${key}|${kebabCase(key)})\\b`);
  const numbers = new RegExp(`(?<![\\w.])(${values.flatMap(spellings).join('|')})(?![\\w.])`);
  const hits: string[] = [];
  for (const file of sourceFiles()) {
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (names.test(line) && numbers.test(line)) hits.push(`${relative(ROOT, join(ROOT, file))}:${i + 1}: ${line.trim()}`);
      });
  }
  return hits;
}

describe("a setting's limits are written in one file", () => {
  // The settings the CLI, the form and the service share; 0 and 1 are too common to search for.
  for (const key of ['maxPages', 'delayMs', 'concurrency', 'maxDepth', 'maxCrawlDelayMs', 'maxRetries', 'robotsMaxAttempts'] as const) {
    test(`${key}: its limits and default`, () => {
      const spec = settingSpec(key);
      const values = [spec.min, spec.max, spec.defaultValue].filter((v): v is number => typeof v === 'number' && v > 1 && v < Number.MAX_SAFE_INTEGER);
      const elsewhere = linesSpelling(key, values).filter((hit) => !hit.startsWith(`${SETTINGS_FILE}:`));
      assert.deepEqual(elsewhere, []);
    });
  }

  test('the search finds what it looks for', () => {
    assert.deepEqual([...new Set(linesSpelling('maxDepth', [settingSpec('maxDepth').max as number]).map((hit) => hit.split(':')[0]))], [SETTINGS_FILE]);
  });

  test("maxDepth's 10,000 and delayMs' 3,600,000 appear in no other source file", () => {
    for (const [limit, near] of [[settingSpec('maxDepth').max as number, /depth/i], [settingSpec('delayMs').max as number, /./]] as const) {
      const numbers = new RegExp(`(?<![\\w.])(${spellings(limit).join('|')})(?![\\w.])`);
      const files = sourceFiles().filter((file) => readFileSync(join(ROOT, file), 'utf8').split('\n').some((line) => numbers.test(line) && near.test(line)));
      assert.deepEqual(files, [SETTINGS_FILE]);
    }
  });

  test('the scopes are listed once', () => {
    const list = /['"]hosts['"]\s*[,|]\s*['"]domains['"]\s*[,|]\s*['"]any['"]/;
    assert.deepEqual(sourceFiles().filter((file) => list.test(readFileSync(join(ROOT, file), 'utf8'))), [SETTINGS_FILE]);
  });
});
