import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { openCollection } from '../../crawler/store/database.ts';
import { loadSettings, saveSettings } from '../../crawler/store/settings-store.ts';
import type { CrawlSettings } from '../../crawler/protocol/settings.ts';
import { FORAGER_BIN, runCli, spawnCli, type CliResult } from '../support/cli.ts';
import { tempDir, testSettings } from '../support/crawl-harness.ts';
import { isSoft404Probe, startTestSite, type TestSite } from '../support/test-site.ts';
import { buildSyntheticCollection } from '../../bench/support/synthetic-collection.ts';

const AGENT = 'ForagerTest/1.0 (+http://127.0.0.1/about)';
const QUERY = 'orchard winds';

// Only the ForagerTest group lets anything through, so obeying it proves the agent token is matched.
const ROBOTS = 'User-agent: *\nDisallow: /\n\nUser-agent: ForagerTest\nDisallow: /private/\n';

interface PageSpec {
  title: string;
  body: string;
}

/** /extra and /extra2 are not linked from the first pages: only a later --seed reaches them. */
function orchardPages(port: number): Record<string, PageSpec> {
  return {
    '/': {
      title: 'Orchard home',
      body: `<p>Welcome to the orchard.</p><a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a> <a href="/missing">gone</a>
        <a href="/private/x">private</a> <a href="http://localhost:${port}/outside">another host</a>`,
    },
    '/a': { title: 'Zephyr winds', body: '<p>The zephyr is a gentle west wind; a zephyr cools the orchard. Zephyr again. foo and bar.</p>' },
    '/b': { title: 'Granite', body: '<p>Granite rocks under the trees.</p><a href="/d">deeper</a>' },
    '/c': {
      title: 'Notes',
      body: `<p>${'Apples pears plums cherries quinces medlars. '.repeat(30)}Once a zephyr passed. ${'Soil water sun. '.repeat(30)}</p>`,
    },
    '/d': { title: 'Deep', body: '<p>A deep page, two links from home.</p><a href="/">home</a>' },
    '/extra': { title: 'Extra', body: '<p>An extra page.</p><a href="/extra2">more</a> <a href="/a">a</a>' },
    '/extra2': { title: 'Extra two', body: '<p>The second extra page.</p>' },
  };
}

/** Every page the first crawl reaches, and the seed host's /sitemap.xml, tried as robots.txt names none (a 404 here). */
const FIRST_CRAWL_PATHS = ['/', '/a', '/b', '/c', '/d', '/missing', '/sitemap.xml'];

interface OrchardSite extends TestSite {
  /** User-Agent of every request, in arrival order. */
  agents: string[];
}

async function startOrchard(): Promise<OrchardSite> {
  const agents: string[] = [];
  const site = await startTestSite({}, (req, res) => {
    agents.push(req.headers['user-agent'] ?? '');
    const path = req.url ?? '/';
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(ROBOTS);
      return;
    }
    const page = orchardPages(req.socket.localPort ?? 0)[path];
    if (page === undefined) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<title>Not found</title><p>nothing here</p>');
      return;
    }
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><html><head><title>${page.title}</title></head><body>${page.body}</body></html>`);
  });
  return Object.assign(site, { agents });
}

function crawlArgs(db: string, site: TestSite, extra: string[] = []): string[] {
  return [
    'crawl', '--db', db, '--query', QUERY, '--seed', `${site.origin}/`,
    '--delay-ms', '0', '--delay-factor', '0', '--concurrency', '2', '--allow-private', '--user-agent', AGENT,
    ...extra,
  ];
}

function jsonObject(result: CliResult): Record<string, unknown> {
  assert.equal(result.code, 0, `exit 0 expected; stderr: ${result.stderr}`);
  const lines = result.stdout.trim().split('\n');
  assert.equal(lines.length, 1, `one JSON line expected, got: ${result.stdout}`);
  const value: unknown = JSON.parse(lines[0] as string);
  assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value));
  return value as Record<string, unknown>;
}

function jsonLines(result: CliResult): Record<string, unknown>[] {
  assert.equal(result.code, 0, `exit 0 expected; stderr: ${result.stderr}`);
  assert.equal(result.stderr, '');
  if (result.stdout === '') return [];
  assert.ok(result.stdout.endsWith('\n'), 'every JSON line ends with a newline');
  return result.stdout
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A failure the CLI expected: exactly one line on stderr, prefixed, nothing on stdout, non-zero exit. */
function assertOneLineError(result: CliResult, what: string, code?: number): void {
  assert.equal(result.signal, null, `${what}: died of ${result.signal}`);
  if (code === undefined) assert.notEqual(result.code, 0, `${what}: non-zero exit expected`);
  else assert.equal(result.code, code, `${what}: exit ${code} expected, got ${result.code}; stderr: ${result.stderr}`);
  assert.match(result.stderr, /^forager: [^\n]+\n$/, `${what}: one stderr line starting "forager:", got ${JSON.stringify(result.stderr)}`);
  assert.doesNotMatch(result.stderr, /unexpected error/, `${what}: an expected failure, reported as unexpected`);
  assert.equal(result.stdout, '', `${what}: nothing on stdout`);
}

const numberFields = ['fetched', 'queued', 'failed', 'robotsBlocked', 'skipped', 'seenCacheHitRate', 'pagesPerSecond'] as const;

describe('forager crawl, stats, pages and search on a loopback site', () => {
  let site: OrchardSite;
  const tmp = tempDir('forager-cli-');
  const db = join(tmp.dir, 'orchard.db');
  let crawl: CliResult;

  before(async () => {
    site = await startOrchard();
    crawl = await runCli([...crawlArgs(db, site), '--json']);
  });
  after(async () => {
    await site.close();
    tmp.cleanup();
  });

  it('crawl --json prints final stats that match what the server saw', () => {
    assert.equal(crawl.stderr, '', 'no progress bar or noise when --json and not a terminal');
    const stats = jsonObject(crawl);
    for (const field of numberFields) assert.equal(typeof stats[field], 'number', `${field} is a number`);
    assert.equal(stats.outcome, 'exhausted');
    const pageRequests = site.requests.filter((p) => p !== '/robots.txt' && !isSoft404Probe(p));
    assert.equal(site.requests.filter(isSoft404Probe).length, 1, 'one soft-404 probe for the host');
    assert.deepEqual([...pageRequests].sort(), [...FIRST_CRAWL_PATHS].sort(), 'every reachable page fetched, once');
    assert.equal(stats.fetched, pageRequests.length);
    assert.equal(stats.queued, 0);
    assert.equal(stats.failed, 0);
    assert.equal(stats.robotsBlocked, 1, '/private/x is disallowed for ForagerTest');
    assert.equal(stats.skipped, 1, 'the link to another host is out of scope');
    assert.equal(site.count('/private/x'), 0);
    assert.equal(site.count('/outside'), 0);
    assert.equal(site.count('/robots.txt'), 1);
    const rate = stats.seenCacheHitRate as number;
    assert.ok(rate >= 0 && rate <= 1, `seenCacheHitRate ${rate} is a fraction`);
    assert.ok((stats.pagesPerSecond as number) > 0);
  });

  it('sends the --user-agent on every request', () => {
    assert.ok(site.agents.length > 0);
    for (const agent of site.agents) assert.equal(agent, AGENT);
  });

  it('stats --json agrees with the crawl', async () => {
    const live = jsonObject(crawl);
    const stored = jsonObject(await runCli(['stats', '--db', db, '--json']));
    for (const field of numberFields) assert.equal(typeof stored[field], 'number', `stats has ${field}`);
    for (const field of ['fetched', 'queued', 'failed', 'robotsBlocked', 'skipped'] as const) {
      assert.equal(stored[field], live[field], field);
    }
    assert.ok(Math.abs((stored.seenCacheHitRate as number) - (live.seenCacheHitRate as number)) < 1e-9, 'same seen-cache hit rate');
    const ratio = (stored.pagesPerSecond as number) / (live.pagesPerSecond as number);
    assert.ok(ratio > 0.5 && ratio < 2, `pagesPerSecond stored ${stored.pagesPerSecond} vs live ${live.pagesPerSecond}`);
  });

  it('pages --json lists one line per fetched page, in fetch order, with typed fields', async () => {
    const pages = jsonLines(await runCli(['pages', '--db', db, '--json']));
    assert.equal(pages.length, FIRST_CRAWL_PATHS.length);
    let lastSeq = 0;
    for (const page of pages) {
      assert.ok(Number.isInteger(page.seq) && (page.seq as number) > lastSeq, `seq ${page.seq} increases`);
      lastSeq = page.seq as number;
      assert.equal(typeof page.url, 'string');
      assert.ok(Number.isInteger(page.status));
      assert.ok(Number.isInteger(page.depth) && (page.depth as number) >= 0);
      assert.ok(page.title === null || typeof page.title === 'string');
      assert.equal(typeof page.fetchedAt, 'string');
      const at = page.fetchedAt as string;
      assert.match(at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/, `fetchedAt ${at} is ISO 8601`);
      const when = Date.parse(at);
      assert.ok(Math.abs(Date.now() - when) < 60_000, `fetchedAt ${at} is about now`);
    }
    assert.deepEqual(
      pages.map((p) => p.url).sort(),
      FIRST_CRAWL_PATHS.map((p) => `${site.origin}${p}`).sort(),
    );
    const byPath = new Map(pages.map((p) => [new URL(p.url as string).pathname, p]));
    const firstPage = pages.find((p) => new URL(p.url as string).pathname !== '/sitemap.xml');
    assert.equal(firstPage?.url, `${site.origin}/`, "the seed is the first page fetched (the seed host's /sitemap.xml may go before it)");
    const home = byPath.get('/');
    assert.equal(home?.status, 200);
    assert.equal(home?.depth, 0);
    assert.equal(home?.title, 'Orchard home');
    assert.equal(byPath.get('/d')?.depth, 2);
    assert.equal(byPath.get('/a')?.title, 'Zephyr winds');
    assert.equal(byPath.get('/missing')?.status, 404);
  });

  it('search --json ranks the pages holding a word and highlights it in each snippet', async () => {
    const hits = jsonLines(await runCli(['search', '--db', db, '--json', 'zephyr']));
    assert.deepEqual(hits.map((h) => h.url), [`${site.origin}/a`, `${site.origin}/c`], 'only the two zephyr pages, the one about it first');
    hits.forEach((hit, i) => {
      assert.equal(hit.rank, i + 1);
      assert.equal(typeof hit.snippet, 'string');
      assert.match(hit.snippet as string, /\[zephyr\]/i, `snippet ${JSON.stringify(hit.snippet)} marks the word`);
      assert.equal(typeof hit.score, 'number');
    });
    assert.ok((hits[0]?.score as number) >= (hits[1]?.score as number), 'scores fall with rank');
  });

  it('search --json finds nothing for a word no page holds', async () => {
    assert.deepEqual(jsonLines(await runCli(['search', '--db', db, '--json', 'xylophone'])), []);
  });

  it('search does not choke on full-text query syntax', async () => {
    for (const query of ['"foo* AND (', 'NEAR(foo', '*', '"', 'foo OR', '^bar:']) {
      const result = await runCli(['search', '--db', db, '--json', query]);
      const hits = jsonLines(result);
      for (const hit of hits) {
        assert.ok([`${site.origin}/a`].includes(hit.url as string), `${query}: hit ${hit.url} holds no foo or bar`);
      }
    }
  });

  it('crawl with a different --query on the collection fails and changes nothing', async () => {
    const before = jsonObject(await runCli(['stats', '--db', db, '--json']));
    const requests = site.requests.length;
    const result = await runCli(['crawl', '--db', db, '--query', 'something else', '--seed', `${site.origin}/extra`, '--allow-private', '--json']);
    assertOneLineError(result, 'different query');
    assert.match(result.stderr, /query/);
    const afterStats = jsonObject(await runCli(['stats', '--db', db, '--json']));
    for (const field of ['fetched', 'queued', 'failed', 'robotsBlocked', 'skipped'] as const) assert.equal(afterStats[field], before[field], field);
    assert.equal(site.requests.length, requests, 'no request sent');
  });
});

describe('crawl --contact', () => {
  it('puts the contact URL into the User-Agent that every request carries', async () => {
    const agents: string[] = [];
    const site = await startTestSite({}, (req, res) => {
      agents.push(req.headers['user-agent'] ?? '');
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>t</title>');
    });
    const tmp = tempDir('forager-cli-');
    try {
      const result = await runCli([
        'crawl', '--db', join(tmp.dir, 'c.db'), '--query', 'contact test', '--seed', `${site.origin}/`, '--delay-ms', '0',
        '--contact', 'mailto:crawl-owner@example.org', '--json',
      ]);
      assert.equal(result.code, 0, result.stderr);
      assert.ok(agents.length >= 2, 'robots.txt and the page were requested');
      for (const agent of agents) assert.match(agent, /^Forager\/\S+ \(\+mailto:crawl-owner@example\.org\)$/);
    } finally {
      await site.close();
      tmp.cleanup();
    }
  });
});

describe('continuing a collection', () => {
  let site: OrchardSite;
  const tmp = tempDir('forager-cli-');
  before(async () => {
    site = await startOrchard();
  });
  after(async () => {
    await site.close();
    tmp.cleanup();
  });

  it('crawl again with a new --seed continues the finished collection without refetching', async () => {
    const db = join(tmp.dir, 'continue.db');
    const first = jsonObject(await runCli([...crawlArgs(db, site), '--json']));
    assert.equal(first.fetched, FIRST_CRAWL_PATHS.length);
    const second = jsonObject(await runCli([
      'crawl', '--db', db, '--query', QUERY, '--seed', `${site.origin}/extra`, '--allow-private', '--user-agent', AGENT, '--json',
    ]));
    assert.equal(second.outcome, 'exhausted');
    assert.equal(second.fetched, FIRST_CRAWL_PATHS.length + 2, 'the old pages plus /extra and /extra2');
    for (const path of [...FIRST_CRAWL_PATHS, '/extra', '/extra2', '/robots.txt']) {
      assert.equal(site.count(path), 1, `${path} requested once across both runs`);
    }
    const pages = jsonLines(await runCli(['pages', '--db', db, '--json']));
    assert.deepEqual(pages.slice(-2).map((p) => p.url), [`${site.origin}/extra`, `${site.origin}/extra2`]);
  });

  it('crawl stops at --max-pages and resume carries on to the end', async () => {
    const db = join(tmp.dir, 'budget.db');
    const before = site.requests.length;
    const plain = await runCli(crawlArgs(db, site, ['--max-pages', '3']));
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /page budget reached/);
    assert.match(plain.stdout, new RegExp(`forager resume --db ${db.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.doesNotMatch(plain.stderr, /[\r\x1b]/, 'no progress bar when stderr is not a terminal');
    const mid = jsonObject(await runCli(['stats', '--db', db, '--json']));
    assert.equal(mid.fetched, 3);
    assert.ok((mid.queued as number) > 0);
    const resumed = jsonObject(await runCli(['resume', '--db', db, '--max-pages', '100', '--json']));
    assert.equal(resumed.outcome, 'exhausted');
    assert.equal(resumed.fetched, FIRST_CRAWL_PATHS.length);
    const requested = site.requests.slice(before).filter((p) => p !== '/robots.txt' && !isSoft404Probe(p));
    assert.deepEqual([...requested].sort(), [...FIRST_CRAWL_PATHS].sort(), 'each page fetched once across crawl and resume');
    const again = jsonObject(await runCli(['resume', '--db', db, '--json']));
    assert.equal(again.outcome, 'exhausted');
    assert.equal(again.fetched, FIRST_CRAWL_PATHS.length);
    assert.equal(site.requests.slice(before).filter(isSoft404Probe).length, 1, 'the host is probed once, not again on resume');
    assert.equal(site.requests.length - before, requested.length + 2, 'resuming a finished crawl sends no request, robots.txt and the probe included');
  });

  it('resume --allow-private turns private addresses back on for a collection that lost them (as an import does)', async () => {
    const db = join(tmp.dir, 'private.db');
    assert.equal((await runCli(crawlArgs(db, site, ['--max-pages', '2']))).code, 0);
    const collection = openCollection(db, { create: false });
    try {
      saveSettings(collection, { ...(loadSettings(collection) as CrawlSettings), allowPrivate: false });
    } finally {
      collection.close();
    }
    const resumed = jsonObject(await runCli(['resume', '--db', db, '--max-pages', '100', '--allow-private', '--json']));
    assert.equal(resumed.outcome, 'exhausted');
    assert.equal(resumed.fetched, FIRST_CRAWL_PATHS.length, 'the loopback site was crawled to the end');
    const reopened = openCollection(db, { create: false, readonly: true });
    try {
      assert.equal(loadSettings(reopened)?.allowPrivate, true, 'the choice is stored for the next resume');
    } finally {
      reopened.close();
    }
  });
});

/**
 * Runs a command under util-linux `script`, which gives it a pseudo-terminal of the given
 * width (0: the size is left unset, as in some terminals and containers); null when
 * `script` is not installed.
 */
function runOnTerminal(args: string[], columns: number): Promise<{ code: number | null; output: string } | null> {
  const quote = (a: string): string => `'${a.replace(/'/g, `'\\''`)}'`;
  const forager = [process.execPath, FORAGER_BIN, ...args].map(quote).join(' ');
  const command = columns > 0 ? `stty cols ${columns} rows 40; exec ${forager}` : `exec ${forager}`;
  return new Promise((resolve) => {
    const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('error', () => {
      clearTimeout(timer);
      resolve(null);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('crawl on a terminal', () => {
  let site: OrchardSite;
  const tmp = tempDir('forager-cli-');
  before(async () => {
    site = await startOrchard();
  });
  after(async () => {
    await site.close();
    tmp.cleanup();
  });

  for (const columns of [100, 0]) {
    it(`draws a progress bar in place on a terminal ${columns > 0 ? `${columns} columns wide` : 'of unknown width'}`, async (t) => {
      const result = await runOnTerminal(crawlArgs(join(tmp.dir, `tty-${columns}.db`), site, ['--max-pages', '50']), columns);
      if (result === null) {
        t.skip('util-linux script is not installed, so no pseudo-terminal');
        return;
      }
      assert.equal(result.code, 0, result.output);
      assert.match(result.output, /\r/, 'the bar is redrawn in place');
      assert.match(result.output, new RegExp(`\\b${FIRST_CRAWL_PATHS.length}/50\\b`), `the bar shows pages fetched of the budget: ${JSON.stringify(result.output)}`);
      assert.match(result.output, /frontier empty/);
    });
  }
});

describe('forager robots', () => {
  const tmp = tempDir('forager-cli-');
  const file = join(tmp.dir, 'robots.txt');
  before(() => {
    writeFileSync(file, [
      'User-agent: *',
      'Disallow: /private/',
      'Allow: /private/public-*',
      'Disallow: /*.pdf$',
      '',
      'User-agent: FooBot',
      'Disallow: /',
      '',
    ].join('\n'));
  });
  after(() => tmp.cleanup());

  const cases: [agent: string, url: string, verdict: 'allowed' | 'disallowed'][] = [
    ['Forager', 'http://example.com/', 'allowed'],
    ['Forager', 'http://example.com/private/x', 'disallowed'],
    ['Forager', 'http://example.com/private/public-page', 'allowed'],
    ['Forager', 'http://example.com/docs/a.pdf', 'disallowed'],
    ['Forager', 'http://example.com/docs/a.pdf?x=1', 'allowed'],
    ['Forager', 'http://example.com/docs/a.pdfx', 'allowed'],
    ['FooBot', 'http://example.com/anything', 'disallowed'],
    ['foobot', 'http://example.com/', 'disallowed'],
  ];
  for (const [agent, url, verdict] of cases) {
    it(`${agent} ${url}: ${verdict}`, async () => {
      const result = await runCli(['robots', '--robots-file', file, '--agent', agent, url]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, `${verdict}\n`);
    });
  }

  it('a missing robots file is a one-line error', async () => {
    assertOneLineError(await runCli(['robots', '--robots-file', join(tmp.dir, 'absent.txt'), '--agent', 'Forager', 'http://example.com/']), 'missing file');
  });
});

describe('forager canon', () => {
  const cases: [args: string[], expected: string][] = [
    [['HTTP://Example.COM:80/a/../b/?#frag'], 'http://example.com/b/'],
    [['http://example.com'], 'http://example.com/'],
    [['https://example.com:443/%7euser/%2f?'], 'https://example.com/~user/%2F'],
    [['http://user:pw@Example.org./x#y'], 'http://example.org/x'],
    [['--base', 'http://a.org/x/y', '../z?q=1'], 'http://a.org/z?q=1'],
    [['--base', 'http://a.org/x/y', 'https://B.org'], 'https://b.org/'],
  ];
  for (const [args, expected] of cases) {
    it(`${args.join(' ')} → ${expected}`, async () => {
      const result = await runCli(['canon', ...args]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, `${expected}\n`);
      assert.equal(result.stderr, '');
    });
  }

  for (const bad of ['ftp://x', 'http://', 'not a url', 'http://exa mple.com/', 'http://example.com:0/', 'javascript:alert(1)']) {
    it(`rejects ${JSON.stringify(bad)}`, async () => {
      assertOneLineError(await runCli(['canon', bad]), bad);
    });
  }

  it('rejects a relative URL against an invalid --base', async () => {
    assertOneLineError(await runCli(['canon', '--base', 'notabase', 'rel']), 'bad base');
  });
});

describe('wrong arguments: one line on stderr, exit 2', () => {
  const tmp = tempDir('forager-cli-');
  const seed = 'http://127.0.0.1:9/';
  const stored = join(tmp.dir, 'stored.db');
  before(() => {
    const db = openCollection(stored, { create: true });
    saveSettings(db, testSettings([seed]));
    db.close();
  });
  after(() => tmp.cleanup());
  let n = 0;
  const fresh = (): string => join(tmp.dir, `fresh-${++n}.db`);
  const newCrawl = (...extra: string[]): string[] => ['crawl', '--db', fresh(), '--query', 'garden tools', '--seed', seed, ...extra];
  const cases: [name: string, args: () => string[], says: RegExp][] = [
    ['unknown command', () => ['frobnicate'], /unknown command "frobnicate"/],
    ['unknown flag', () => ['stats', '--db', fresh(), '--frobnicate'], /--frobnicate/],
    ['--max-pages abc', () => newCrawl('--max-pages', 'abc'), /max-pages/],
    ['--max-pages 0', () => newCrawl('--max-pages', '0'), /max-pages/],
    ['--delay-ms=-5', () => newCrawl('--delay-ms=-5'), /delay-ms/],
    ['--concurrency 0', () => newCrawl('--concurrency', '0'), /concurrency/],
    ['--scope nowhere', () => newCrawl('--scope', 'nowhere'), /scope/],
    ['--strategy nope', () => newCrawl('--strategy', 'nope'), /strategy/],
    ['an invalid --seed', () => ['crawl', '--db', fresh(), '--query', 'q', '--seed', 'ftp://x'], /seed/],
    ['missing --db (crawl)', () => ['crawl', '--query', 'q', '--seed', seed], /--db/],
    ['missing --db (stats)', () => ['stats', '--json'], /--db/],
    ['missing --db (resume)', () => ['resume'], /--db/],
    ['missing --query on a new collection', () => ['crawl', '--db', fresh(), '--seed', seed], /--query/],
    ['missing --seed on a new collection', () => ['crawl', '--db', fresh(), '--query', 'q'], /--seed/],
    ['--max-pages abc on an existing collection', () => ['crawl', '--db', stored, '--max-pages', 'abc'], /max-pages/],
    ['resume --max-pages abc', () => ['resume', '--db', stored, '--max-pages', 'abc'], /max-pages/],
    ['search without words', () => ['search', '--db', stored, '--json'], /words/],
    ['robots without --robots-file', () => ['robots', '--agent', 'Forager', 'http://example.com/'], /--robots-file/],
    ['canon without a URL', () => ['canon'], /URL/],
    ['canon with two URLs', () => ['canon', 'http://a.org/', 'http://b.org/'], /URL/],
    ['--contact that is not a URL', () => newCrawl('--contact', 'call me'), /--contact/],
    ['a query of stop words only', () => ['crawl', '--db', fresh(), '--query', 'the of and', '--seed', seed], /no content words/],
    ['--user-agent without a product token', () => newCrawl('--user-agent', '(compatible) bot'), /product token/],
    ['--revisit-after that is no duration', () => newCrawl('--revisit-after', 'soon'), /revisit-after/],
    ['refresh without --db', () => ['refresh'], /--db/],
    ['refresh --max-pages 0', () => ['refresh', '--db', stored, '--max-pages', '0'], /max-pages/],
    ['refresh of a host the collection has no pages from', () => ['refresh', '--db', stored, '--host', 'elsewhere.example'], /no pages from host "elsewhere.example"/],
    ['cluster create --revisit-after that is no duration', () => ['cluster', 'create', '--redis', 'redis://127.0.0.1:9', '--name', 'c', '--query', 'garden tools', '--seed', seed, '--revisit-after', 'soon'], /revisit-after/],
    ['worker --dormant-after under a second', () => ['worker', '--redis', 'redis://127.0.0.1:9', '--name', 'c', '--dir', fresh(), '--dormant-after', '10ms'], /--dormant-after must be a duration of at least 1s/],
    ['refresh --cluster with --db', () => ['refresh', '--cluster', 'c', '--redis', 'redis://127.0.0.1:9', '--db', stored], /--db FILE .* or --cluster NAME .*, not both/],
    ['refresh --cluster without --redis', () => ['refresh', '--cluster', 'c'], /--redis/],
    ['refresh --cluster --host', () => ['refresh', '--cluster', 'c', '--redis', 'redis://127.0.0.1:9', '--host', 'a.example'], /--host is for a collection/],
    ['refresh --redis without --cluster', () => ['refresh', '--db', stored, '--redis', 'redis://127.0.0.1:9'], /--redis goes with --cluster/],
  ];
  for (const [name, args, says] of cases) {
    it(name, async () => {
      const result = await runCli(args());
      assertOneLineError(result, name, 2);
      assert.match(result.stderr, says);
    });
  }

  it('a crawl refused for its arguments leaves no collection file behind', async () => {
    const rejected: [string, string[]][] = [
      ['--max-pages abc', ['--query', 'q', '--seed', seed, '--max-pages', 'abc']],
      ['--scope nowhere', ['--query', 'q', '--seed', seed, '--scope', 'nowhere']],
      ['missing --seed', ['--query', 'q']],
    ];
    for (const [name, args] of rejected) {
      const db = fresh();
      assertOneLineError(await runCli(['crawl', '--db', db, ...args]), name, 2);
      assert.equal(existsSync(db), false, `${name}: ${db} was created`);
    }
  });
});

interface Snapshot {
  entries: string[];
  bytes: Buffer | undefined;
}

/** The file's bytes and its directory's listing, so sidecar files (-wal, -journal) show up too. */
function snapshot(path: string): Snapshot {
  const isFile = existsSync(path) && statSync(path).isFile();
  return { entries: readdirSync(dirname(path)).sort(), bytes: isFile ? readFileSync(path) : undefined };
}

describe('database files that are not usable collections: one line, non-zero, untouched', () => {
  let site: TestSite;
  const tmp = tempDir('forager-cli-');
  before(async () => {
    site = await startTestSite({}, (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<title>x</title>'));
  });
  after(async () => {
    await site.close();
    tmp.cleanup();
  });

  const commands = (db: string): [name: string, args: string[]][] => [
    ['stats', ['stats', '--db', db, '--json']],
    ['pages', ['pages', '--db', db, '--json']],
    ['search', ['search', '--db', db, '--json', 'word']],
    ['resume', ['resume', '--db', db, '--json']],
    ['crawl', ['crawl', '--db', db, '--query', 'q', '--seed', `${site.origin}/`, '--allow-private', '--json']],
  ];

  /** Each case gets its own directory, so any file the CLI leaves beside the db is noticed. */
  function caseFile(name: string, make: (path: string) => void): string {
    const dir = join(tmp.dir, name);
    mkdirSync(dir);
    const path = join(dir, 'collection.db');
    make(path);
    return path;
  }

  async function expectRefused(path: string, which: readonly string[]): Promise<void> {
    for (const [name, args] of commands(path)) {
      if (!which.includes(name)) continue;
      const before = snapshot(path);
      const result = await runCli(args);
      assertOneLineError(result, `${name} on ${path}`);
      assert.deepEqual(snapshot(path), before, `${name} left ${path} and its directory as they were`);
    }
    assert.equal(site.requests.length, 0, 'no crawl started');
  }

  it('a file of random bytes', async () => {
    const path = caseFile('random', (p) => writeFileSync(p, randomBytes(8192)));
    await expectRefused(path, ['stats', 'pages', 'search', 'resume', 'crawl']);
  });

  it('a SQLite database that is not a Forager collection', async () => {
    const path = caseFile('foreign', (p) => {
      const other = new Database(p);
      other.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('keep me')");
      other.close();
    });
    await expectRefused(path, ['stats', 'pages', 'search', 'resume', 'crawl']);
  });

  it('an empty file, for the commands that only read', async () => {
    const path = caseFile('empty', (p) => writeFileSync(p, ''));
    await expectRefused(path, ['stats', 'pages', 'search']);
  });

  it('a path that does not exist', async () => {
    const path = join(tmp.dir, 'absent', 'nothing.db');
    mkdirSync(join(tmp.dir, 'absent'));
    await expectRefused(path, ['stats', 'pages', 'search', 'resume']);
    assert.equal(existsSync(path), false, 'not created');
  });

  it('a path in a directory that does not exist', async () => {
    const path = join(tmp.dir, 'no-such-dir', 'collection.db');
    for (const [name, args] of commands(path)) assertOneLineError(await runCli(args), `${name} on ${path}`);
    assert.equal(existsSync(join(tmp.dir, 'no-such-dir')), false, 'no directory created');
    assert.equal(site.requests.length, 0, 'no crawl started');
  });

  it('a directory', async () => {
    const path = caseFile('directory', (p) => mkdirSync(p));
    await expectRefused(path, ['stats', 'pages', 'search', 'resume', 'crawl']);
    assert.deepEqual(readdirSync(path), [], 'nothing written inside it');
  });

  it('an unreadable collection', async (t) => {
    const path = caseFile('unreadable', (p) => openCollection(p, { create: true }).close());
    const before = snapshot(path);
    chmodSync(path, 0o000);
    try {
      let readable = true;
      try {
        readFileSync(path);
      } catch {
        readable = false;
      }
      if (readable) {
        t.skip('running with root privileges: chmod 000 does not stop reads');
        return;
      }
      for (const [name, args] of commands(path)) {
        const result = await runCli(args);
        assertOneLineError(result, `${name} on an unreadable file`);
      }
    } finally {
      chmodSync(path, 0o600);
    }
    assert.deepEqual(snapshot(path), before, 'left as it was');
    assert.equal(site.requests.length, 0, 'no crawl started');
  });
});

describe('the forager process', { skip: process.platform !== 'linux' ? 'malloc settings are a glibc matter' : false }, () => {
  /** The environment `forager serve` runs with when started with `env`, and its command line. */
  async function serveProcess(env: NodeJS.ProcessEnv): Promise<{ environ: string[]; cmdline: string }> {
    const dir = tempDir('forager-malloc-');
    const serve = spawnCli(['serve', '--dir', dir.dir, '--port', '0'], { env, timeoutMs: 20_000 });
    try {
      const deadline = Date.now() + 15_000;
      while (!/Open http:\/\/127\.0\.0\.1:\d+\//.test(serve.stdout()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.match(serve.stdout(), /Open http:\/\/127\.0\.0\.1:\d+\//, 'the server started and printed its address');
      return {
        environ: readFileSync(`/proc/${serve.child.pid}/environ`, 'utf8').split('\0'),
        cmdline: readFileSync(`/proc/${serve.child.pid}/cmdline`, 'utf8'),
      };
    } finally {
      serve.child.kill('SIGTERM');
      await serve.done;
      dir.cleanup();
    }
  }

  it("runs with at most two malloc arenas and glibc's mmap and trim thresholds pinned, with its pid, arguments and output unchanged", async () => {
    const env = { ...process.env };
    delete env.MALLOC_ARENA_MAX;
    delete env.MALLOC_MMAP_THRESHOLD_;
    delete env.MALLOC_TRIM_THRESHOLD_;
    const { environ, cmdline } = await serveProcess(env);
    assert.ok(environ.includes('MALLOC_ARENA_MAX=2'), 'the process the CLI was started as runs with two arenas');
    assert.ok(environ.includes('MALLOC_MMAP_THRESHOLD_=131072'), 'and with blocks of 128 KB or more always in mappings of their own');
    assert.ok(environ.includes('MALLOC_TRIM_THRESHOLD_=1048576'), 'and up to 1 MB kept free at the top of the heap');
    assert.match(cmdline, /bin\/forager\.js\0serve\0--dir\0/);
  });

  it("keeps the user's own malloc settings", async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, MALLOC_ARENA_MAX: '4' };
    delete env.MALLOC_MMAP_THRESHOLD_;
    const { environ } = await serveProcess(env);
    assert.ok(environ.includes('MALLOC_ARENA_MAX=4'), "the user's arena count stays");
    assert.ok(!environ.includes('MALLOC_ARENA_MAX=2'));
    assert.ok(environ.includes('MALLOC_MMAP_THRESHOLD_=131072'), 'the setting the user left unset is added');
  });
});

describe('forager writing to a reader that goes away', () => {
  it('stops quietly when its output pipe closes, as `forager pages | head` does', async () => {
    const dir = tempDir('forager-epipe-');
    try {
      const db = join(dir.dir, 'big.forager');
      // Far more output than a pipe holds, so writes go on after the reader has gone.
      buildSyntheticCollection(db, 3000);
      const child = spawn(process.execPath, [FORAGER_BIN, 'pages', '--db', db, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.stdout.once('data', () => child.stdout.destroy());
      const code = await new Promise<number | null>((resolve) => child.once('close', (exit) => resolve(exit)));
      assert.equal(stderr, '', 'no error and no stack trace');
      assert.equal(code, 0);
    } finally {
      dir.cleanup();
    }
  });
});

describe('pages and search over a refreshed collection', () => {
  const tmp = tempDir('forager-cli-versions-');
  const db = join(tmp.dir, 'versions.db');
  const served = new Map<string, string>([
    ['/', '<a href="/wal">WAL</a> <a href="/steady">steady</a> <a href="/doomed">doomed</a>'],
    ['/wal', '<p>The WAL is flushed at every checkpoint.</p>'],
    ['/steady', '<p>Checkpoint notes that never change.</p>'],
    ['/doomed', '<p>A checkpoint page about to go.</p>'],
  ]);
  let site: TestSite;
  let crawledAt = 0;

  before(async () => {
    site = await startTestSite({}, (req, res) => {
      const body = served.get(req.url ?? '/');
      if (body === undefined) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>${req.url}</title></head><body>${body}</body></html>`);
    });
    const crawl = await runCli(['crawl', '--db', db, '--query', 'checkpoint', '--seed', `${site.origin}/`, '--delay-ms', '0', '--allow-private', '--json']);
    assert.equal(crawl.code, 0, crawl.stderr);
    crawledAt = Date.now();
    await new Promise((r) => setTimeout(r, 5));
    served.set('/wal', '<p>The WAL is written and flushed at each checkpoint.</p><a href="/fresh">fresh</a>');
    served.set('/fresh', '<p>A page the change linked to.</p>');
    served.delete('/doomed');
    const refresh = await runCli(['refresh', '--db', db, '--json']);
    assert.equal(refresh.code, 0, refresh.stderr);
  });

  after(async () => {
    await site.close();
    tmp.cleanup();
  });

  const paths = (lines: Record<string, unknown>[]): string[] => lines.map((p) => new URL(p.url as string).pathname);

  it('pages --changed-since takes an ISO time or a duration ago, and gives each page\'s versions', async () => {
    const iso = jsonLines(await runCli(['pages', '--db', db, '--json', '--changed-since', new Date(crawledAt).toISOString()]));
    assert.deepEqual(paths(iso), ['/wal']);
    assert.equal(iso[0]?.version, 2);
    assert.ok(Date.parse(iso[0]?.lastChangedAt as string) >= crawledAt);
    assert.ok(Date.parse(iso[0]?.firstFetchedAt as string) < crawledAt);
    assert.deepEqual(paths(jsonLines(await runCli(['pages', '--db', db, '--json', '--changed-since', '1h']))), ['/wal']);
    assert.deepEqual(jsonLines(await runCli(['pages', '--db', db, '--json', '--changed-since', new Date(Date.now() + 60_000).toISOString()])), []);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    assert.deepEqual(jsonLines(await runCli(['pages', '--db', db, '--json', '--changed-since', tomorrow])), [], 'a date alone');
  });

  it('stats counts every refresh\'s revisits by outcome', async () => {
    const stats = JSON.parse((await runCli(['stats', '--db', db, '--json'])).stdout) as { allRevisits?: Record<string, number> };
    // The home page, /steady and the seed host's /sitemap.xml (a 404 still) answered the same; /wal changed; /doomed went.
    assert.deepEqual(stats.allRevisits, { notModified: 0, identical: 3, changed: 1, gone: 1, queued: 0 });
    const text = await runCli(['stats', '--db', db]);
    assert.match(text.stdout, /^allRevisits\s+notModified 0, identical 3, changed 1, gone 1, queued 0$/m);
  });

  it('pages --new-since and --gone', async () => {
    assert.deepEqual(paths(jsonLines(await runCli(['pages', '--db', db, '--json', '--new-since', new Date(crawledAt).toISOString()]))), ['/fresh']);
    const gone = jsonLines(await runCli(['pages', '--db', db, '--json', '--gone']));
    assert.deepEqual(paths(gone), ['/doomed']);
    assert.ok(Date.parse(gone[0]?.goneAt as string) >= crawledAt);
    assert.deepEqual(jsonLines(await runCli(['pages', '--db', db, '--json', '--gone', '--changed-since', '1d'])), [], 'every condition holds');
  });

  it('pages prints the versions and the last change or when the page went', async () => {
    const result = await runCli(['pages', '--db', db]);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trim().split('\n');
    const line = (path: string): string[] => (lines.find((l) => l.split('\t')[5] === `${site.origin}${path}`) ?? '').split('\t');
    assert.equal(line('/wal')[2], 'html');
    assert.equal(line('/wal')[3], 'v2');
    assert.match(line('/wal')[4] ?? '', /^changed \d{4}-\d{2}-\d{2}T/);
    assert.equal(line('/steady')[3], 'v1');
    assert.equal(line('/steady')[4], '-');
    assert.match(line('/doomed')[4] ?? '', /^gone \d{4}-/);
  });

  it('search --all-versions finds words only an earlier version held, and says which version', async () => {
    assert.deepEqual(jsonLines(await runCli(['search', '--db', db, '--json', 'every'])), []);
    const hits = jsonLines(await runCli(['search', '--db', db, '--json', '--all-versions', 'every']));
    assert.equal(hits.length, 1);
    assert.equal(hits[0]?.version, 1);
    assert.equal(hits[0]?.latest, false);
    assert.ok(Date.parse(hits[0]?.fetchedAt as string) < crawledAt);
    const text = await runCli(['search', '--db', db, '--all-versions', 'every']);
    assert.match(text.stdout, /in version 1, fetched \d{4}-\d{2}-\d{2}T[^ ]+ \(the page has changed since\)/);
    const latest = jsonLines(await runCli(['search', '--db', db, '--json', 'each']));
    assert.equal(latest[0]?.version, 2);
    assert.equal(latest[0]?.latest, true);
  });

  it('refuses a --changed-since that is neither a time nor a duration', async () => {
    for (const when of ['yesterday', '2026-13-45', '7 days']) {
      const result = await runCli(['pages', '--db', db, '--changed-since', when]);
      assertOneLineError(result, when, 2);
      assert.match(result.stderr, /--changed-since must be an ISO date or time/);
    }
  });
});
