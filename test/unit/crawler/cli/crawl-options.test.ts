import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { crawlOptionsTable, crawlSettingsFromArgs, crawlUsage, CRAWL_OPTIONS } from '../../../../crawler/cli/crawl-options.ts';
import { UsageError } from '../../../../crawler/errors.ts';
import { DEFAULT_SETTINGS, SETTING_SPECS, settingSpec, type CrawlSettings } from '../../../../crawler/protocol/settings.ts';
import { checkInput } from '../../../../crawler/service/schema.ts';
import { NEW_CRAWL_DEFAULTS, newCrawlInput, NUMBER_RULES, type NewCrawlNumberField } from '../../../../renderer/src/lib/forms.ts';

const BASE: CrawlSettings = { ...DEFAULT_SETTINGS, query: 'garden tools', seeds: ['http://a.example/'] };
const README = new URL('../../../../README.md', import.meta.url);

/** The CLI's verdict on one flag: the settings it gives, or the UsageError's message. */
function cli(...argv: string[]): { ok: true; settings: CrawlSettings } | { ok: false; message: string } {
  try {
    return { ok: true, settings: crawlSettingsFromArgs(BASE, argv) };
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return { ok: false, message: err.message };
  }
}

/** The New crawl form's verdict on one number field. */
function form(key: NewCrawlNumberField, text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  const parsed = newCrawlInput({ ...NEW_CRAWL_DEFAULTS, query: 'garden tools', seeds: 'http://a.example/', [key]: text });
  if (parsed.ok) return { ok: true, value: parsed.value[key] };
  const message = parsed.errors[key];
  assert.ok(message !== undefined, `the form refused ${key}=${text} for another field: ${JSON.stringify(parsed.errors)}`);
  return { ok: false, message };
}

describe('the crawl options come from the settings schema', () => {
  test('every setting with a flag is an option of its type, and the exceptions are there too', () => {
    for (const spec of SETTING_SPECS) {
      if (spec.flag === null) {
        assert.equal(CRAWL_OPTIONS[spec.name], undefined, `${spec.key} has no flag, yet --${spec.name} exists`);
        continue;
      }
      const option = CRAWL_OPTIONS[spec.flag];
      assert.ok(option !== undefined, `--${spec.flag}`);
      assert.equal(option.type, spec.kind === 'boolean' ? 'boolean' : 'string', `--${spec.flag}`);
    }
    for (const flag of ['db', 'json', 'contact', 'timeout-ms', 'seed', 'hot']) assert.ok(CRAWL_OPTIONS[flag] !== undefined, `--${flag}`);
    assert.equal(CRAWL_OPTIONS.seed?.multiple, true);
  });

  test('the flags a crawl has always had keep their meaning', () => {
    const result = cli(
      '--max-pages', '50', '--strategy', 'bfs', '--delay-ms', '250', '--delay-factor', '1.5', '--max-crawl-delay-ms', '5000',
      '--concurrency', '4', '--scope', 'domains', '--allow-private', '--max-depth', '7', '--max-pages-per-host', '20',
      '--robots-retry-ms', '100', '--hot', 'title:wal', '--hot-threshold', '0.3', '--random-seed', '9',
    );
    assert.ok(result.ok, result.ok ? '' : result.message);
    assert.deepEqual(result.settings, {
      ...BASE,
      maxPages: 50, strategy: 'bfs', delayMs: 250, delayFactor: 1.5, maxCrawlDelayMs: 5000, concurrency: 4, scope: 'domains', allowPrivate: true,
      maxDepth: 7, maxPagesPerHost: 20, robotsRetryMs: 100, hotPredicate: 'title:wal', hotThreshold: 0.3, randomSeed: 9,
    });
  });

  test('no flags: the base settings stand', () => {
    assert.deepEqual(cli(), { ok: true, settings: BASE });
  });

  test('--timeout-ms sets the connect, headers and body-idle time-outs and raises the total one', () => {
    const short = cli('--timeout-ms', '500');
    assert.ok(short.ok);
    assert.deepEqual(
      [short.settings.connectTimeoutMs, short.settings.headersTimeoutMs, short.settings.bodyIdleTimeoutMs, short.settings.totalTimeoutMs],
      [500, 500, 500, DEFAULT_SETTINGS.totalTimeoutMs],
    );
    const long = cli('--timeout-ms', '90000');
    assert.ok(long.ok);
    assert.equal(long.settings.totalTimeoutMs, 90_000);
    assert.deepEqual(cli('--timeout-ms', '0'), { ok: false, message: 'connect-timeout-ms must be a whole number from 1 to 9007199254740991, got 0' });
  });

  test('--contact builds the User-Agent; --user-agent wins over it; both are checked', () => {
    const contact = cli('--contact', 'mailto:me@example.org');
    assert.ok(contact.ok);
    assert.equal(contact.settings.userAgent, 'Forager/0.1.0 (+mailto:me@example.org)');
    const both = cli('--contact', 'https://example.org/', '--user-agent', 'MyBot/1.0');
    assert.ok(both.ok);
    assert.equal(both.settings.userAgent, 'MyBot/1.0');
    const badContact = cli('--contact', 'call me');
    assert.ok(!badContact.ok && /--contact must be a URL/.test(badContact.message));
    const noToken = cli('--user-agent', '(compatible) bot');
    assert.ok(!noToken.ok && /product token/.test(noToken.message));
  });

  test('refusals name the flag and its range', () => {
    assert.deepEqual(cli('--max-depth', '10001'), { ok: false, message: 'max-depth must be a whole number from 0 to 10000, got 10001' });
    assert.deepEqual(cli('--delay-factor', '101'), { ok: false, message: 'delay-factor must be a number from 0 to 100, got 101' });
    assert.deepEqual(cli('--scope', 'nowhere'), { ok: false, message: 'scope must be one of hosts, domains, any, got "nowhere"' });
    assert.deepEqual(cli('--max-pages', 'abc'), { ok: false, message: '--max-pages must be a whole number, got "abc"' });
    assert.deepEqual(cli('--hot-threshold', 'high'), { ok: false, message: '--hot-threshold must be a number, got "high"' });
    const strategy = cli('--strategy', 'nope');
    assert.ok(!strategy.ok && /unknown strategy "nope"/.test(strategy.message));
  });

  test("README's option table is the one the schema gives", () => {
    const table = crawlOptionsTable();
    assert.ok(readFileSync(README, 'utf8').includes(`${table}\n`), `README.md's table of crawl options should read:\n\n${table}\n`);
  });

  test('the usage text names every option of crawl', () => {
    const usage = crawlUsage();
    for (const flag of Object.keys(CRAWL_OPTIONS)) assert.match(usage, new RegExp(`--${flag}\\b`), `--${flag}`);
    assert.ok(usage.split('\n').every((line) => line.length <= 100), usage);
  });
});

/** The service's verdict on the input the form would send. */
function service(key: NewCrawlNumberField, value: number): boolean {
  return checkInput('createCollection', { query: 'garden tools', seeds: ['http://a.example/'], [key]: value }).ok;
}

describe('the command line, the New crawl form and the service accept the same ranges', () => {
  for (const key of Object.keys(NUMBER_RULES) as NewCrawlNumberField[]) {
    const spec = settingSpec(key);
    const flag = spec.flag;
    assert.ok(flag !== null, `${key} has no flag`);
    const rule = NUMBER_RULES[key];
    // One step beyond either end: a whole unit for whole numbers, a hundredth for fractions.
    const step = rule.integer ? 1 : 0.01;

    test(`${key} (--${flag}): from ${rule.min} to ${rule.max}`, () => {
      assert.deepEqual([rule.min, rule.max], [spec.min, spec.max], 'the form has the schema limits');
      for (const value of [rule.min, rule.max]) {
        const byCli = cli(`--${flag}`, String(value));
        assert.ok(byCli.ok, `the CLI refuses --${flag} ${value}: ${byCli.ok ? '' : byCli.message}`);
        assert.equal(byCli.settings[key], value);
        assert.deepEqual(form(key, String(value)), { ok: true, value }, `the form refuses ${key}=${value}`);
        assert.equal(service(key, value), true, `the service refuses ${key}=${value}`);
      }
      for (const value of [rule.min - step, rule.max + step]) {
        // Beyond Number.MAX_SAFE_INTEGER, the next whole number is spelled out (Number adds 1 only approximately).
        const text = value > Number.MAX_SAFE_INTEGER ? (BigInt(rule.max) + 1n).toString() : String(Number(value.toFixed(2)));
        assert.equal(cli(`--${flag}=${text}`).ok, false, `the CLI accepts --${flag}=${text}`);
        assert.equal(form(key, text).ok, false, `the form accepts ${key}=${text}`);
        assert.equal(service(key, Number(text)), false, `the service accepts ${key}=${text}`);
      }
    });
  }
});
