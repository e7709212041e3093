import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { zipEntries } from '../support/zip-entries.ts';
import type { CrawlSettings } from '../../crawler/protocol/settings.ts';
import { openCollection } from '../../crawler/store/database.ts';
import { loadSettings, saveSettings } from '../../crawler/store/settings-store.ts';
import { runCli, spawnCli } from '../support/cli.ts';
import { tempDir } from '../support/crawl-harness.ts';
import { cookiesFile, type LoopbackSite, membersSite, partnerSite, REFRESHED, SESSION, startSite, storedStatuses } from '../support/members-site.ts';

const PROXY_PASSWORD = 'SECRET-PROXY-PASSWORD-c20b';

/** Every file an export wrote, zip entries and gzip members opened (a .warc.gz is several members: gunzip reads them all). */
async function exportedBytes(path: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const add = (name: string, bytes: Buffer): void => void out.set(name, name.endsWith('.gz') ? gunzipSync(bytes) : bytes);
  const walk = async (entry: string): Promise<void> => {
    if (statSync(entry).isDirectory()) for (const child of readdirSync(entry)) await walk(join(entry, child));
    else if (entry.endsWith('.wacz') || entry.endsWith('.zip')) for (const [inner, data] of await zipEntries(entry)) add(`${entry}!${inner}`, data);
    else add(entry, readFileSync(entry));
  };
  await walk(path);
  return out;
}

describe('logged-in sessions (--cookies)', () => {
  const dir = tempDir('forager-cookies-');
  let site: LoopbackSite;
  let partner: LoopbackSite;
  let withCookies = '';

  before(async () => {
    partner = await startSite('127.0.0.2', partnerSite);
    site = await startSite('127.0.0.1', (req, res) => membersSite(req, res, partner.origin));
  });

  after(async () => {
    await site.close();
    await partner.close();
    dir.cleanup();
  });

  const crawlArgs = (db: string, extra: string[] = []): string[] => [
    'crawl', '--db', db, '--query', 'library members', '--seed', `${site.origin}/`, '--seed', `${partner.origin}/`,
    '--delay-ms', '0', '--allow-private', '--max-pages', '20', '--json', ...extra,
  ];

  it('stores the members pages with the session, keeping the cookie a page sets, and sends it nowhere else', async () => {
    const file = cookiesFile(dir.dir, [`127.0.0.1\tFALSE\t/members\tFALSE\t0\tsid\t${SESSION}`]);
    withCookies = join(dir.dir, 'with.forager');
    site.seen.length = 0;
    partner.seen.length = 0;
    const result = await runCli(crawlArgs(withCookies, ['--cookies', file]), { timeoutMs: 60_000 });
    assert.equal(result.code, 0, result.stderr);
    const statuses = storedStatuses(withCookies);
    assert.equal(statuses.get('/members/'), 200);
    assert.equal(statuses.get('/members/a'), 200, 'the refreshed cookie set by /members/ was sent');
    assert.equal(statuses.get('/members/b'), 200, 'reached through the redirect');
    const cookieOn = (path: string): string | undefined => site.seen.find((r) => r.path === path)?.cookie;
    assert.equal(cookieOn('/members/'), `sid=${SESSION}`);
    assert.match(cookieOn('/members/a') ?? '', new RegExp(`refresh=${REFRESHED}`));
    // A page requisite and a redirect's hop carry the session as pages do.
    assert.match(cookieOn('/members/style.css') ?? '', new RegExp(`sid=${SESSION}`));
    assert.equal(site.seen.find((r) => r.path === '/members/style.css')?.status, 200);
    assert.match(cookieOn('/members/moved') ?? '', new RegExp(`sid=${SESSION}`));
    assert.equal(site.seen.find((r) => r.path === '/members/moved')?.status, 302);
    // Path /members: not sent to the rest of the site, robots.txt included.
    for (const path of ['/', '/public', '/robots.txt']) assert.equal(cookieOn(path), undefined, path);
    // Another host, with the same paths: never.
    assert.ok(partner.seen.some((r) => r.path === '/members/x'));
    assert.ok(partner.seen.every((r) => r.cookie === undefined), JSON.stringify(partner.seen));
    // The collection keeps the exchange as it was.
    const db = openCollection(withCookies, { create: false, readonly: true });
    try {
      const heads = db.prepare('SELECT request_head FROM pages').pluck().all() as string[];
      assert.ok(heads.some((h) => h.includes(SESSION)), 'the request as sent is in the collection');
    } finally {
      db.close();
    }
  });

  it('gets 403 for the members pages without the session', async () => {
    const without = join(dir.dir, 'without.forager');
    const result = await runCli(crawlArgs(without), { timeoutMs: 60_000 });
    assert.equal(result.code, 0, result.stderr);
    const statuses = storedStatuses(without);
    assert.equal(statuses.get('/members/'), 403);
    assert.equal(statuses.get('/members/a'), undefined, 'no link to it was ever seen');
  });

  it('lists the session without a value, and --clear forgets it: a refresh then gets 403', async () => {
    const listed = await runCli(['cookies', '--db', withCookies]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^2 cookies for 127\.0\.0\.1\n/);
    assert.match(listed.stdout, /127\.0\.0\.1\/members {2}sid {2}session/);
    assert.match(listed.stdout, /127\.0\.0\.1\/members {2}refresh {2}session {2}httponly/);
    const json = await runCli(['cookies', '--db', withCookies, '--json']);
    assert.deepEqual((JSON.parse(json.stdout) as { cookies: number; domains: string[] }).domains, ['127.0.0.1']);
    for (const output of [listed.stdout, json.stdout]) assert.ok(!output.includes(SESSION) && !output.includes(REFRESHED));

    const cleared = await runCli(['cookies', '--db', withCookies, '--clear']);
    assert.equal(cleared.code, 0, cleared.stderr);
    assert.equal(cleared.stdout, 'session forgotten: 2 cookies removed\n');
    assert.match((await runCli(['cookies', '--db', withCookies])).stdout, /^no session/);

    site.seen.length = 0;
    const refresh = await runCli(['refresh', '--db', withCookies, '--allow-private', '--json'], { timeoutMs: 60_000 });
    assert.equal(refresh.code, 0, refresh.stderr);
    const members = site.seen.filter((r) => ['/members/', '/members/a', '/members/b'].includes(r.path));
    assert.ok(members.length >= 3, JSON.stringify(site.seen));
    assert.ok(members.every((r) => r.cookie === undefined && r.status === 403), JSON.stringify(members));
  });

  it('refuses a malformed cookies file, naming its lines, before anything is created or fetched', async () => {
    const bad = cookiesFile(dir.dir, [`127.0.0.1\tFALSE\t/members\tFALSE\t0\tsid\t${SESSION}`, `127.0.0.1\tFALSE\t/\tFALSE\t0\tsid`, `127.0.0.1\tFALSE\tmembers\tFALSE\t0\tx\t${SESSION}`]);
    const db = join(dir.dir, 'never.forager');
    site.seen.length = 0;
    const result = await runCli(crawlArgs(db, ['--cookies', bad]));
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^forager: .*cookies-\w+\.txt: 2 malformed lines \(line 3: expected 7 TAB-separated fields.*; line 4: the path \(field 3\) does not start with \/\)\n$/);
    assert.ok(!result.stderr.includes(SESSION));
    for (const suffix of ['', '-wal', '-shm', '.lock']) assert.equal(existsSync(db + suffix), false, `${db}${suffix} was left`);
    assert.equal(site.seen.length, 0);
    const missing = await runCli(crawlArgs(db, ['--cookies', join(dir.dir, 'nope.txt')]));
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /cannot read the cookies file .*nope\.txt: ENOENT/);
    assert.equal(existsSync(db), false);
  });

  it('exports no cookie value and no Cookie, Set-Cookie or Authorization header in any format', async () => {
    const session = join(dir.dir, 'export.forager');
    const file = cookiesFile(dir.dir, [`127.0.0.1\tFALSE\t/members\tFALSE\t0\tsid\t${SESSION}`]);
    const crawl = await runCli(crawlArgs(session, ['--cookies', file]), { timeoutMs: 60_000 });
    assert.equal(crawl.code, 0, crawl.stderr);
    assert.equal(storedStatuses(session).get('/members/a'), 200);
    // A proxy's password is a credential too: the WARC's copy of the settings masks it.
    const writable = openCollection(session, { create: false });
    try {
      saveSettings(writable, { ...(loadSettings(writable) as CrawlSettings), proxy: `http://crawler:${PROXY_PASSWORD}@127.0.0.1:3128` });
    } finally {
      writable.close();
    }
    const outputs = { warc: 'out.warc.gz', wacz: 'out.wacz', jsonl: 'out.jsonl', csv: 'out.csv', mirror: 'mirror' };
    const scanned: string[] = [];
    for (const [format, name] of Object.entries(outputs)) {
      const out = join(dir.dir, name);
      const result = await runCli(['export', '--db', session, '--format', format, '--out', out]);
      assert.equal(result.code, 0, `${format}: ${result.stderr}`);
      for (const [entry, bytes] of await exportedBytes(out)) {
        const text = bytes.toString('latin1');
        scanned.push(entry);
        for (const secret of [SESSION, REFRESHED, PROXY_PASSWORD]) assert.ok(!text.includes(secret), `${entry} holds a secret (a cookie value or a proxy password)`);
        assert.doesNotMatch(text, /^(cookie|set-cookie2?|authorization|proxy-authorization):/im, entry);
      }
    }
    // The WARCs (alone and in the WACZ) were opened and read: the members' exchanges are in them, headers and all.
    const warc = (await exportedBytes(join(dir.dir, 'out.warc.gz'))).values().next().value as Buffer;
    assert.match(warc.toString('latin1'), /GET \/members\/a HTTP\/1\.1\r\n/);
    assert.match(warc.toString('latin1'), /WARC-Target-URI: http:\/\/127\.0\.0\.1:\d+\/members\/a/);
    assert.match(warc.toString('latin1'), /x-forager-settings: .*"proxy":"http:\/\/crawler:\*\*\*@127\.0\.0\.1:3128\/?"/);
    assert.ok(scanned.some((e) => e.includes('out.wacz!archive/')), scanned.join(', '));
    assert.ok(scanned.some((e) => e.includes('mirror')), scanned.join(', '));
  });
});

describe('a session kept through kill -9', () => {
  const dir = tempDir('forager-cookies-kill-');
  let site: LoopbackSite;

  before(async () => {
    site = await startSite('127.0.0.1', (req, res) => membersSite(req, res, 'http://127.0.0.2:9', true));
  });

  after(async () => {
    await site.close();
    dir.cleanup();
  });

  it('keeps a cookie set by a page stored before the crawl was killed', async () => {
    const file = cookiesFile(dir.dir, [`127.0.0.1\tFALSE\t/members\tFALSE\t0\tsid\t${SESSION}`]);
    const db = join(dir.dir, 'killed.forager');
    const crawl = spawnCli(['crawl', '--db', db, '--query', 'members', '--seed', `${site.origin}/members/`, '--cookies', file, '--delay-ms', '0', '--allow-private', '--json'], { timeoutMs: 60_000 });
    // /members/ is stored and /members/hang is waiting for its answer: kill the crawl then.
    const deadline = Date.now() + 30_000;
    while (!(site.seen.some((r) => r.path === '/members/hang') && storedStatuses(db).get('/members/') === 200)) {
      assert.ok(Date.now() < deadline, 'the crawl never reached /members/hang');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    crawl.child.kill('SIGKILL');
    const ended = await crawl.done;
    assert.equal(ended.signal, 'SIGKILL');
    const reader = openCollection(db, { create: false, readonly: true });
    try {
      const stored = (reader.prepare("SELECT cookie FROM cookies WHERE name = 'refresh'").pluck().get() as string | undefined) ?? '{}';
      assert.equal((JSON.parse(stored) as { value?: string }).value, REFRESHED);
    } finally {
      reader.close();
    }
  });
});
