import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openCollection } from '../../crawler/store/database.ts';
import { UrlRules } from '../../crawler/url/url-rules.ts';
import { runCli } from '../support/cli.ts';
import { tempDir, urlRecord } from '../support/crawl-harness.ts';
import { startTestSite, type Handler, type TestSite } from '../support/test-site.ts';

const QUERY = 'orchard manuals';
const BASE_ARGS = ['--query', QUERY, '--delay-ms', '0', '--delay-factor', '0', '--concurrency', '2', '--allow-private', '--strategy', 'bfs', '--json'];

function page(title: string, links: string[], head = ''): Handler {
  const anchors = links.map((href) => `<a href="${href}">${href}</a>`).join(' ');
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>${title}</title>${head}</head><body><p>${title}: orchard manuals.</p>${anchors}</body></html>`);
  };
}

/** A site with folders and file types: docs, a blog, downloads, versioned API pages, a sitemap and a redirect. */
function folderSite(origin: () => string): Record<string, Handler> {
  return {
    '/robots.txt': (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end(`User-agent: *\nAllow: /\nSitemap: ${origin()}/docs/sitemap.xml\n`),
    '/': page('Home', ['/docs/', '/blog/', '/files/pack.zip', '/docs/manual.pdf', '/api/v2/ref.html', '/docs/moved']),
    '/docs/': page('Docs', ['/docs/guide.html', '/docs/archive.zip', '/docs/old/v1/page.html', '/blog/post.html'], '<link rel="stylesheet" href="/assets/site.css">'),
    '/docs/guide.html': page('Guide', ['/docs/', '/api/v1/old.html']),
    '/api/v2/ref.html': page('Reference', ['/api/v2/more.html']),
    '/api/v2/more.html': page('More reference', []),
    '/docs/moved': (_req, res) => void res.writeHead(301, { location: '/blog/moved-here.html' }).end(),
    '/docs/sitemap.xml': (_req, res) => {
      const urls = ['/docs/from-sitemap.html', '/blog/from-sitemap.html', '/docs/sm.zip'].map((p) => `<url><loc>${origin()}${p}</loc></url>`).join('');
      res.writeHead(200, { 'content-type': 'application/xml' }).end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`);
    },
    '/docs/from-sitemap.html': page('From the sitemap', []),
    '/assets/site.css': (_req, res) => void res.writeHead(200, { 'content-type': 'text/css' }).end('body { color: #333 }'),
  };
}

const INCLUDE = (origin: string) => [`${origin}/docs/**`, '/\\/api\\/v\\d+\\//'];
const EXCLUDE = ['**/*.{zip,pdf}', '/\\/v1\\//'];

const tmp = tempDir('forager-rules-');
let site: TestSite;

before(async () => {
  let origin = '';
  site = await startTestSite(folderSite(() => origin));
  origin = site.origin;
});
after(async () => {
  await site.close();
  tmp.cleanup();
});

describe('crawling with include and exclude rules', () => {
  const db = join(tmp.dir, 'rules.db');
  const ruleArgs = () => [...INCLUDE(site.origin).flatMap((p) => ['--include', p]), ...EXCLUDE.flatMap((p) => ['--exclude', p])];

  it('never requests a URL the rules refuse, and stores each with the rule reason', async () => {
    const result = await runCli(['crawl', '--db', db, '--seed', `${site.origin}/`, ...BASE_ARGS, ...ruleArgs()], { timeoutMs: 60_000 });
    assert.equal(result.code, 0, result.stderr);
    const rules = new UrlRules({ include: INCLUDE(site.origin), exclude: EXCLUDE });
    // Requisites follow their page, whatever the rules say; the seed is always fetched.
    const refusedRequests = site.requests.filter((path) => path !== '/' && path !== '/robots.txt' && path !== '/assets/site.css' && rules.refusal(`${site.origin}${path}`) !== null);
    assert.deepEqual(refusedRequests, [], 'the site saw requests for URLs a rule refuses');
    for (const path of ['/docs/', '/docs/guide.html', '/api/v2/ref.html', '/api/v2/more.html', '/docs/moved', '/docs/sitemap.xml', '/docs/from-sitemap.html', '/assets/site.css']) {
      assert.equal(site.count(path), 1, `${path} was fetched once`);
    }
    const handle = openCollection(db, { create: false });
    try {
      const reason = (path: string) => urlRecord(handle, `${site.origin}${path}`)?.reason;
      for (const path of ['/files/pack.zip', '/docs/manual.pdf', '/docs/archive.zip', '/docs/old/v1/page.html', '/api/v1/old.html', '/docs/sm.zip']) assert.equal(reason(path), 'rule:exclude', path);
      for (const path of ['/blog/', '/blog/post.html', '/blog/from-sitemap.html', '/blog/moved-here.html']) assert.equal(reason(path), 'rule:not-included', path);
    } finally {
      handle.close();
    }
  });

  it('explain names the rule that refused a URL', async () => {
    const zip = await runCli(['explain', '--db', db, `${site.origin}/files/pack.zip`]);
    assert.equal(zip.code, 0, zip.stderr);
    assert.match(zip.stdout, /\(skipped: rule:exclude, depth 1\)/);
    assert.match(zip.stdout, /^rule: excluded by --exclude "\*\*\/\*\.\{zip,pdf\}"$/m);
    const blog = await runCli(['explain', '--db', db, '--json', `${site.origin}/blog/post.html`]);
    assert.equal(JSON.parse(blog.stdout).rule, 'not included by any --include (2 patterns)');
    const fetched = await runCli(['explain', '--db', db, '--json', `${site.origin}/docs/guide.html`]);
    assert.equal(JSON.parse(fetched.stdout).rule, null);
  });

  it('refuses an invalid pattern before anything starts', async () => {
    const fresh = join(tmp.dir, 'bad-pattern.db');
    const before = site.requests.length;
    const result = await runCli(['crawl', '--db', fresh, '--seed', `${site.origin}/`, ...BASE_ARGS, '--exclude', '/(unclosed/']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /the exclude pattern "\/\(unclosed\/" cannot be used: it is not a valid regular expression/);
    assert.equal(existsSync(fresh), false, 'no collection was made');
    assert.equal(site.requests.length, before, 'nothing was fetched');
  });
});

describe('rules changed when a crawl continues', () => {
  let later: TestSite;
  before(async () => {
    later = await startTestSite({
      '/robots.txt': (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n'),
      '/': page('Home', ['/docs/late/a.html', '/docs/keep.html']),
      '/docs/keep.html': page('Kept', ['/docs/late/b.html']),
    });
  });
  after(() => later.close());

  it('does not request URLs queued before a new exclude, nor revisit stored pages it now refuses', async () => {
    const db = join(tmp.dir, 'later.db');
    const first = await runCli(['crawl', '--db', db, '--seed', `${later.origin}/`, ...BASE_ARGS, '--max-pages', '1'], { timeoutMs: 60_000 });
    assert.equal(first.code, 0, first.stderr);
    assert.equal(later.count('/docs/late/a.html'), 0, 'the first crawl left it queued');
    const second = await runCli(['crawl', '--db', db, ...BASE_ARGS, '--max-pages', '20', '--exclude', '**/late/**'], { timeoutMs: 60_000 });
    assert.equal(second.code, 0, second.stderr);
    assert.equal(later.count('/docs/keep.html'), 1);
    assert.equal(later.requests.filter((path) => path.includes('/late/')).length, 0, 'a URL the new rule refuses was requested');
    const handle = openCollection(db, { create: false });
    try {
      assert.equal(urlRecord(handle, `${later.origin}/docs/late/a.html`)?.reason, 'rule:exclude', 'queued before the rule, refused when taken');
      assert.equal(urlRecord(handle, `${later.origin}/docs/late/b.html`)?.reason, 'rule:exclude', 'found after the rule');
    } finally {
      handle.close();
    }
    const third = await runCli(['crawl', '--db', db, ...BASE_ARGS, '--exclude', '**/keep.html'], { timeoutMs: 60_000 });
    assert.equal(third.code, 0, third.stderr);
    const refresh = await runCli(['refresh', '--db', db, '--json'], { timeoutMs: 60_000 });
    assert.equal(refresh.code, 0, refresh.stderr);
    assert.ok(later.count('/') >= 2, 'the refresh revisited the seed');
    assert.equal(later.count('/docs/keep.html'), 1, 'a stored page the rules now refuse was revisited');
  });
});

describe('crawl --seeds-file', () => {
  let seedSite: TestSite;
  before(async () => {
    seedSite = await startTestSite({
      '/robots.txt': (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n'),
      '/': page('Home', []),
      '/a.html': page('A', []),
      '/b.html': page('B', []),
    });
  });
  after(() => seedSite.close());

  it('adds the file seeds to --seed, skipping comments and blank lines', async () => {
    const file = join(tmp.dir, 'seeds.txt');
    writeFileSync(file, `# seeds for the orchard\n\n${seedSite.origin}/a.html   # the first\n  ${seedSite.origin}/b.html\n# ${seedSite.origin}/commented.html\n`);
    const db = join(tmp.dir, 'seeds.db');
    const result = await runCli(['crawl', '--db', db, '--seed', `${seedSite.origin}/`, '--seeds-file', file, ...BASE_ARGS], { timeoutMs: 60_000 });
    assert.equal(result.code, 0, result.stderr);
    for (const path of ['/', '/a.html', '/b.html']) assert.equal(seedSite.count(path), 1, path);
    assert.equal(seedSite.count('/commented.html'), 0);
  });

  it('names every bad line by its number, exits 2 and makes no collection', async () => {
    const file = join(tmp.dir, 'bad-seeds.txt');
    writeFileSync(file, `${seedSite.origin}/a.html\nwww.example.org\n\n# fine\nftp://files.example/\nhttps://exa mple.org/\nhttp://[::1/\n`);
    const db = join(tmp.dir, 'bad-seeds.db');
    const before = seedSite.requests.length;
    const result = await runCli(['crawl', '--db', db, '--seeds-file', file, ...BASE_ARGS]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /--seeds-file .*bad-seeds\.txt: lines 2, 5, 6, 7 are not a URL to crawl; nothing was started/);
    assert.match(result.stderr, /line 2: “www\.example\.org” is not a web address/);
    assert.equal(result.stderr.trim().split('\n').length, 1, 'one line of error');
    assert.equal(existsSync(db), false, 'no collection was made');
    assert.equal(existsSync(`${db}.lock`), false, 'no lock was left');
    assert.equal(seedSite.requests.length, before);
  });

  it('cluster create reads the same file: its bad lines are named before Redis is reached', async () => {
    const file = join(tmp.dir, 'bad-cluster-seeds.txt');
    writeFileSync(file, `${seedSite.origin}/a.html\nwww.example.org\n`);
    // Nothing listens on port 1: a command that got as far as Redis would fail on the connection instead.
    const result = await runCli(['cluster', 'create', '--redis', 'redis://127.0.0.1:1', '--name', 'seeds', '--query', 'orchard', '--seeds-file', file]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /--seeds-file .*bad-cluster-seeds\.txt: line 2 is not a URL to crawl; nothing was started/);
  });

  it('refuses a file it cannot read, with no collection made', async () => {
    const db = join(tmp.dir, 'no-file.db');
    const result = await runCli(['crawl', '--db', db, '--seeds-file', join(tmp.dir, 'missing.txt'), ...BASE_ARGS]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /cannot read --seeds-file .*missing\.txt \(ENOENT\)/);
    assert.equal(existsSync(db), false);
  });
});
