import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DOCUMENT_CHOICES, exportFilter, NEW_CRAWL_DEFAULTS, newCrawlInput, parseBudgets, parseNumberField, parsePatternLines, proxyFieldError, readCookiesField, REVISIT_CHOICES } from '../../../../renderer/src/lib/forms.ts';
import { checkSettings, DEFAULT_SETTINGS, NEW_CRAWL_INPUT_BOUNDS } from '../../../../crawler/protocol/settings.ts';

describe('newCrawlInput', () => {
  test('turns a filled form into createCollection input that starts the crawl', () => {
    const parsed = newCrawlInput({
      ...NEW_CRAWL_DEFAULTS,
      query: '  write-ahead logging ',
      seeds: 'https://www.sqlite.org/docs.html\nhttps://www.sqlite.org/docs.html',
      maxPages: '200',
      delayMs: '0',
      scope: 'domains',
      strategy: 'bfs',
      hotPredicate: ' title:wal ',
      hotThreshold: '0.25',
      allowPrivate: true,
      render: 'always',
      spend: 'time',
      revisitAfter: '7d',
      documents: 'pdf',
      maxDocumentMiB: '20',
      include: ' https://www.sqlite.org/** \n\n',
      exclude: '**/*.zip\n/\\/v\\d+\\//i',
    });
    assert.deepEqual(parsed, {
      ok: true,
      value: {
        query: 'write-ahead logging',
        seeds: ['https://www.sqlite.org/docs.html'],
        maxPages: 200,
        delayMs: 0,
        scope: 'domains',
        strategy: 'bfs',
        concurrency: 16,
        maxDepth: 32,
        hotPredicate: 'title:wal',
        hotThreshold: 0.25,
        allowPrivate: true,
        render: 'always',
        spend: 'time',
        revisitAfter: '7d',
        documents: 'pdf',
        include: ['https://www.sqlite.org/**'],
        exclude: ['**/*.zip', '/\\/v\\d+\\//i'],
        maxDocumentBytes: 20 * 1024 * 1024,
        start: true,
      },
    });
    assert.ok(parsed.ok && checkSettings({ ...DEFAULT_SETTINGS, ...parsed.value }).ok, 'the documents settings the form makes are valid settings');
  });

  test('reads the include and exclude boxes one pattern a line, naming each bad line by its number', () => {
    const parsed = newCrawlInput({ ...NEW_CRAWL_DEFAULTS, query: 'q', seeds: 'http://a.example/', include: 'https://a.example/docs/**\n\n/docs/**', exclude: '**/*.zip\n/(/' });
    assert.ok(!parsed.ok);
    assert.match(parsed.errors.include ?? '', /^Line 3: a glob is matched against the whole URL .*cannot start with \//);
    assert.match(parsed.errors.exclude ?? '', /^Line 2: it is not a valid regular expression/);
    const many = parsePatternLines(Array.from({ length: NEW_CRAWL_INPUT_BOUNDS.patternCount + 1 }, (_, i) => `**/${i}/**`).join('\n'));
    assert.match(many.problems.at(-1) ?? '', /at most 100 are allowed/);
  });

  test('takes a pasted seed list with # comments', () => {
    const parsed = newCrawlInput({ ...NEW_CRAWL_DEFAULTS, query: 'q', seeds: '# the docs\nhttps://a.example/docs/  # start here\n\nhttps://b.example/' });
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.value.seeds, ['https://a.example/docs/', 'https://b.example/']);
  });

  test('passes a proxy and a pasted cookies.txt, and leaves both out when blank', () => {
    const cookies = '# Netscape HTTP Cookie File\r\n.library.example.org\tTRUE\t/\tTRUE\t0\tsid\tSECRET-FORM-VALUE\r\n#HttpOnly_auth.example.net\tFALSE\t/\tFALSE\t0\ttoken\tSECRET-FORM-VALUE\r\n';
    const parsed = newCrawlInput({ ...NEW_CRAWL_DEFAULTS, query: 'q', seeds: 'http://a.example/', proxy: ' socks5h://tor:secret@127.0.0.1:9050 ', cookies });
    assert.ok(parsed.ok);
    assert.deepEqual({ proxy: parsed.value.proxy, cookies: parsed.value.cookies }, { proxy: 'socks5h://tor:secret@127.0.0.1:9050', cookies });
    assert.ok(checkSettings({ ...DEFAULT_SETTINGS, query: 'q', seeds: ['http://a.example/'], proxy: parsed.value.proxy }).ok, 'the proxy the form makes is a valid setting');
    assert.deepEqual(readCookiesField(cookies), { cookies: 2, domains: ['auth.example.net', 'library.example.org'], problems: [] });
    const blank = newCrawlInput({ ...NEW_CRAWL_DEFAULTS, query: 'q', seeds: 'http://a.example/', proxy: '  ', cookies: '\n \n' });
    assert.ok(blank.ok);
    assert.deepEqual([Object.hasOwn(blank.value, 'proxy'), Object.hasOwn(blank.value, 'cookies')], [false, false]);
    const direct = newCrawlInput({ ...NEW_CRAWL_DEFAULTS, query: 'q', seeds: 'http://a.example/', proxy: 'none' });
    assert.ok(direct.ok);
    assert.equal(direct.value.proxy, 'none');
  });

  test('refuses a proxy the crawler would refuse, never quoting its password', () => {
    const refusals: [string, string][] = [
      ['ftp://user:hunter2@proxy:21', 'This proxy has scheme ftp://; use http://, https://, socks5:// or socks5h://.'],
      ['http://user:hunter2@proxy:3128/path', 'This proxy has a path or query; give only scheme, host and port.'],
      ['http://', 'This proxy is not a proxy URL.'],
      ['http://proxy:3128 none', 'This proxy holds a space.'],
      [`http://${'p'.repeat(NEW_CRAWL_INPUT_BOUNDS.proxyLength)}:1`, 'The proxy is too long (at most 2,000 characters).'],
    ];
    for (const [proxy, error] of refusals) {
      const parsed = newCrawlInput({ ...NEW_CRAWL_DEFAULTS, query: 'q', seeds: 'http://a.example/', proxy });
      assert.deepEqual(parsed, { ok: false, errors: { proxy: error } }, proxy);
      assert.equal(proxyFieldError(proxy), error);
    }
  });

  test('names each malformed cookies.txt line by its number, never quoting it', () => {
    const cookies = ['# Netscape HTTP Cookie File', 'a.example\tFALSE\t/\tFALSE\t0\tsid\tSECRET-FORM-VALUE', 'a.example FALSE / FALSE 0 sid SECRET-FORM-VALUE', '', 'a.example\tMAYBE\t/\tFALSE\t0\tsid\tSECRET-FORM-VALUE'].join('\n');
    const parsed = newCrawlInput({ ...NEW_CRAWL_DEFAULTS, query: 'q', seeds: 'http://a.example/', cookies });
    assert.deepEqual(parsed, {
      ok: false,
      errors: {
        cookies: 'Line 3: expected 7 TAB-separated fields (domain, subdomains, path, secure, expiry, name, value), found 1.\nLine 5: the include-subdomains flag (field 2) is neither TRUE nor FALSE.',
      },
    });
    const garbage = readCookiesField(Array.from({ length: 13 }, () => 'not a cookie').join('\n'));
    assert.deepEqual([garbage.problems.length, garbage.problems.at(-1)], [11, 'And 3 more malformed lines.']);
    assert.deepEqual(readCookiesField('a.example\tFALSE\t/\tFALSE\t1\tsid\told'), { cookies: 0, domains: [], problems: ['No cookie in it is still valid: they have all expired, or there are only comments.'] });
    assert.deepEqual(readCookiesField('x'.repeat(NEW_CRAWL_INPUT_BOUNDS.cookiesLength + 1)).problems, ['The cookies are too long: at most 500,000 characters.']);
  });

  test('offers the documents the settings take, and bounds the largest document in whole MiB', () => {
    for (const choice of DOCUMENT_CHOICES) assert.ok(checkSettings({ ...DEFAULT_SETTINGS, query: 'q', seeds: ['http://a.example/'], documents: choice.value }).ok, choice.value);
    const tooSmall = newCrawlInput({ ...NEW_CRAWL_DEFAULTS, query: 'q', seeds: 'http://a.example/', maxDocumentMiB: '0' });
    assert.ok(!tooSmall.ok && /The largest document/.test(tooSmall.errors.maxDocumentMiB ?? ''));
    const half = newCrawlInput({ ...NEW_CRAWL_DEFAULTS, query: 'q', seeds: 'http://a.example/', maxDocumentMiB: '1.5' });
    assert.ok(!half.ok && half.errors.maxDocumentMiB !== undefined, 'a whole number of MiB');
  });

  test('blank optional fields become nulls and a name is passed only when given', () => {
    const parsed = newCrawlInput({ ...NEW_CRAWL_DEFAULTS, query: 'q', seeds: 'http://a.example/' });
    assert.ok(parsed.ok);
    assert.equal(parsed.value.hotPredicate, null);
    assert.equal(parsed.value.hotThreshold, null);
    assert.equal('name' in parsed.value, false);
    const named = newCrawlInput({ ...NEW_CRAWL_DEFAULTS, query: 'q', seeds: 'http://a.example/', name: 'my crawl_2' });
    assert.ok(named.ok);
    assert.equal(named.value.name, 'my crawl_2');
  });

  test('reports every bad field in words', () => {
    const parsed = newCrawlInput({
      ...NEW_CRAWL_DEFAULTS,
      query: ' ',
      seeds: 'example.org',
      maxPages: '0',
      delayMs: '1.5',
      concurrency: 'many',
      maxDepth: '',
      hotThreshold: '2',
      name: 'a/b',
    });
    assert.equal(parsed.ok, false);
    if (parsed.ok) return;
    assert.deepEqual(Object.keys(parsed.errors).sort(), ['concurrency', 'delayMs', 'hotThreshold', 'maxDepth', 'maxPages', 'name', 'query', 'seeds']);
    assert.match(parsed.errors.seeds ?? '', /^Line 1: /);
    assert.match(parsed.errors.maxPages ?? '', /The page budget must be at least 1\./);
    assert.match(parsed.errors.delayMs ?? '', /whole number/);
    assert.match(parsed.errors.concurrency ?? '', /must be a number/);
    assert.match(parsed.errors.maxDepth ?? '', /cannot be empty/);
  });

  test('asks for a seed when there is none', () => {
    const parsed = newCrawlInput({ ...NEW_CRAWL_DEFAULTS, query: 'q', seeds: '\n \n' });
    assert.equal(parsed.ok, false);
    if (!parsed.ok) assert.match(parsed.errors.seeds ?? '', /at least one seed/);
  });
});

describe('REVISIT_CHOICES', () => {
  test('every choice is a revisit interval the settings accept, and the default is never', () => {
    assert.equal(NEW_CRAWL_DEFAULTS.revisitAfter, '');
    for (const choice of REVISIT_CHOICES) assert.equal(checkSettings({ ...DEFAULT_SETTINGS, query: 'q', seeds: ['https://a.example/'], revisitAfter: choice.value }).ok, true, choice.value);
    assert.equal(checkSettings({ ...DEFAULT_SETTINGS, query: 'q', seeds: ['https://a.example/'], revisitAfter: 'soon' }).ok, false);
  });
});

describe('parseNumberField', () => {
  test('blank is undefined; bounds are inclusive', () => {
    const rule = { what: 'X', min: 0, max: 1, integer: false };
    assert.deepEqual(parseNumberField('  ', rule), { ok: true, value: undefined });
    assert.deepEqual(parseNumberField('1', rule), { ok: true, value: 1 });
    assert.deepEqual(parseNumberField('0', rule), { ok: true, value: 0 });
    assert.equal(parseNumberField('1.01', rule).ok, false);
  });
});

describe('parseBudgets', () => {
  test('reads fractions and percentages, sorted and each once', () => {
    assert.deepEqual(parseBudgets('0.4, 0.05 10% 0.2;0.4'), { ok: true, value: [0.05, 0.1, 0.2, 0.4] });
    assert.deepEqual(parseBudgets('1'), { ok: true, value: [1] });
  });

  test('refuses empty, zero, above one and words', () => {
    for (const text of ['', ' , ', '0', '1.5', 'half', '150%']) assert.equal(parseBudgets(text).ok, false, text);
    const bad = parseBudgets('0.1, lots');
    assert.ok(!bad.ok && bad.error.includes('“lots”'));
  });

  test('refuses more than twenty budgets', () => {
    const text = Array.from({ length: 21 }, (_, i) => String((i + 1) / 100)).join(',');
    assert.equal(parseBudgets(text).ok, false);
  });
});

describe('exportFilter', () => {
  const empty = { hotOnly: false, minRelevance: '', labelledRelevant: false, text: '', host: '', skipDuplicates: false };

  test('an untouched form is no filter at all', () => {
    assert.deepEqual(exportFilter(empty), { ok: true, value: {} });
  });

  test('sets only the filters the user chose', () => {
    assert.deepEqual(exportFilter({ hotOnly: true, minRelevance: '0.3', labelledRelevant: true, text: ' wal ', host: ' www.sqlite.org ', skipDuplicates: true }), {
      ok: true,
      value: { hotOnly: true, minRelevance: 0.3, labelledRelevant: true, text: 'wal', host: 'www.sqlite.org', skipDuplicates: true },
    });
  });

  test('a minimum relevance outside 0..1 is an error on that field', () => {
    const parsed = exportFilter({ ...empty, minRelevance: '5' });
    assert.equal(parsed.ok, false);
    if (!parsed.ok) assert.match(parsed.errors.minRelevance ?? '', /between 0 and 1/);
  });
});
