/**
 * The engine against bad input: every case runs a real crawl on a loopback site and checks
 * that (a) the crawl ends by itself, (b) the hostile URL ends in a recorded state with a
 * specific reason, and (c) the ordinary page linked from the same seed was still fetched.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Db } from '../../crawler/store/database.ts';
import { UrlState, URL_STATE_NAMES, type UrlStateValue } from '../../crawler/store/url-state.ts';
import { urlRecord } from '../support/crawl-harness.ts';
import {
  bytes,
  crawlHostileSite,
  endlessBody,
  gzipBomb,
  hugeHeaders,
  infiniteCalendar,
  manyLinks,
  neverAnswer,
  ORDINARY_PATH,
  ORDINARY_TITLE,
  recordConnectionAttempts,
  redirect,
  resetConnection,
  sessionExplosion,
  statusOnly,
  trickle,
  type HostileCrawl,
} from '../support/hostile-pages.ts';

interface PageRow {
  seq: number;
  status: number;
  note: string | null;
  title: string | null;
  text: string | null;
  charset: string | null;
  bodyIsNull: number;
  bodyBytes: number;
  wireBytes: number;
  redirectTo: number | null;
}

function pageRow(db: Db, url: string): PageRow | undefined {
  return db
    .prepare(
      `SELECT p.seq, p.status, p.note, p.title, p.text, p.charset, p.body IS NULL AS bodyIsNull, p.body_bytes AS bodyBytes,
              p.wire_bytes AS wireBytes, p.redirect_to AS redirectTo
       FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?`,
    )
    .get(url) as PageRow | undefined;
}

function urlId(db: Db, url: string): number | undefined {
  return db.prepare('SELECT id FROM urls WHERE url = ?').pluck().get(url) as number | undefined;
}

function stateName(state: number | undefined): string {
  return state === undefined ? 'missing' : URL_STATE_NAMES[state as UrlStateValue];
}

/** (a) the crawl ended by itself and (c) the ordinary page was fetched and stored, once. */
function assertCrawlWentOn(crawl: HostileCrawl): void {
  assert.ok(crawl.run.outcome === 'exhausted' || crawl.run.outcome === 'budget', `outcome ${crawl.run.outcome}`);
  const ordinary = pageRow(crawl.run.db, crawl.url(ORDINARY_PATH));
  assert.ok(ordinary !== undefined, 'the ordinary page has a pages row');
  assert.equal(ordinary.status, 200);
  assert.equal(ordinary.title, ORDINARY_TITLE);
  assert.equal(crawl.site.count(ORDINARY_PATH), 1);
  const inflight = crawl.run.db.prepare(`SELECT count(*) FROM urls WHERE state = ${UrlState.inflight}`).pluck().get() as number;
  assert.equal(inflight, 0, 'nothing left in flight');
}

/** (b) for a URL that could not be fetched: its state and reason, and no pages row. */
function assertUrlEnded(crawl: HostileCrawl, path: string, state: UrlStateValue, reason: string): void {
  const record = urlRecord(crawl.run.db, crawl.url(path));
  assert.ok(record !== undefined, `${path} was recorded`);
  assert.equal(stateName(record.state), URL_STATE_NAMES[state], `state of ${path} (reason ${String(record.reason)})`);
  assert.equal(record.reason, reason, `reason of ${path}`);
}

describe('slow and endless responses', () => {
  it('slow headers: times out, retries, then fails with timeout:headers', async () => {
    const maxRetries = 1;
    await crawlHostileSite(
      { routes: { '/slow-headers': neverAnswer() }, links: ['/slow-headers'], overrides: { headersTimeoutMs: 300, maxRetries } },
      (crawl) => {
        assertCrawlWentOn(crawl);
        assertUrlEnded(crawl, '/slow-headers', UrlState.failed, 'timeout:headers');
        assert.equal(crawl.site.count('/slow-headers'), maxRetries + 1);
        assert.equal(pageRow(crawl.run.db, crawl.url('/slow-headers')), undefined);
      },
    );
  });

  it('slowloris body (a byte every 300 ms): cut by the total timeout', async () => {
    const started = Date.now();
    await crawlHostileSite(
      {
        routes: { '/slowloris': trickle(300) },
        links: ['/slowloris'],
        // The idle timeout never trips (a byte arrives every 300 ms): only the total bound can end it.
        overrides: { bodyIdleTimeoutMs: 1000, totalTimeoutMs: 800, maxRetries: 1 },
      },
      (crawl) => {
        assertCrawlWentOn(crawl);
        assertUrlEnded(crawl, '/slowloris', UrlState.failed, 'timeout:total');
        assert.equal(crawl.site.count('/slowloris'), 2);
      },
    );
    assert.ok(Date.now() - started < 6000, 'two attempts of 800 ms, not an endless wait');
  });

  it('endless fast body: cut at maxBodyBytes with too-large:body, not retried', async () => {
    await crawlHostileSite(
      { routes: { '/endless': endlessBody() }, links: ['/endless'], overrides: { maxBodyBytes: 64 * 1024 } },
      (crawl) => {
        assertCrawlWentOn(crawl);
        assertUrlEnded(crawl, '/endless', UrlState.failed, 'too-large:body');
        assert.equal(crawl.site.count('/endless'), 1);
      },
    );
  });

  it('gzip bomb: stopped at maxDecodedBytes with too-large:decoded', async () => {
    await crawlHostileSite(
      { routes: { '/bomb': gzipBomb(8 * 1024 * 1024) }, links: ['/bomb'], overrides: { maxDecodedBytes: 64 * 1024 } },
      (crawl) => {
        assertCrawlWentOn(crawl);
        assertUrlEnded(crawl, '/bomb', UrlState.failed, 'too-large:decoded');
        assert.equal(crawl.site.count('/bomb'), 1);
      },
    );
  });
});

describe('redirects', () => {
  it('a redirect loop A → B → A fetches each URL once and ends', async () => {
    await crawlHostileSite(
      { routes: { '/loop-a': redirect('/loop-b'), '/loop-b': redirect('/loop-a') }, links: ['/loop-a'] },
      (crawl) => {
        assertCrawlWentOn(crawl);
        const db = crawl.run.db;
        const a = pageRow(db, crawl.url('/loop-a'));
        const b = pageRow(db, crawl.url('/loop-b'));
        assert.equal(a?.status, 302);
        assert.equal(b?.status, 302);
        assert.equal(a?.redirectTo, urlId(db, crawl.url('/loop-b')));
        assert.equal(b?.redirectTo, urlId(db, crawl.url('/loop-a')), 'B points back at the already-seen A');
        assert.equal(crawl.site.count('/loop-a'), 1);
        assert.equal(crawl.site.count('/loop-b'), 1);
        assert.equal(urlRecord(db, crawl.url('/loop-a'))?.state, UrlState.fetched);
      },
    );
  });

  it('a 7-hop redirect chain is followed for 5 hops; the 6th target is recorded redirect:too-many', async () => {
    const routes: Record<string, ReturnType<typeof redirect>> = {};
    for (let i = 0; i < 7; i++) routes[`/chain/${i}`] = redirect(`/chain/${i + 1}`);
    await crawlHostileSite(
      { routes: { ...routes, '/chain/7': bytes('text/html', Buffer.from('<title>End of chain</title>')) }, links: ['/chain/0'] },
      (crawl) => {
        assertCrawlWentOn(crawl);
        for (let i = 0; i <= 5; i++) {
          assert.equal(crawl.site.count(`/chain/${i}`), 1, `/chain/${i} fetched once`);
          assert.equal(pageRow(crawl.run.db, crawl.url(`/chain/${i}`))?.status, 302);
        }
        assertUrlEnded(crawl, '/chain/6', UrlState.skipped, 'redirect:too-many');
        assert.equal(crawl.site.count('/chain/6'), 0);
        assert.equal(crawl.site.count('/chain/7'), 0);
        assert.equal(urlRecord(crawl.run.db, crawl.url('/chain/7')), undefined, 'the chain was not followed past the limit');
      },
    );
  });

  it('a redirect to ftp:// is recorded on the source as redirect:invalid-target', async () => {
    await crawlHostileSite(
      { routes: { '/to-ftp': redirect('ftp://127.0.0.1/pub/file.txt') }, links: ['/to-ftp'] },
      (crawl) => {
        assertCrawlWentOn(crawl);
        const row = pageRow(crawl.run.db, crawl.url('/to-ftp'));
        assert.equal(row?.status, 302);
        assert.equal(row?.note, 'redirect:invalid-target');
        assert.equal(row?.redirectTo, null);
        const ftp = crawl.run.db.prepare("SELECT count(*) FROM urls WHERE url LIKE 'ftp:%'").pluck().get() as number;
        assert.equal(ftp, 0, 'no ftp URL enters the frontier');
      },
    );
  });

  it('a redirect from http to https on a port that speaks plain HTTP: the target ends with a recorded reason', async () => {
    let httpsTarget = '';
    await crawlHostileSite(
      {
        routes: {
          // The Location is filled in per request: the port is only known once the site listens.
          '/to-https': (req, res) => {
            httpsTarget = `https://${req.headers.host ?? ''}/secure`;
            redirect(httpsTarget)(req, res);
          },
        },
        links: ['/to-https'],
      },
      (crawl) => {
        assertCrawlWentOn(crawl);
        const db = crawl.run.db;
        assert.equal(pageRow(db, crawl.url('/to-https'))?.redirectTo, urlId(db, httpsTarget));
        const target = urlRecord(db, httpsTarget);
        assert.ok(target !== undefined, 'the https target was admitted');
        // The TLS handshake fails already on robots.txt, which RFC 9309 reads as unreachable.
        assert.equal(stateName(target.state), 'robots-blocked');
        assert.equal(target.reason, 'robots:unavailable:tls');
        assert.equal(pageRow(db, httpsTarget), undefined);
        const robotsStatus = db.prepare('SELECT robots_status FROM hosts WHERE origin = ?').pluck().get(new URL(httpsTarget).origin);
        assert.equal(robotsStatus, -1, 'robots.txt recorded as unreachable');
        assert.equal(crawl.site.count('/secure'), 0);
      },
    );
  });

  it('a redirect to another loopback address is refused by the SSRF guard before connecting', async () => {
    const connections = recordConnectionAttempts();
    let privateTarget = '';
    let target: ReturnType<typeof urlRecord>;
    try {
      await crawlHostileSite(
        {
          routes: {
            '/to-private': (req, res) => {
              const port = (req.headers.host ?? '').split(':')[1] ?? '';
              privateTarget = `http://127.0.0.2:${port}/x`;
              redirect(privateTarget)(req, res);
            },
          },
          links: ['/to-private'],
          overrides: { scope: 'any', robotsMaxAttempts: 2 },
        },
        (crawl) => {
          assertCrawlWentOn(crawl);
          const db = crawl.run.db;
          assert.equal(pageRow(db, crawl.url('/to-private'))?.redirectTo, urlId(db, privateTarget));
          assert.equal(crawl.site.count('/x'), 0);
          assert.equal(pageRow(db, privateTarget), undefined);
          target = urlRecord(db, privateTarget);
        },
      );
    } finally {
      connections.stop();
    }
    assert.ok(connections.attempts.length > 0, 'the recorder saw the crawl connect to the seed host');
    const toPrivate = connections.attempts.filter((a) => a.startsWith('127.0.0.2:'));
    assert.deepEqual(toPrivate, [], 'no TCP connection was attempted to 127.0.0.2');
    assert.ok(target !== undefined, 'the redirect target was admitted (scope any)');
    assert.equal(target.reason, 'ssrf:blocked', `state ${stateName(target.state)}`);
    assert.equal(stateName(target.state), 'failed');
  });
});

describe('huge pages and headers', () => {
  it('a page with 10,000 links is stored with all its links, and the budget still ends the crawl', async () => {
    const maxPages = 5;
    await crawlHostileSite(
      { routes: { '/many': manyLinks(10_000) }, links: ['/many'], overrides: { maxPages } },
      (crawl) => {
        assertCrawlWentOn(crawl);
        assert.equal(crawl.run.outcome, 'budget');
        const db = crawl.run.db;
        const row = pageRow(db, crawl.url('/many'));
        assert.equal(row?.status, 200);
        assert.equal(row?.note, null, 'no links dropped');
        const links = db.prepare('SELECT count(*) FROM links WHERE src_seq = ?').pluck().get(row?.seq) as number;
        assert.equal(links, 10_000);
        const known = db.prepare("SELECT count(*) FROM urls WHERE url LIKE ?").pluck().get(`${crawl.site.origin}/many/%`) as number;
        assert.equal(known, 10_000);
        assert.equal(db.prepare('SELECT count(*) FROM pages').pluck().get(), maxPages);
      },
    );
  });

  it('~100 KiB of response headers: failed with too-large:headers, not retried', async () => {
    await crawlHostileSite(
      { routes: { '/huge-headers': hugeHeaders(100 * 1024) }, links: ['/huge-headers'] },
      (crawl) => {
        assertCrawlWentOn(crawl);
        assertUrlEnded(crawl, '/huge-headers', UrlState.failed, 'too-large:headers');
        assert.equal(crawl.site.count('/huge-headers'), 1);
      },
    );
  });
});

describe('malformed and mislabelled HTML', () => {
  const truncated = Buffer.from('<!doctype html><html><head><title>Truncated page</title></head><body><p>Cut off right in the middle <a href="/ordinary" cla');
  const malformed = Buffer.from('<html><title>Broken <b>nesting</title><body><p>Unclosed <div><span>tags everywhere</p></div></span><table><td>cell</tr></li>&bogus; &#xZZ; <<>>');
  const invalidUtf8 = Buffer.concat([Buffer.from('<title>Invalid bytes</title><p>before '), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xe2, 0x82]), Buffer.from(' after</p>')]);
  const cp1252 = Buffer.concat([Buffer.from('<title>Caf'), Buffer.from([0xe9]), Buffer.from('</title><p>cr'), Buffer.from([0xe8]), Buffer.from('me br'), Buffer.from([0xfb]), Buffer.from('l'), Buffer.from([0xe9, 0x93]), Buffer.from('quoted</p>')]);
  const utf8 = Buffer.from('<title>Café</title><p>crème brûlée</p>', 'utf8');

  it('stores each page with a title and text, decoded by its label', async () => {
    await crawlHostileSite(
      {
        routes: {
          '/truncated': bytes('text/html; charset=utf-8', truncated),
          '/malformed': bytes('text/html; charset=utf-8', malformed),
          '/invalid-utf8': bytes('text/html; charset=utf-8', invalidUtf8),
          '/cp1252-labelled-utf8': bytes('text/html; charset=utf-8', cp1252),
          '/utf8-labelled-latin1': bytes('text/html; charset=iso-8859-1', utf8),
        },
        links: ['/truncated', '/malformed', '/invalid-utf8', '/cp1252-labelled-utf8', '/utf8-labelled-latin1'],
      },
      (crawl) => {
        assertCrawlWentOn(crawl);
        const db = crawl.run.db;
        const page = (path: string): PageRow => {
          const row = pageRow(db, crawl.url(path));
          assert.ok(row !== undefined, `${path} stored`);
          assert.equal(row.status, 200);
          assert.equal(urlRecord(db, crawl.url(path))?.state, UrlState.fetched);
          assert.equal(row.bodyIsNull, 0, `${path} body kept`);
          return row;
        };
        const cut = page('/truncated');
        assert.equal(cut.title, 'Truncated page');
        assert.match(cut.text ?? '', /Cut off right in the middle/);

        const broken = page('/malformed');
        assert.match(broken.title ?? '', /^Broken/);
        assert.match(broken.text ?? '', /tags everywhere/);
        assert.match(broken.text ?? '', /cell/);

        const invalid = page('/invalid-utf8');
        assert.equal(invalid.title, 'Invalid bytes');
        assert.equal(invalid.charset, 'utf-8');
        assert.match(invalid.text ?? '', /before \uFFFD.* after/);

        // The label is trusted: lone windows-1252 bytes in a UTF-8 page become U+FFFD.
        const latinBytes = page('/cp1252-labelled-utf8');
        assert.equal(latinBytes.charset, 'utf-8');
        assert.equal(latinBytes.title, 'Caf\uFFFD');
        assert.match(latinBytes.text ?? '', /cr\uFFFDme/);

        // And UTF-8 bytes under an iso-8859-1 label read as windows-1252 mojibake.
        const utf8Bytes = page('/utf8-labelled-latin1');
        assert.equal(utf8Bytes.charset, 'windows-1252');
        assert.equal(utf8Bytes.title, 'CafÃ©');
        assert.match(utf8Bytes.text ?? '', /crÃ¨me/);

        const indexed = db.prepare("SELECT count(*) FROM pages_fts WHERE pages_fts MATCH 'truncated OR broken OR invalid'").pluck().get() as number;
        assert.equal(indexed, 3, 'the hostile pages are in the full-text index');
      },
    );
  });
});

describe('connection resets and error statuses', () => {
  it('a path whose connection is always reset: retried maxRetries times, then connection-reset', async () => {
    const maxRetries = 2;
    await crawlHostileSite(
      { routes: { '/reset': resetConnection() }, links: ['/reset'], overrides: { maxRetries } },
      (crawl) => {
        assertCrawlWentOn(crawl);
        assertUrlEnded(crawl, '/reset', UrlState.failed, 'connection-reset');
        assert.equal(crawl.site.count('/reset'), maxRetries + 1);
        const attempts = crawl.run.db.prepare('SELECT attempts FROM urls WHERE url = ?').pluck().get(crawl.url('/reset'));
        assert.equal(attempts, maxRetries);
      },
    );
  });

  it('503 and 429: retried maxRetries times, then failed with http:<status>', async () => {
    const maxRetries = 2;
    await crawlHostileSite(
      { routes: { '/unavailable': statusOnly(503), '/slow-down': statusOnly(429) }, links: ['/unavailable', '/slow-down'], overrides: { maxRetries } },
      (crawl) => {
        assertCrawlWentOn(crawl);
        for (const [path, status] of [['/unavailable', 503], ['/slow-down', 429]] as const) {
          const record = urlRecord(crawl.run.db, crawl.url(path));
          assert.equal(stateName(record?.state), 'failed', path);
          assert.equal(record?.reason, `http:${status}`);
          assert.equal(crawl.site.count(path), maxRetries + 1, `${path} requested ${maxRetries + 1} times`);
          assert.equal(pageRow(crawl.run.db, crawl.url(path))?.status, status, 'the last response is stored');
        }
      },
    );
  });
});

describe('crawler traps', () => {
  it('an infinite calendar is cut by the trap heuristics', async () => {
    const now = new Date();
    const start = `/calendar/${now.getUTCFullYear()}/${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    // Dates up to 2 years ahead pass the calendar rule: at most the rest of this year and two more.
    const maxCalendarPages = 36;
    await crawlHostileSite(
      // Depth and budget are set high so that only the trap heuristics can stop the walk.
      { routes: {}, fallback: infiniteCalendar(), links: [start], overrides: { maxDepth: 1000, maxPages: 1000 } },
      (crawl) => {
        assertCrawlWentOn(crawl);
        assert.equal(crawl.run.outcome, 'exhausted');
        const calendarRequests = crawl.site.requests.filter((p) => p.startsWith('/calendar/')).length;
        assert.ok(calendarRequests >= 1 && calendarRequests <= maxCalendarPages, `${calendarRequests} calendar pages fetched`);
        const traps = crawl.run.db.prepare(`SELECT url, reason FROM urls WHERE state = ${UrlState.skipped}`).all() as { url: string; reason: string }[];
        assert.equal(traps.length, 1, 'one next-month link was cut');
        assert.match(traps[0]?.reason ?? '', /^trap:/);
        assert.match(traps[0]?.url ?? '', /\/calendar\/\d{4}\/\d{2}$/);
        assert.equal(crawl.site.count(new URL(traps[0]?.url ?? '').pathname), 0, 'the trap URL was never requested');
      },
    );
  });

  it('session-id URL explosions (;jsessionid= and ?sid=) are cut as trap:session-id', async () => {
    await crawlHostileSite(
      { routes: { '/session-path': sessionExplosion(), '/session-query': sessionExplosion() }, links: ['/session-path', '/session-query'] },
      (crawl) => {
        assertCrawlWentOn(crawl);
        assert.equal(crawl.run.outcome, 'exhausted');
        const sessionRequests = crawl.site.requests.filter((p) => p.startsWith('/session')).length;
        assert.equal(sessionRequests, 2, 'only the two entry pages were fetched');
        const rows = crawl.run.db.prepare(`SELECT url, reason FROM urls WHERE state = ${UrlState.skipped} ORDER BY url`).all() as { url: string; reason: string }[];
        assert.equal(rows.length, 2);
        for (const row of rows) assert.equal(row.reason, 'trap:session-id', row.url);
        assert.match(rows[0]?.url ?? '', /\/session-path;jsessionid=[0-9a-f]{32}$/);
        assert.match(rows[1]?.url ?? '', /\/session-query\?sid=[0-9a-f]{32}$/);
      },
    );
  });
});

describe('content types that lie', () => {
  it('PNG bytes served as text/html: stored with a content-type-mismatch note', async () => {
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(4000, 7)]);
    await crawlHostileSite(
      { routes: { '/fake-html': bytes('text/html', png) }, links: ['/fake-html'] },
      (crawl) => {
        assertCrawlWentOn(crawl);
        const row = pageRow(crawl.run.db, crawl.url('/fake-html'));
        assert.equal(row?.status, 200);
        assert.match(row?.note ?? '', /^content-type-mismatch/);
        assert.equal(row?.title, null);
        assert.equal(urlRecord(crawl.run.db, crawl.url('/fake-html'))?.state, UrlState.fetched);
      },
    );
  });

  it('an HTML page served as image/png: recorded not-html:image/png, body not downloaded', async () => {
    const page = Buffer.from(`<!doctype html><title>Really HTML</title><p>${'words '.repeat(40_000)}</p>`);
    await crawlHostileSite(
      { routes: { '/fake-image': bytes('image/png', page) }, links: ['/fake-image'] },
      (crawl) => {
        assertCrawlWentOn(crawl);
        const row = pageRow(crawl.run.db, crawl.url('/fake-image'));
        assert.equal(row?.status, 200);
        assert.equal(row?.note, 'not-html:image/png');
        assert.equal(row?.bodyIsNull, 1);
        assert.equal(row?.bodyBytes, 0);
        assert.ok((row?.wireBytes ?? Infinity) < page.length, `only ${row?.wireBytes} of ${page.length} bytes read`);
        assert.equal(row?.title, null);
      },
    );
  });
});
