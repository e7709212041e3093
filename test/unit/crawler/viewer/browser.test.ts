import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Frame, type Page } from 'playwright-core';
import type { StoredPage, StoredPageSource } from '../../../../crawler/viewer/page-source.ts';
import { createStoredPageHandler, parseViewerUrl, viewerRoutes } from '../../../../crawler/viewer/stored-page-handler.ts';
import { storedPageHeaders } from '../../../../crawler/viewer/stored-page-csp.ts';

/*
 * The viewer's output in Debian's Chromium, framed as the UI frames it: a hostile page
 * aimed at a second local server (the canary) must run no script, open no dialog and
 * make no request there; links must work inside the frame; a page served with the
 * policy but WITHOUT sanitising must still load nothing (the CSP alone holds); and a
 * foreign origin must not be able to frame a stored page.
 */

const CHROMIUM = process.env.FORAGER_CHROMIUM ?? '/usr/bin/chromium';
// CI installs Chromium (.ci/run); elsewhere the suite says why it did not run.
const skip = !existsSync(CHROMIUM) && process.env.CI === undefined ? `no Chromium at ${CHROMIUM} (apt-get install -y chromium)` : false;

interface Recorder {
  server: Server;
  origin: string;
  requests: string[];
}

async function listen(handle: (req: IncomingMessage, res: ServerResponse, origin: string) => Promise<void> | void): Promise<Recorder> {
  const requests: string[] = [];
  let origin = '';
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    Promise.resolve(handle(req, res, origin)).catch((err: unknown) => {
      res.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, origin, requests };
}

function hostilePage(canary: string, withRefresh: boolean): string {
  return `<!DOCTYPE html><html><head><title>Hostile</title>
<script src="${canary}/script.js"></script><script>fetch('${canary}/inline-script'); alert('inline')</script>
<link rel="stylesheet" href="${canary}/style.css"><link rel="preconnect" href="${canary}"><link rel="prefetch" href="${canary}/prefetch">
<link rel="icon" href="${canary}/favicon.ico"><link rel="preload" href="${canary}/preload.js" as="script">
<style>@import url(${canary}/import.css); body { background: url(${canary}/bg.png) } @font-face { font-family: f; src: url(${canary}/font.woff) } h1 { font-family: f }</style>
${withRefresh ? `<meta http-equiv="refresh" content="0;url=${canary}/refresh">` : ''}
</head><body onload="alert('body')">
<h1>Write-ahead logging</h1>
<p style="background:url(${canary}/inline-bg.png)">A paragraph about checkpoints.</p>
<img src="${canary}/img.png" alt="an image" onerror="alert('img')"><img srcset="${canary}/srcset.png 1x" alt="srcset">
<img src="x" onerror="alert('onerror')">
<svg onload="alert('svg')"><image href="${canary}/svg-image.png" width="10" height="10"/><use href="${canary}/use.svg#x"/></svg>
<math><mtext><table><mglyph><style><img src="${canary}/mxss.png" onerror="alert('mxss')"></style></mglyph></table></mtext></math>
<iframe src="${canary}/iframe"></iframe><object data="${canary}/object"></object><embed src="${canary}/embed">
<video poster="${canary}/poster.png" src="${canary}/video.mp4" autoplay></video><audio src="${canary}/audio.mp3" autoplay></audio>
<form action="${canary}/form" method="post"><input name="q" value="1"><button id="submit">Send</button></form>
<p><a id="internal" href="https://site.example/next#sec">Next page</a>
<a id="external" href="${canary}/outside" ping="${canary}/ping" target="_top">Outside</a>
<a id="script-link" href="javascript:alert('link')">Script link</a></p>
</body></html>`;
}

describe('stored pages in Chromium', { skip, timeout: 120_000 }, () => {
  let canary: Recorder;
  let viewer: Recorder;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const dialogs: string[] = [];
  const browserRequests: string[] = [];

  before(async () => {
    canary = await listen((req, res) => {
      if (req.url === '/framer') {
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<iframe id="f" src="${viewer.origin}/stored/test/1"></iframe>`);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('canary');
    });
    const pages = new Map<number, StoredPage>([
      [1, { url: 'https://site.example/', status: 200, contentType: 'text/html', html: hostilePage(canary.origin, true), plainText: null, documentType: null, bodyBytes: 1, redirectTo: null }],
      [2, {
        url: 'https://site.example/next', status: 200, contentType: 'text/html', plainText: null, documentType: null, bodyBytes: 1, redirectTo: null,
        html: `<link rel="stylesheet" href="/site.css"><h1 id="sec">Next page</h1><p>Reached.</p><img id="logo" src="/logo.png" alt="logo"><img id="remote" src="${canary.origin}/remote.png" alt="remote">`,
      }],
    ]);
    // Requisites the collection stored: a stylesheet (which names the canary, in vain) and a one-pixel PNG.
    const requisites = new Map([
      ['https://site.example/site.css', { contentType: 'text/css', body: Buffer.from(`h1 { color: rgb(0, 128, 128); background: url(logo.png) } p { background: url(${canary.origin}/bg.png) }`) }],
      ['https://site.example/logo.png', { contentType: 'image/png', body: Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64') }],
    ]);
    const source: StoredPageSource = {
      page: (_collection, seq) => pages.get(seq),
      seqOfUrl: (_collection, url) => (url === 'https://site.example/next' ? 2 : undefined),
      requisite: (_collection, url) => requisites.get(url),
      file: () => undefined,
    };
    const handler = createStoredPageHandler(source, viewerRoutes('serve'));
    viewer = await listen(async (req, res, origin) => {
      const url = new URL(req.url ?? '/', origin);
      if (url.pathname === '/') {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<!DOCTYPE html><h1>Viewer</h1><iframe id="f" src="/stored/test/1" width="800" height="600"></iframe>');
        return;
      }
      if (url.pathname === '/raw') {
        // The policy alone, without the sanitiser: what would happen if the sanitiser missed everything.
        res.writeHead(200, storedPageHeaders()).end(hostilePage(canary.origin, false));
        return;
      }
      const target = parseViewerUrl(url, 'serve');
      if (target === undefined) {
        res.writeHead(404).end();
        return;
      }
      const response = await handler(new Request(url, { method: req.method ?? 'GET' }), target);
      res.writeHead(response.status, Object.fromEntries(response.headers)).end(await response.text());
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
    context = await browser.newContext();
    context.on('request', (request) => browserRequests.push(request.url()));
    page = await context.newPage();
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => canary?.server.close(resolve));
    await new Promise((resolve) => viewer?.server.close(resolve));
  });

  const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 700));
  // Top-level pages this suite opens on the canary (the popup, the framer) ask for its favicon.
  const canaryHits = (): string[] => canary.requests.filter((path) => path !== '/favicon.ico');

  async function viewerFrame(): Promise<Frame> {
    const handle = await page.waitForSelector('#f');
    const frame = await handle.contentFrame();
    assert.ok(frame !== null);
    return frame;
  }

  it('shows the sanitised page in the frame, and nothing reaches the canary', async () => {
    await page.goto(`${viewer.origin}/`);
    const frame = await viewerFrame();
    await frame.getByRole('heading', { name: 'Write-ahead logging' }).waitFor();
    await settle();
    assert.equal(await frame.locator('script, iframe, object, embed, video, audio, link, base, meta[http-equiv]').count(), 0);
    assert.equal(await frame.getByText('an image').count(), 1);
    assert.deepEqual(dialogs, []);
    assert.deepEqual(canaryHits(), []);
    assert.deepEqual(browserRequests.filter((u) => !u.startsWith(viewer.origin)), []);
  });

  it('refuses to submit a form and runs no javascript: link', async () => {
    const frame = await viewerFrame();
    await frame.locator('#submit').click();
    await frame.getByText('Script link').click();
    await settle();
    assert.deepEqual(dialogs, []);
    assert.deepEqual(canaryHits(), []);
  });

  it('follows an in-collection link inside the frame, to its fragment', async () => {
    const frame = await viewerFrame();
    await frame.locator('#internal').click();
    await frame.waitForURL(`${viewer.origin}/stored/test/2#sec`);
    await frame.getByText('Reached.').waitFor();
    assert.deepEqual(canaryHits(), []);
  });

  it('shows the stylesheet and images the collection stored, from the collection only', async () => {
    const frame = await viewerFrame();
    await frame.getByText('Reached.').waitFor();
    await settle();
    assert.equal(await frame.locator('h1').evaluate((h1) => (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(h1).color), 'rgb(0, 128, 128)', 'the stored stylesheet applies');
    assert.equal(await frame.locator('#logo').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth), 1, 'the stored image shows');
    const background = await frame.locator('h1').evaluate((h1) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundImage: string } }).getComputedStyle(h1).backgroundImage);
    assert.match(background, /^url\("data:image\/png;base64,iVBORw0KGgo/, 'the image the stylesheet names comes from the collection');
    assert.equal(await frame.locator('#remote').count(), 0, 'an image the collection lacks is its alt text');
    assert.equal(await frame.getByText('remote').count(), 1);
    assert.deepEqual(canaryHits(), [], 'nothing named by the stylesheet or the page was fetched');
  });

  it('sends an outside link to the external-link page, which opens the address in a new window', async () => {
    await page.goto(`${viewer.origin}/`);
    const frame = await viewerFrame();
    await frame.locator('#external').click();
    await frame.waitForURL(/\/stored\/external\?url=/);
    await frame.getByText('This link leaves the collection').waitFor();
    assert.deepEqual(canaryHits(), [], 'neither the click nor a ping reached the canary');
    const popup = context.waitForEvent('page');
    await frame.getByRole('link', { name: 'Open in your browser' }).click();
    const opened = await popup;
    await opened.waitForLoadState();
    assert.equal(opened.url(), `${canary.origin}/outside`);
    assert.deepEqual(canaryHits(), ['/outside']);
    assert.equal(page.url(), `${viewer.origin}/`, 'the viewer itself stays where it was');
    await opened.close();
  });

  it('loads nothing even when served unsanitised, with the policy alone', async () => {
    canary.requests.length = 0;
    await page.goto(`${viewer.origin}/raw`);
    await page.getByRole('heading', { name: 'Write-ahead logging' }).waitFor();
    await settle();
    assert.deepEqual(dialogs, []);
    assert.deepEqual(canaryHits(), []);
  });

  it('cannot be framed by another origin', async () => {
    const before = viewer.requests.length;
    await page.goto(`${canary.origin}/framer`);
    const frame = await viewerFrame();
    await settle();
    assert.ok(viewer.requests.length > before, 'the frame was requested');
    assert.equal(await frame.getByText('Write-ahead logging').count(), 0);
  });
});
