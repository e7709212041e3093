import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verifyWacz } from '../../crawler/export/wacz/verify.ts';
import { startServer, type RunningServer } from '../../crawler/serve/server.ts';
import { createServeStoredPages } from '../../crawler/serve/stored-pages.ts';
import type { CollectionHost, CrawlStatus, PageVersions, SearchResult, ServiceEvent, VersionDiff } from '../../crawler/protocol/api.ts';
import { ForagerService } from '../../crawler/service/service.ts';
import { loadSettings } from '../../crawler/store/settings-store.ts';
import { sessionCookieName, type ApiReply } from '../../crawler/protocol/wire.ts';
import { tempDir } from '../support/crawl-harness.ts';
import { startTestSite, type TestSite } from '../support/test-site.ts';
import { TOPIC_QUERY, topicSite } from '../support/topic-site.ts';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function raw(port: number, options: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: { host: `127.0.0.1:${port}`, ...options.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * An API call as the UI's client makes it (POST /api/<method> with the session cookie and the
 * app's origin); `value` asserts it succeeded and gives its value. `session` is read at each
 * call: the server starts in a before() hook.
 */
function apiCalls(session: () => { server: RunningServer; cookie: string }) {
  const call = async (method: string, input: unknown): Promise<ApiReply> => {
    const { server, cookie } = session();
    const res = await raw(server.port, {
      method: 'POST',
      path: `${server.appRoot}api/${method}`,
      headers: { cookie, 'content-type': 'application/json', origin: `http://127.0.0.1:${server.port}` },
      body: JSON.stringify(input),
    });
    return JSON.parse(res.body) as ApiReply;
  };
  const value = async <T>(method: string, input: unknown): Promise<T> => {
    const reply = await call(method, input);
    assert.equal(reply.ok, true, JSON.stringify(reply));
    return (reply as { value: T }).value;
  };
  return { call, value };
}

describe('forager serve: the HTTP transport', () => {
  let site: TestSite;
  let canary: TestSite;
  let service: ForagerService;
  let server: RunningServer;
  let cookie: string;
  const dir = tempDir('forager-serve-');

  const { call, value } = apiCalls(() => ({ server, cookie }));

  before(async () => {
    canary = await startTestSite({});
    site = await startTestSite({}, topicSite(canary.origin.replace('127.0.0.1', 'localhost')));
    service = new ForagerService({ dir: dir.dir, statusIntervalMs: 100 });
    server = await startServer({ service, storedPages: createServeStoredPages(service), rendererDir: dir.dir });
    const start = await raw(server.port, { path: `/?token=${server.token}` });
    assert.equal(start.status, 303);
    assert.equal(start.headers.location, server.appRoot);
    const setCookie = String(start.headers['set-cookie']);
    assert.match(setCookie, /HttpOnly/);
    assert.match(setCookie, /SameSite=Strict/);
    assert.match(setCookie, new RegExp(`Path=${server.appRoot}(;|$)`), 'the cookie goes only to the app\'s secret path, so no other port receives it');
    cookie = setCookie.split(';')[0] as string;
    assert.equal(cookie, `${sessionCookieName(server.port)}=${server.token}`);
  });

  after(async () => {
    await service.close();
    await server.close();
    await site.close();
    await canary.close();
    dir.cleanup();
  });

  it('refuses requests without the session, from other hosts, other origins and cross-site fetches', async () => {
    assert.equal((await raw(server.port, { path: `${server.appRoot}api/info`, method: 'POST' })).status, 401);
    assert.equal((await raw(server.port, { path: '/', headers: { cookie, host: `evil.example:${server.port}` } })).status, 421);
    assert.equal((await raw(server.port, { path: '/', headers: { cookie, host: '127.0.0.1:1' } })).status, 421);
    const foreign = await raw(server.port, { method: 'POST', path: `${server.appRoot}api/info`, headers: { cookie, origin: 'http://evil.example', 'content-type': 'application/json' }, body: '{}' });
    assert.equal(foreign.status, 403);
    const crossSite = await raw(server.port, { method: 'POST', path: `${server.appRoot}api/info`, headers: { cookie, 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' }, body: '{}' });
    assert.equal(crossSite.status, 403);
    assert.equal((await raw(server.port, { path: '/?token=not-the-token' })).status, 403);
    assert.equal((await raw(server.port, { path: `${server.appRoot}api/info`, method: 'POST', headers: { cookie: `${sessionCookieName(server.port)}=wrong` } })).status, 401);
    const bearer = await raw(server.port, { method: 'POST', path: `${server.appRoot}api/info`, headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(bearer.status, 200);
    const outsideRoot = await raw(server.port, { method: 'POST', path: '/api/info', headers: { cookie, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(outsideRoot.status, 401, 'the API answers only under the app root');
    const otherRoot = await raw(server.port, { method: 'POST', path: '/s/guessed-root/api/info', headers: { cookie, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(otherRoot.status, 401);
  });

  it('tells the browser not to prefetch DNS, on refusals and answers alike', async () => {
    const refused = await raw(server.port, { path: `${server.appRoot}api/info`, method: 'POST' });
    const answered = await raw(server.port, { method: 'POST', path: `${server.appRoot}api/info`, headers: { cookie, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(answered.status, 200);
    for (const response of [refused, answered]) assert.equal(response.headers['x-dns-prefetch-control'], 'off');
  });

  it('listens on 127.0.0.1 only', () => {
    const address = server.server.address();
    assert.ok(address !== null && typeof address === 'object');
    assert.equal(address.address, '127.0.0.1');
  });

  it('answers malformed calls with clear errors', async () => {
    const notJson = await raw(server.port, { method: 'POST', path: `${server.appRoot}api/info`, headers: { cookie, 'content-type': 'application/json' }, body: '{not json' });
    assert.equal(notJson.status, 400);
    assert.equal((JSON.parse(notJson.body) as ApiReply).ok, false);
    const unknown = await call('dropTables', {});
    assert.equal(unknown.ok, false);
    assert.equal(!unknown.ok && unknown.error.code, 'UNKNOWN_METHOD');
    const extraKey = await call('listPages', { collection: 'x', sql: 'DROP TABLE pages' });
    assert.equal(!extraKey.ok && extraKey.error.code, 'INVALID_INPUT');
    const missing = await call('crawlStatus', { collection: 'no-such-collection' });
    assert.equal(!missing.ok && missing.error.code, 'COLLECTION');
    const badSeed = await call('createCollection', { query: TOPIC_QUERY, seeds: ['ftp://example.org/'] });
    assert.equal(badSeed.ok, false);
    assert.match(!badSeed.ok ? badSeed.error.message : '', /seed/);
    assert.deepEqual(await value('listCollections', {}), [], 'a refused collection leaves no file behind');
  });

  it('keeps every setting the New crawl form sends, those of the advanced settings too', async () => {
    const created = await value<{ id: string }>('createCollection', {
      name: 'form settings', query: 'garden tools', seeds: ['http://garden.example/'], start: false,
      maxDepth: 4, scope: 'domains', render: 'never', spend: 'time', revisitAfter: '7d', allowPrivate: true,
    });
    const stored = loadSettings(service.reader(created.id));
    assert.deepEqual(
      [stored?.maxDepth, stored?.scope, stored?.render, stored?.spend, stored?.revisitAfter, stored?.allowPrivate],
      [4, 'domains', 'never', 'time', '7d', true],
    );
    await value('deleteCollection', { collection: created.id });
  });

  it('creates a collection, crawls it with live events, and serves its library, labels and exports', async () => {
    const events: ServiceEvent[] = [];
    service.on('event', (e) => events.push(e));
    const created = await value<{ id: string }>('createCollection', {
      query: TOPIC_QUERY, seeds: [`${site.origin}/`], maxPages: 40, delayMs: 0, allowPrivate: true, concurrency: 2,
    });
    assert.equal(created.id, 'write-ahead-logging-and-checkpoints');
    const collection = created.id;
    let status = await value<CrawlStatus>('crawlStatus', { collection });
    for (let i = 0; i < 200 && status.state !== 'idle'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      status = await value<CrawlStatus>('crawlStatus', { collection });
    }
    assert.equal(status.state, 'idle');
    assert.equal(status.lastOutcome, 'budget');
    assert.equal(status.figures.fetched, 40);
    assert.ok(status.figures.hot > 0, 'the topical section yields hot pages');
    assert.ok(status.series.length > 1);
    assert.ok(events.some((e) => e.type === 'status' && e.status.state === 'running'), 'statuses were pushed while crawling');

    const list = await value<{ total: number; pages: { seq: number; url: string; relevance: number | null; hot: boolean }[] }>('listPages', { collection, sort: 'relevance', limit: 10 });
    assert.equal(list.total, 40);
    const relevances = list.pages.map((p) => p.relevance ?? -1);
    assert.deepEqual([...relevances].sort((a, b) => b - a), relevances, 'sorted by relevance');
    const hotOnly = await value<{ total: number }>('listPages', { collection, hotOnly: true });
    assert.equal(hotOnly.total, status.figures.hot);

    const hits = await value<{ snippet: string; url: string }[]>('searchPages', { collection, text: 'checkpoint' });
    assert.ok(hits.length > 0);
    assert.match(hits[0]?.snippet ?? '', /\uE000[^\uE001]+\uE001/);

    const target = list.pages.find((p) => !p.hot) ?? list.pages[0];
    assert.ok(target !== undefined);
    const labelled = await value<{ label: string; hot: boolean }>('labelPage', { collection, seq: target.seq, label: 'relevant' });
    assert.equal(labelled.label, 'relevant');
    assert.equal(labelled.hot, true);

    const exported = await value<{ exportId: string; pages: number }>('exportCollection', { collection, format: 'jsonl', filter: { labelledRelevant: true } });
    assert.equal(exported.pages, 1);
    const file = await raw(server.port, { path: `${server.appRoot}api/exports/${exported.exportId}`, headers: { cookie } });
    assert.equal(file.status, 200);
    assert.match(String(file.headers['content-disposition']), /attachment/);
    const record = JSON.parse(file.body.trim()) as { url: string; labels: string[] };
    assert.equal(record.url, target.url);
    assert.deepEqual(record.labels, ['relevant']);
    const scripted = list.pages.length > 0 ? await value<{ total: number; pages: { seq: number; url: string }[] }>('listPages', { collection, filter: '/db/wal-0', limit: 5 }) : undefined;
    const walSeq = scripted?.pages.find((p) => p.url.endsWith('/db/wal-0'))?.seq;
    assert.ok(walSeq !== undefined);
    const detail = await value<{ viewPath: string | null }>('getPage', { collection, seq: walSeq });
    assert.ok(detail.viewPath !== null);
    const stored = await raw(server.port, { path: `${server.appRoot}stored/${detail.viewPath}`, headers: { cookie } });
    assert.equal(stored.status, 200);
    const csp = String(stored.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /sandbox/);
    assert.doesNotMatch(csp, /allow-scripts/);
    assert.doesNotMatch(stored.body, /<script/i);
    assert.ok(!stored.body.includes(`localhost:${new URL(canary.origin).port}`), 'no remote resource of the page survives');
    const keyed = /href="(\/stored\/k\/[^"]+\/[^"/]+\/\d+)"/.exec(stored.body)?.[1];
    assert.ok(keyed !== undefined, 'links to stored pages stay in the viewer');
    // Followed inside the sandboxed frame: cross-site, no cookie, but the path carries the key.
    const followed = await raw(server.port, { path: keyed, headers: { 'sec-fetch-site': 'cross-site' } });
    assert.equal(followed.status, 200);
    const forged = await raw(server.port, { path: keyed.replace(/\/k\/[^/]+\//, '/k/forged-key/'), headers: { 'sec-fetch-site': 'cross-site' } });
    assert.notEqual(forged.status, 200);
    const external = /href="(\/stored\/k\/[^"]+\/external\?url=[^"]*example\.org[^"]*)"/.exec(stored.body)?.[1];
    assert.ok(external !== undefined, 'links out of the collection go through the external-link page');
    const interstitial = await raw(server.port, { path: external.replace(/&amp;/g, '&') });
    assert.equal(interstitial.status, 200);
    assert.match(interstitial.body, /example\.org\/elsewhere/);
    assert.equal(canary.requests.length, 0);

    const wacz = await value<{ exportId: string; pages: number; fileName: string }>('exportCollection', { collection, format: 'wacz', filter: { hotOnly: true } });
    const hotNow = await value<{ total: number }>('listPages', { collection, hotOnly: true });
    assert.equal(wacz.pages, hotNow.total, 'the hot pages, the labelled one among them');
    assert.match(wacz.fileName, /\.wacz$/);
    const download = await new Promise<Buffer>((resolve, reject) => {
      request({ host: '127.0.0.1', port: server.port, path: `${server.appRoot}api/exports/${wacz.exportId}`, headers: { host: `127.0.0.1:${server.port}`, cookie } }, (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => resolve(Buffer.concat(chunks)));
      }).on('error', reject).end();
    });
    const saved = join(dir.dir, 'download.wacz');
    writeFileSync(saved, download);
    const check = await verifyWacz(saved);
    assert.equal(check.ok, true, check.errors.join('; '));
    assert.equal(check.pages, wacz.pages);

    const empty = await call('exportCollection', { collection, format: 'csv', filter: { text: 'nosuchwordanywhere' } });
    assert.equal(!empty.ok && empty.error.code, 'EXPORT');

    // One host's render mode: stored with the collection, refused when the host is not a host name.
    assert.equal((await call('setHostRender', { collection, host: '127.0.0.1', mode: 'always' })).ok, true);
    assert.equal((await call('setHostRender', { collection, host: 'docs.example.org', mode: 'never' })).ok, true);
    assert.equal((await call('setHostRender', { collection, host: 'docs.example.org', mode: null })).ok, true);
    assert.deepEqual(loadSettings(service.reader(collection))?.renderHostModes, ['127.0.0.1=always']);
    const badHost = await call('setHostRender', { collection, host: 'http://x.example/', mode: 'always' });
    assert.equal(!badHost.ok && badHost.error.code, 'INVALID_INPUT');
    const badMode = await call('setHostRender', { collection, host: 'x.example', mode: 'sometimes' });
    assert.equal(!badMode.ok && badMode.error.code, 'INVALID_INPUT');
  });

  it('streams events over Server-Sent Events', async () => {
    const res = await new Promise<RawResponse>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: server.port, path: `${server.appRoot}api/events`, headers: { host: `127.0.0.1:${server.port}`, cookie } }, (r) => {
        let body = '';
        r.on('data', (c: Buffer) => {
          body += c.toString('utf8');
          if (body.includes('"type":"collections"')) {
            req.destroy();
            resolve({ status: r.statusCode ?? 0, headers: r.headers, body });
          }
        });
      });
      req.on('error', reject);
      req.end();
      setTimeout(() => void service.createCollection({ query: 'sourdough bread', seeds: [`${site.origin}/`], start: false }), 50);
    });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /text\/event-stream/);
    assert.match(res.body, /data: \{"type":"collections"/);
  });
});

describe('forager serve: page versions, refreshes and their views', () => {
  let site: TestSite;
  let service: ForagerService;
  let server: RunningServer;
  let cookie: string;
  let collection = '';
  let crawledAt = 0;
  /** Each page's body as served now; a missing one is a 404. */
  const served = new Map<string, string>([
    ['/', '<a href="/wal">WAL</a> <a href="/steady">steady</a> <a href="/doomed">doomed</a>'],
    ['/wal', '<p onclick="alert(1)">The WAL is flushed at every checkpoint.</p>'],
    ['/steady', '<p>Checkpoint notes that never change.</p>'],
    ['/doomed', '<p>Checkpoint page about to go.</p>'],
  ]);
  const slowPaths = new Set<string>();
  const dir = tempDir('forager-serve-versions-');

  const { call, value } = apiCalls(() => ({ server, cookie }));
  const idle = async (): Promise<CrawlStatus> => {
    let status = await value<CrawlStatus>('crawlStatus', { collection });
    for (let i = 0; i < 400 && status.state !== 'idle'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      status = await value<CrawlStatus>('crawlStatus', { collection });
    }
    assert.equal(status.state, 'idle');
    return status;
  };

  before(async () => {
    site = await startTestSite({}, (req, res) => {
      const path = req.url ?? '/';
      const body = served.get(path);
      const answer = (): void => {
        if (body === undefined) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>${path}</title></head><body>${body}</body></html>`);
      };
      if (slowPaths.has(path)) setTimeout(answer, 400);
      else answer();
    });
    service = new ForagerService({ dir: dir.dir, statusIntervalMs: 50 });
    server = await startServer({ service, storedPages: createServeStoredPages(service), rendererDir: dir.dir });
    const start = await raw(server.port, { path: `/?token=${server.token}` });
    cookie = String(start.headers['set-cookie']).split(';')[0] as string;
    collection = (await value<{ id: string }>('createCollection', {
      query: 'checkpoint', seeds: [`${site.origin}/`], maxPages: 20, delayMs: 0, allowPrivate: true,
    })).id;
    await idle();
    crawledAt = Date.now();
    await new Promise((r) => setTimeout(r, 5));
  });

  after(async () => {
    await service.close();
    await server.close();
    await site.close();
    dir.cleanup();
  });

  it('refreshes a collection: the status says it is refreshing and counts what the revisits found', async () => {
    served.set('/wal', '<p onclick="alert(1)">The WAL is written and flushed at each checkpoint.</p>');
    served.delete('/doomed');
    slowPaths.add('/steady');
    const events: ServiceEvent[] = [];
    const listen = (e: ServiceEvent): void => void events.push(e);
    service.on('event', listen);
    try {
      const started = await value<CrawlStatus>('refreshCollection', { collection });
      assert.notEqual(started.refresh, null);
      assert.equal(started.state, 'running');
      assert.deepEqual(started.refresh?.origins, []);
      assert.ok((started.refresh?.maxFetches ?? 0) >= 4, 'every stored page may be revisited');
      const again = await call('refreshCollection', { collection });
      assert.equal(!again.ok && again.error.code, 'USAGE', 'one run at a time');
      assert.match(!again.ok ? again.error.message : '', /being crawled or refreshed/);
      const ended = await idle();
      assert.equal(ended.lastOutcome, 'exhausted');
      assert.notEqual(ended.refresh, null, 'the last run was a refresh');
      assert.deepEqual(ended.figures.revisits && { changed: ended.figures.revisits.changed, gone: ended.figures.revisits.gone }, { changed: 1, gone: 1 });
      assert.ok((ended.figures.revisits?.identical ?? 0) >= 2, 'the home page and /steady answered the same');
      const pushed = events.filter((e): e is Extract<ServiceEvent, { type: 'status' }> => e.type === 'status' && e.status.collection === collection);
      assert.ok(pushed.some((e) => e.status.state === 'running' && e.status.refresh !== null && e.status.figures.revisits !== undefined), 'pushed statuses showed the refresh and its counts');
    } finally {
      service.off('event', listen);
      slowPaths.clear();
    }
  });

  it('lists pages changed since, new since and gone', async () => {
    const list = async (filter: object): Promise<{ total: number; pages: { url: string; version: number; lastChangedAt: string | null; goneAt: string | null }[] }> =>
      value('listPages', { collection, sort: 'url', ...filter });
    const changed = await list({ changedSince: crawledAt });
    assert.deepEqual(changed.pages.map((p) => p.url), [`${site.origin}/wal`]);
    assert.equal(changed.pages[0]?.version, 2);
    assert.ok(changed.pages[0]?.lastChangedAt !== null);
    assert.equal((await list({ changedSince: Date.now() + 60_000 })).total, 0);
    assert.deepEqual((await list({ gone: true })).pages.map((p) => p.url), [`${site.origin}/doomed`]);
    assert.equal((await list({ newSince: crawledAt })).total, 0, 'the refresh found no new page');
    assert.equal((await list({ newSince: 0 })).total, (await list({})).total);
    const bad = await call('listPages', { collection, changedSince: 'yesterday' });
    assert.equal(!bad.ok && bad.error.code, 'INVALID_INPUT');
  });

  it('gives a page\'s versions with their dates, the diff between two, and shows an earlier one sanitised', async () => {
    const wal = (await value<{ pages: { seq: number; url: string }[] }>('listPages', { collection, filter: '/wal' })).pages[0];
    assert.ok(wal !== undefined);
    const history = await value<PageVersions>('pageVersions', { collection, seq: wal.seq });
    assert.deepEqual(history.versions.map((v) => [v.version, v.latest]), [[2, true], [1, false]]);
    assert.ok(Date.parse(history.versions[1]?.fetchedAt ?? '') < crawledAt && Date.parse(history.versions[0]?.fetchedAt ?? '') > crawledAt);
    assert.deepEqual(history.versions[1]?.revisits.map((r) => r.outcome), ['changed']);
    const oldest = await value<PageVersions>('pageVersions', { collection, seq: wal.seq, order: 'oldest-first' });
    assert.deepEqual(oldest.versions.map((v) => v.version), [1, 2]);
    const detail = await value<{ viewPath: string; checkedAt: string }>('getPage', { collection, seq: wal.seq });
    assert.equal(history.versions[0]?.viewPath, detail.viewPath, 'the latest version is the page itself');
    assert.ok(Date.parse(detail.checkedAt) > crawledAt);

    const earlierPath = history.versions[1]?.viewPath;
    assert.ok(earlierPath !== null && earlierPath !== undefined);
    const earlier = await raw(server.port, { path: `${server.appRoot}stored/${earlierPath}`, headers: { cookie } });
    assert.equal(earlier.status, 200);
    assert.match(earlier.body, /every checkpoint/);
    assert.doesNotMatch(earlier.body, /onclick|alert/i, 'sanitised as the latest version is');
    const csp = String(earlier.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /allow-scripts/);
    const latest = await raw(server.port, { path: `${server.appRoot}stored/${detail.viewPath}`, headers: { cookie } });
    assert.match(latest.body, /each checkpoint/);
    const missing = await raw(server.port, { path: `${server.appRoot}stored/${detail.viewPath}?version=9`, headers: { cookie } });
    assert.equal(missing.status, 404);
    assert.match(missing.body, /no version 9 of page/);
    const nonsense = await raw(server.port, { path: `${server.appRoot}stored/${detail.viewPath}?version=0`, headers: { cookie } });
    assert.equal(nonsense.status, 404);

    const diff = await value<VersionDiff>('versionDiff', { collection, seq: wal.seq, from: 1, to: 2 });
    const parts = diff.blocks.flatMap((b) => (b.kind === 'changed' ? b.parts : []));
    assert.deepEqual(parts.filter((p) => p.op === 'inserted').map((p) => p.text.trim()), ['written and', 'each']);
    assert.deepEqual(parts.filter((p) => p.op === 'deleted').map((p) => p.text.trim()), ['every']);
    assert.equal(diff.title, null);
    const noVersion = await call('versionDiff', { collection, seq: wal.seq, from: 1, to: 5 });
    assert.equal(!noVersion.ok && noVersion.error.code, 'USAGE');
    const zero = await call('versionDiff', { collection, seq: wal.seq, from: 0, to: 2 });
    assert.equal(!zero.ok && zero.error.code, 'INVALID_INPUT');
  });

  it('searches every version on request, saying which version a hit is in', async () => {
    assert.deepEqual(await value('searchPages', { collection, text: 'every' }), []);
    const hits = await value<SearchResult[]>('searchPages', { collection, text: 'every', allVersions: true });
    assert.equal(hits.length, 1);
    assert.equal(hits[0]?.version, 1);
    assert.equal(hits[0]?.latest, false);
    assert.ok(Date.parse(hits[0]?.fetchedAt ?? '') < crawledAt);
    assert.match(hits[0]?.snippet ?? '', /\uE000every\uE001/);
  });

  it('lists the hosts and refreshes one of them', async () => {
    const hosts = await value<CollectionHost[]>('collectionHosts', { collection });
    assert.equal(hosts.length, 1);
    assert.equal(hosts[0]?.origin, site.origin);
    assert.equal(hosts[0]?.changed, 1);
    assert.equal(hosts[0]?.gone, 1);
    const before = site.requests.length;
    const status = await value<CrawlStatus>('refreshCollection', { collection, host: site.origin, maxPages: 2 });
    assert.deepEqual(status.refresh?.origins, [site.origin]);
    assert.equal(status.refresh?.maxFetches, 2);
    await idle();
    const pages = site.requests.slice(before).filter((p) => p !== '/robots.txt');
    assert.equal(pages.length, 2, `a budget of two fetches (${pages.join(', ')})`);
    const unknown = await call('refreshCollection', { collection, host: 'elsewhere.example' });
    assert.equal(!unknown.ok && unknown.error.code, 'USAGE');
    const badHost = await call('refreshCollection', { collection, host: 'two words' });
    assert.equal(!badHost.ok && badHost.error.code, 'INVALID_INPUT');
  });
});
