import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CookiesFileError } from '../../crawler/net/cookies-txt.ts';
import { NEW_CRAWL_INPUT_BOUNDS } from '../../crawler/protocol/settings.ts';
import { checkCall } from '../../crawler/service/schema.ts';
import { ForagerService } from '../../crawler/service/service.ts';
import { storedCookies } from '../../crawler/store/cookie-store.ts';
import { loadSettings } from '../../crawler/store/settings-store.ts';
import { tempDir } from '../support/crawl-harness.ts';
import { type LoopbackSite, membersSite, SESSION, startSite, storedStatuses } from '../support/members-site.ts';

/*
 * The New crawl form's proxy and session through the service: createCollection keeps the
 * proxy in the settings and imports a pasted cookies.txt into the new collection's jar before
 * its crawl starts; what the crawler would refuse is refused before any file is made, by line
 * number for the cookies, and never with a cookie value or a proxy password in the message.
 */

const VALUE = 'SECRET-NEW-CRAWL-COOKIE-9d2b';
const PASSWORD = 'hunter2-proxy-password';

describe('createCollection with a proxy and a pasted cookies.txt', () => {
  const dir = tempDir('forager-new-crawl-session-');
  let service: ForagerService;
  let site: LoopbackSite;

  before(async () => {
    service = new ForagerService({ dir: dir.dir });
    site = await startSite('127.0.0.1', (req, res) => membersSite(req, res, 'http://127.0.0.2:9'));
  });

  after(async () => {
    await service.close();
    await site.close();
    dir.cleanup();
  });

  const collectionFiles = (): string[] => readdirSync(dir.dir).filter((name) => name.endsWith('.forager'));
  const input = { query: 'library members', seeds: ['https://library.example.org/'], start: false };

  it('keeps the proxy in the settings and imports the cookies into the jar, showing no value', async () => {
    const cookies = `# Netscape HTTP Cookie File\r\n.library.example.org\tTRUE\t/\tTRUE\t0\tsid\t${VALUE}\r\n#HttpOnly_library.example.org\tFALSE\t/app\tFALSE\t0\tcsrf\t${VALUE}\r\n`;
    const proxy = `socks5h://tor:${PASSWORD}@127.0.0.1:9050`;
    const call = checkCall('createCollection', { ...input, name: 'with session', proxy, cookies });
    assert.ok(call.ok, JSON.stringify(call));
    const created = await service.createCollection({ ...input, name: 'with session', proxy, cookies });
    assert.deepEqual(created.session, { cookies: 2, domains: ['library.example.org'] });
    assert.ok(!JSON.stringify(created).includes(VALUE) && !JSON.stringify(created).includes(PASSWORD));
    const db = service.reader(created.id);
    assert.equal(loadSettings(db)?.proxy, proxy);
    assert.equal(storedCookies(db).length, 2);
    assert.ok(!JSON.stringify(loadSettings(db)).includes(VALUE), 'the cookies are in the jar, not in the settings');
  });

  it('refuses malformed cookie lines by number before making anything, never quoting a value', async () => {
    const cookies = [`library.example.org\tFALSE\t/\tFALSE\t0\tsid\t${VALUE}`, `library.example.org FALSE / FALSE 0 sid ${VALUE}`, `library.example.org\tFALSE\tapp\tFALSE\t0\tsid\t${VALUE}`].join('\n');
    const before = collectionFiles();
    await assert.rejects(service.createCollection({ ...input, name: 'malformed', cookies }), (err: unknown) => {
      assert.ok(err instanceof CookiesFileError);
      assert.match(err.message, /^the cookies \(cookies\.txt\): 2 malformed lines \(line 2: expected 7 TAB-separated fields.*; line 3: the path \(field 3\) does not start with \/\)$/);
      assert.ok(!err.message.includes(VALUE));
      return true;
    });
    // A public suffix only the service can tell (the form cannot load the list), and a file with no cookie still valid.
    await assert.rejects(service.createCollection({ ...input, name: 'suffix', cookies: `.co.uk\tTRUE\t/\tFALSE\t0\tsid\t${VALUE}` }), /line 1: the domain \(field 1\) is a public suffix/);
    await assert.rejects(service.createCollection({ ...input, name: 'expired', cookies: `library.example.org\tFALSE\t/\tFALSE\t1\tsid\t${VALUE}` }), /no cookie in it is still valid/);
    assert.deepEqual(collectionFiles(), before, 'a refused collection leaves no file behind');
  });

  it('refuses a proxy the crawler cannot use, with its password masked', async () => {
    const before = collectionFiles();
    await assert.rejects(service.createCollection({ ...input, name: 'bad proxy', proxy: `ftp://crawler:${PASSWORD}@127.0.0.1:2121` }), (err: unknown) => {
      assert.match((err as Error).message, /^--proxy: the proxy "ftp:\/\/crawler:\*\*\*@127\.0\.0\.1:2121\/" has scheme ftp:/);
      assert.ok(!(err as Error).message.includes(PASSWORD));
      return true;
    });
    // Left blank, the proxy is the serving process's environment: a bad variable there is refused the same way.
    const saved = process.env.HTTPS_PROXY;
    process.env.HTTPS_PROXY = `ftp://crawler:${PASSWORD}@127.0.0.1:2121`;
    try {
      await assert.rejects(service.createCollection({ ...input, name: 'bad environment' }), (err: unknown) => /^the environment variable HTTPS_PROXY: .*scheme ftp:/.test((err as Error).message) && !(err as Error).message.includes(PASSWORD));
    } finally {
      if (saved === undefined) delete process.env.HTTPS_PROXY;
      else process.env.HTTPS_PROXY = saved;
    }
    assert.deepEqual(collectionFiles(), before);
  });

  it('bounds the cookies and the proxy where a call enters the service', () => {
    const tooLong = checkCall('createCollection', { ...input, cookies: 'x'.repeat(NEW_CRAWL_INPUT_BOUNDS.cookiesLength + 1) });
    assert.ok(!tooLong.ok);
    assert.match(tooLong.error.message, /^createCollection: cookies: /);
    const longProxy = checkCall('createCollection', { ...input, proxy: `http://${'p'.repeat(NEW_CRAWL_INPUT_BOUNDS.proxyLength)}:1` });
    assert.ok(!longProxy.ok);
    assert.match(longProxy.error.message, /^createCollection: proxy: /);
    const spaced = checkCall('createCollection', { ...input, proxy: `http://crawler:${PASSWORD}@proxy:1 x` });
    assert.ok(!spaced.ok && !spaced.error.message.includes(PASSWORD));
  });

  it('crawls the members pages with the session from the first request', async () => {
    const cookies = `127.0.0.1\tFALSE\t/members\tFALSE\t0\tsid\t${SESSION}\n`;
    const created = await service.createCollection({ query: 'library members', seeds: [`${site.origin}/`], name: 'members', delayMs: 0, allowPrivate: true, maxPages: 20, cookies });
    let status = await service.crawlStatus({ collection: created.id });
    for (let i = 0; i < 400 && status.state !== 'idle'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      status = await service.crawlStatus({ collection: created.id });
    }
    assert.equal(status.state, 'idle');
    const statuses = storedStatuses(join(dir.dir, `${created.id}.forager`));
    assert.equal(statuses.get('/members/'), 200);
    assert.equal(statuses.get('/members/a'), 200);
    assert.equal(site.seen.find((r) => r.path === '/members/')?.cookie, `sid=${SESSION}`);
  });
});
