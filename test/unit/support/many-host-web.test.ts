import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import {
  now,
  pagesRequestedTwice,
  planWeb,
  politenessViolations,
  requestsPerPath,
  spawnManyHostWeb,
  startManyHostWeb,
  type ManyHostWeb,
  type RequestLogEntry,
} from '../../support/many-host-web.ts';

const HOSTS = 20;
const PAGES = 8;

async function get(url: string): Promise<{ status: number; type: string; body: string }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
}

/** Absolute link targets of a page, as a crawler would resolve them. */
function links(pageUrl: string, html: string): string[] {
  return [...html.matchAll(/<a href="([^"]*)"/g)].map((m) => new URL((m[1] as string).replace(/&amp;/g, '&'), pageUrl).href);
}

/** A page's HTML with each origin replaced by its host number: what stays the same across ports. */
function portFree(web: ManyHostWeb, html: string): string {
  return html.replace(/http:\/\/127\.0\.0\.1:\d+/g, (origin) => `host-${web.hostIndex(origin)}`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe('startManyHostWeb', () => {
  let web: ManyHostWeb;
  before(async () => {
    web = await startManyHostWeb({ hosts: HOSTS, pagesPerHost: PAGES, crossLinkShare: 0.3, seed: 7 });
  });
  after(() => web.close());

  test('serves every host on its own loopback port', () => {
    assert.equal(web.origins.length, HOSTS);
    assert.equal(new Set(web.origins).size, HOSTS);
    for (const origin of web.origins) assert.match(origin, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(web.pageUrls().length, HOSTS * PAGES);
    assert.ok(web.seeds.length >= 1 && web.seeds.length <= 3);
    assert.equal(web.seeds[0], `${web.origins[0]}/`);
  });

  test('every page answers 200 with a title, paragraphs and links to pages that exist', async () => {
    const pages = new Set(web.pageUrls());
    let crossHost = 0;
    let sameHost = 0;
    for (const url of web.pageUrls()) {
      const { status, type, body } = await get(url);
      assert.equal(status, 200, url);
      assert.match(type, /^text\/html/);
      assert.match(body, /<title>[^<]+<\/title>/);
      assert.match(body, /<p>[A-Z][a-z]+( [a-z]+)+\./);
      const targets = links(url, body);
      assert.ok(targets.length >= 1, `${url} has no links`);
      for (const target of targets) {
        assert.ok(pages.has(target), `${url} links to ${target}, which is no page`);
        if (new URL(target).origin === new URL(url).origin) sameHost++;
        else crossHost++;
      }
    }
    assert.ok(crossHost > 0 && sameHost > crossHost, `links: ${sameHost} within hosts, ${crossHost} across`);
  });

  test('robots.txt allows all; unknown paths, pages past the last and queries are 404s', async () => {
    const robots = await get(`${web.origins[3]}/robots.txt`);
    assert.equal(robots.status, 200);
    assert.match(robots.body, /^User-agent: \*\nAllow: \/\n$/);
    for (const path of ['/nope', `/p/${PAGES}`, '/p/0', '/p/01', '/?q=1', '/p/1?x', '/p/1/']) {
      assert.equal((await get(`${web.origins[3]}${path}`)).status, 404, path);
    }
    const kinds = web.log.filter((e) => e.origin === web.origins[3]).map((e) => e.kind);
    assert.ok(kinds.includes('robots') && kinds.includes('missing'));
  });

  test('every page is reachable from the seeds (a breadth-first walk over the fetched links)', async () => {
    const seen = new Set<string>(web.seeds);
    const queue = [...web.seeds];
    while (queue.length > 0) {
      const url = queue.shift() as string;
      const { status, body } = await get(url);
      assert.equal(status, 200, url);
      for (const target of links(url, body)) {
        if (!seen.has(target)) {
          seen.add(target);
          queue.push(target);
        }
      }
    }
    assert.deepEqual([...seen].sort(), web.pageUrls().sort());
  });

  test('the log records each request with its origin, path, kind, status and times', async () => {
    const before = now();
    await get(`${web.origins[5]}/p/2`);
    const entry = web.log.at(-1) as RequestLogEntry;
    assert.equal(entry.origin, web.origins[5]);
    assert.equal(entry.path, '/p/2');
    assert.equal(entry.kind, 'page');
    assert.equal(entry.status, 200);
    assert.equal(entry.aborted, false);
    assert.ok(entry.start >= before && entry.end !== null && entry.end >= entry.start && entry.end <= now());
    assert.ok(Math.abs(entry.start - Date.now()) < 5_000, 'the clock is epoch milliseconds');
  });

  test('requestsPerPath and pagesRequestedTwice find a page fetched twice, not robots.txt', async () => {
    const origin = web.origins[9] as string;
    const from = web.log.length; // earlier tests fetched every page once already
    await get(`${origin}/p/4`);
    await get(`${origin}/p/4`);
    await get(`${origin}/robots.txt`);
    await get(`${origin}/robots.txt`);
    await get(`${origin}/p/5`);
    const log = web.log.slice(from);
    const counts = requestsPerPath(log);
    assert.equal(counts.get(`${origin}/p/4`), 2);
    assert.equal(counts.get(`${origin}/p/5`), 1);
    assert.equal(counts.get(`${origin}/robots.txt`), 2);
    assert.deepEqual(pagesRequestedTwice(log), [{ url: `${origin}/p/4`, count: 2 }]);
    // Over the whole log: the walks above fetched every page, so each is there more than once.
    assert.equal(pagesRequestedTwice(web.log).length, HOSTS * PAGES);
  });
});

describe('the web is a function of its seed', () => {
  test('same seed, same pages (ports aside); another seed, other pages', async () => {
    const options = { hosts: 12, pagesPerHost: 6, crossLinkShare: 0.4 };
    const [a, b, c] = await Promise.all([
      startManyHostWeb({ ...options, seed: 3 }),
      startManyHostWeb({ ...options, seed: 3 }),
      startManyHostWeb({ ...options, seed: 4 }),
    ]);
    try {
      assert.notDeepEqual(a.origins, b.origins);
      const pages = async (web: ManyHostWeb): Promise<string[]> =>
        Promise.all(web.pageUrls().map(async (url) => portFree(web, (await get(url)).body)));
      const [pa, pb, pc] = await Promise.all([pages(a), pages(b), pages(c)]);
      assert.deepEqual(pa, pb);
      const differing = pa.filter((html, i) => html !== pc[i]).length;
      assert.ok(differing > pa.length / 2, `only ${differing} of ${pa.length} pages differ between seeds`);
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });

  test('planWeb: the tree and ring links keep every host within log2(hosts) + 1 links of host 0', () => {
    const plan = planWeb({ hosts: 500, pagesPerHost: 10, seed: 1, crossLinkShare: 0 });
    const depth = new Map<string, number>([['0/0', 0]]);
    const queue = [{ host: 0, page: 0 }];
    while (queue.length > 0) {
      const at = queue.shift() as { host: number; page: number };
      const d = depth.get(`${at.host}/${at.page}`) as number;
      for (const next of plan.linksOf(at.host, at.page)) {
        const key = `${next.host}/${next.page}`;
        if (!depth.has(key)) {
          depth.set(key, d + 1);
          queue.push(next);
        }
      }
    }
    assert.equal(depth.size, 500 * 10);
    assert.ok(Math.max(...depth.values()) <= Math.floor(Math.log2(500)) + 1);
  });
});

describe('options', () => {
  test('a Crawl-delay on the share of hosts the seed picks', async () => {
    const web = await startManyHostWeb({ hosts: 30, pagesPerHost: 2, seed: 5, crawlDelay: { seconds: 2, share: 0.5 } });
    try {
      let withDelay = 0;
      for (const origin of web.origins) {
        const robots = (await get(`${origin}/robots.txt`)).body;
        const delay = web.crawlDelaySeconds(origin);
        if (delay === undefined) assert.doesNotMatch(robots, /Crawl-delay/);
        else {
          assert.equal(delay, 2);
          assert.match(robots, /\nCrawl-delay: 2\n/);
          withDelay++;
        }
      }
      assert.ok(withDelay > 5 && withDelay < 25, `${withDelay} of 30 hosts have a Crawl-delay`);
    } finally {
      await web.close();
    }
  });

  test('latencyMs delays every response; close() drops delayed responses and closes kept-alive connections', async () => {
    const web = await startManyHostWeb({ hosts: 2, pagesPerHost: 2, latencyMs: 80 });
    const started = performance.now();
    assert.equal((await get(`${web.seeds[0]}`)).status, 200);
    assert.ok(performance.now() - started >= 75);
    const entry = web.log[0] as RequestLogEntry;
    assert.ok((entry.end as number) - entry.start >= 75);
    const pending = fetch(`${web.origins[1]}/p/1`).then(
      () => 'answered',
      () => 'failed',
    );
    await sleep(10);
    const closing = performance.now();
    await web.close();
    assert.ok(performance.now() - closing < 1_000, 'close() waited for idle connections');
    assert.equal(await pending, 'failed');
  });

  test('a 500-host web starts and closes', async () => {
    const t0 = performance.now();
    const web = await startManyHostWeb({ hosts: 500, pagesPerHost: 10, seed: 1 });
    const t1 = performance.now();
    assert.equal(new Set(web.origins).size, 500);
    assert.equal((await get(`${web.origins[499]}/p/9`)).status, 200);
    await web.close();
    const t2 = performance.now();
    assert.ok(t1 - t0 < 10_000 && t2 - t1 < 10_000, `start ${(t1 - t0).toFixed(0)} ms, close ${(t2 - t1).toFixed(0)} ms`);
  });
});

describe('politenessViolations', () => {
  const entry = (origin: string, start: number, end: number | null, path = '/'): RequestLogEntry => ({ origin, path, method: 'GET', kind: 'page', status: 200, start, end, aborted: false });

  test('finds overlaps, requests during one still in flight, and short gaps; per origin', () => {
    const log = [
      entry('a', 0, 10),
      entry('a', 5, 20, '/p/1'), // overlaps the first
      entry('a', 120, 130, '/p/2'), // 100 ms after /p/1 ended: fine with minGapMs 100
      entry('a', 150, 160, '/p/3'), // 20 ms: too soon
      entry('b', 0, 100), // another origin: its own timeline
      entry('b', 200, null, '/p/1'), // in flight
      entry('b', 250, 260, '/p/2'), // arrived while /p/1 was in flight
    ];
    const found = politenessViolations(log, { minGapMs: 100 });
    assert.deepEqual(
      found.map((v) => [v.kind, v.origin, v.first.path, v.second.path]),
      [
        ['overlap', 'a', '/', '/p/1'],
        ['gap', 'a', '/p/2', '/p/3'],
        ['overlap', 'b', '/p/1', '/p/2'],
      ],
    );
    assert.equal(found[1]?.gapMs, 20);
  });

  test('a request that outlasts the next one still counts against the one after', () => {
    const log = [entry('a', 0, 100), entry('a', 10, 20, '/p/1'), entry('a', 50, 60, '/p/2')];
    const found = politenessViolations(log);
    assert.equal(found.length, 2);
    assert.ok(found.every((v) => v.kind === 'overlap' && v.first.path === '/'));
  });

  test('spaced requests pass; the tolerance is one millisecond unless set; a per-origin gap wins', () => {
    const log = [entry('a', 0, 10), entry('a', 109.5, 120, '/p/1'), entry('b', 0, 10), entry('b', 500, 510, '/p/1')];
    assert.deepEqual(politenessViolations(log, { minGapMs: 100 }), []);
    assert.equal(politenessViolations(log, { minGapMs: 100, toleranceMs: 0 }).length, 1);
    const perOrigin = politenessViolations(log, { minGapMsFor: (origin) => (origin === 'b' ? 1000 : 0) });
    assert.deepEqual(perOrigin.map((v) => v.origin), ['b']);
    assert.deepEqual(politenessViolations(log, { minGapMs: 1000, include: (e) => e.origin === 'a' }).map((v) => v.origin), ['a']);
  });

  test('witnesses real requests: concurrent ones overlap, quick ones break a gap, spaced ones pass', async () => {
    const web = await startManyHostWeb({ hosts: 3, pagesPerHost: 4, latencyMs: 30 });
    try {
      const [overlapOrigin, quickOrigin, spacedOrigin] = web.origins as [string, string, string];
      await Promise.all([get(`${overlapOrigin}/`), get(`${overlapOrigin}/p/1`)]);
      for (const path of ['/', '/p/1', '/p/2']) await get(`${quickOrigin}${path}`);
      for (const path of ['/', '/p/1', '/p/2']) {
        await get(`${spacedOrigin}${path}`);
        await sleep(250);
      }
      // Margins wide enough for a loaded machine: back-to-back requests (30 ms each) stay far under the gap, spaced ones far over it.
      const found = politenessViolations(web.log, { minGapMs: 150 });
      assert.equal(found.filter((v) => v.origin === overlapOrigin && v.kind === 'overlap').length, 1);
      assert.equal(found.filter((v) => v.origin === quickOrigin && v.kind === 'gap').length, 2);
      assert.deepEqual(found.filter((v) => v.origin === spacedOrigin), []);
    } finally {
      await web.close();
    }
  });
});

describe('spawnManyHostWeb (many-host-web-cli.ts)', () => {
  test('runs the web in a child process and hands back its log on stop', async () => {
    const web = await spawnManyHostWeb({ hosts: 6, pagesPerHost: 3, seed: 2, crawlDelay: { seconds: 1, share: 1 } });
    assert.notEqual(web.pid, process.pid);
    assert.equal(web.origins.length, 6);
    assert.equal(web.pageUrls.length, 18);
    assert.equal(Object.keys(web.crawlDelays).length, 6);
    const page = await get(web.pageUrls[4] as string);
    assert.equal(page.status, 200);
    assert.match((await get(`${web.origins[0]}/robots.txt`)).body, /Crawl-delay: 1/);
    const log = await web.stop();
    assert.equal(log.length, 2);
    assert.equal(`${log[0]?.origin}${log[0]?.path}`, web.pageUrls[4]);
    assert.equal(log[0]?.kind, 'page');
    assert.ok(typeof log[0]?.end === 'number');
    await assert.rejects(fetch(web.seeds[0] as string));
  });

  test('a web its parent forgot dies with the parent, even of SIGKILL', async () => {
    const script = `
      import { spawnManyHostWeb } from ${JSON.stringify(new URL('../../support/many-host-web.ts', import.meta.url).href)};
      const web = await spawnManyHostWeb({ hosts: 2, pagesPerHost: 1 });
      process.stdout.write(JSON.stringify({ pid: web.pid, seed: web.seeds[0], dir: web.dir }) + '\\n');
      setInterval(() => {}, 1000);
    `;
    const parent = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      parent.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('\n')) resolve(out);
      });
      parent.once('exit', () => reject(new Error(`the parent exited early: ${out}`)));
    });
    const { pid, seed, dir } = JSON.parse(line) as { pid: number; seed: string; dir: string };
    assert.equal((await get(seed)).status, 200);
    const exited = new Promise((resolve) => parent.once('exit', resolve));
    parent.kill('SIGKILL');
    await exited;
    const deadline = Date.now() + 5_000;
    while (processAlive(pid) && Date.now() < deadline) await sleep(25);
    rmSync(dir, { recursive: true, force: true }); // its parent died before it could
    assert.equal(processAlive(pid), false, 'the web outlived its parent');
  });
});

/** True while `pid` is a process that is not a zombie. */
function processAlive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
