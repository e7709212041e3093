import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { BrowserPool } from '../../../../crawler/render/browser-pool.ts';
import { findBrowser } from '../../../../crawler/render/find-browser.ts';
import { PageRenderer, type SubresourceFetcher } from '../../../../crawler/render/page-renderer.ts';

const browser = findBrowser('');
const TIMEOUT_MS = 2000;

describe('rendering one page', { skip: browser.kind === 'missing' ? 'no Chromium-family browser on this machine' : false }, () => {
  const pool = new BrowserPool({ executablePath: browser.kind === 'found' ? browser.path : '', contexts: 1 });
  const asked: string[] = [];
  const fetcher: SubresourceFetcher = async (url) => {
    asked.push(url);
    return url.endsWith('/data.json')
      ? { kind: 'response', response: { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"text":"built by script"}') }, fromCache: false }
      : { kind: 'blocked', reason: 'not-in-test' };
  };
  const renderer = new PageRenderer(pool, fetcher, TIMEOUT_MS);
  const render = (script: string) => renderer.render({ url: 'http://app.test/', status: 200, contentType: 'text/html', body: Buffer.from(`<div id="root"></div><script>${script}</script>`) });

  after(() => pool.close());

  it('is done once the network and the DOM are quiet, with what scripts built', async () => {
    const page = await render("fetch('/data.json').then((r) => r.json()).then((d) => { document.getElementById('root').textContent = d.text; });");
    assert.equal(page.timedOut, false);
    assert.match(page.dom, /<div id="root">built by script<\/div>/);
    assert.ok(page.ms < TIMEOUT_MS, `${page.ms.toFixed(0)} ms`);
    assert.deepEqual(asked, ['http://app.test/data.json'], 'the page\'s request went through the fetcher');
  });

  it('stops a page that never settles at the time limit, keeping the DOM it had', async () => {
    const page = await render("let n = 0; setInterval(() => { document.getElementById('root').textContent = 'tick ' + (++n); }, 40);");
    assert.equal(page.timedOut, true);
    assert.ok(page.ms >= TIMEOUT_MS && page.ms < TIMEOUT_MS + 1500, `${page.ms.toFixed(0)} ms`);
    assert.match(page.dom, /tick \d+/);
  });

  it('refuses what is not a script, a style sheet or a GET request, without asking the fetcher', async () => {
    asked.length = 0;
    const page = await render("document.body.insertAdjacentHTML('beforeend', '<img src=\"/a.png\">'); fetch('/post', { method: 'POST', body: 'x' }).catch(() => {});");
    assert.deepEqual(asked, []);
    const outcomes = page.requests.map((r) => `${r.url} ${r.outcome}`).sort();
    assert.deepEqual(outcomes, ['http://app.test/a.png blocked:type:image', 'http://app.test/post blocked:method:POST']);
  });
});
