import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { descendantPids } from '../../../../crawler/render/browser-memory.ts';
import { findBrowser } from '../../../../crawler/render/find-browser.ts';
import type { RenderInput, SubresourceFetcher } from '../../../../crawler/render/page-renderer.ts';
import { RenderProcess } from '../../../../crawler/render/render-process.ts';

const browser = findBrowser('');

/** The render process this test started: the node child whose command line names render-host. */
function renderHostPid(): number | undefined {
  return (descendantPids() ?? []).find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('render-host');
    } catch {
      return false;
    }
  });
}

function niceness(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

describe('rendering in a process of its own', { skip: browser.kind === 'missing' ? 'no Chromium-family browser on this machine' : false }, () => {
  const asked: string[] = [];
  const fetcher: SubresourceFetcher = async (url, pageUrl) => {
    asked.push(`${url} for ${pageUrl}`);
    return url.endsWith('/data.json')
      ? { kind: 'response', response: { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"text":"built by script"}') }, fromCache: false }
      : { kind: 'blocked', reason: 'not-in-test' };
  };
  const renderer = new RenderProcess({ executablePath: browser.kind === 'found' ? browser.path : '', contexts: 1, timeoutMs: 3000 }, fetcher);
  const render = () =>
    renderer.render({
      url: 'http://app.test/',
      status: 200,
      contentType: 'text/html',
      body: Buffer.from("<div id=\"root\"></div><script>fetch('/data.json').then((r) => r.json()).then((d) => { document.getElementById('root').textContent = d.text; });</script>"),
    });

  after(() => renderer.close());

  it('renders with the crawler answering the page\'s requests, at a lower priority than the crawler', async () => {
    const page = await render();
    assert.match(page.dom, /<div id="root">built by script<\/div>/);
    assert.deepEqual(asked, ['http://app.test/data.json for http://app.test/'], 'the request came back to this process\'s fetcher');
    const pid = renderHostPid();
    assert.ok(pid !== undefined, 'a render process runs');
    assert.equal(niceness(pid), 10);
    assert.equal(niceness(process.pid), 0, 'the crawler itself keeps its priority');
  });

  it('fails the renders of a process that dies, and starts another for the next render', async () => {
    const pid = renderHostPid() as number;
    const pending = render();
    process.kill(pid, 'SIGKILL');
    await assert.rejects(pending, /render process stopped/);
    const page = await render();
    assert.match(page.dom, /built by script/);
    assert.notEqual(renderHostPid(), pid);
    assert.equal(renderer.unavailable, undefined);
  });

  it('gives up after the process dies three times in a row, with a typed error', async () => {
    for (let crash = 0; crash < 3; crash++) {
      const pending = render();
      await new Promise((resolve) => setTimeout(resolve, 200));
      process.kill(renderHostPid() as number, 'SIGKILL');
      await pending.catch(() => undefined);
    }
    assert.equal(renderer.unavailable?.name, 'BrowserUnavailableError');
    await assert.rejects(render(), { name: 'BrowserUnavailableError' });
  });
});

describe('one render process serving several crawls', { skip: browser.kind === 'missing' ? 'no Chromium-family browser on this machine' : false }, () => {
  // No fetcher of its own: every render brings its crawl's.
  const renderer = new RenderProcess({ executablePath: browser.kind === 'found' ? browser.path : '', contexts: 2, timeoutMs: 10_000 });
  const app = (origin: string, script: string): RenderInput => ({ url: `${origin}/`, status: 200, contentType: 'text/html', body: Buffer.from(`<div id="root"></div><script>${script}</script>`) });
  const BUILD = "fetch('/data.json').then((r) => r.json()).then((d) => { document.getElementById('root').textContent = d.text; });";

  /** A crawl's fetcher: answers /data.json with its name, and notes every URL it was asked. */
  function crawlFetcher(name: string): { fetch: SubresourceFetcher; asked: string[] } {
    const asked: string[] = [];
    const fetch: SubresourceFetcher = async (url) => {
      asked.push(url);
      return { kind: 'response', response: { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ text: `built for ${name}` })) }, fromCache: false };
    };
    return { fetch, asked };
  }

  after(() => renderer.close());

  it("sends each render's requests to the fetcher its job names", async () => {
    const north = crawlFetcher('north');
    const south = crawlFetcher('south');
    const [northPage, southPage] = await Promise.all([
      renderer.render(app('http://north.test', BUILD), { fetch: north.fetch }),
      renderer.render(app('http://south.test', BUILD), { fetch: south.fetch }),
    ]);
    assert.match(northPage.dom, /built for north/);
    assert.match(southPage.dom, /built for south/);
    assert.deepEqual(north.asked, ['http://north.test/data.json']);
    assert.deepEqual(south.asked, ['http://south.test/data.json']);
  });

  it('fails a cancelled render at once, aborts its requests, asks its fetcher nothing more, and renders on', async () => {
    const asked: string[] = [];
    let aborted = false;
    const hanging: SubresourceFetcher = (url, _pageUrl, signal) => {
      asked.push(url);
      return new Promise((resolve) => {
        signal.addEventListener('abort', () => {
          aborted = true;
          resolve({ kind: 'blocked', reason: 'aborted' });
        });
      });
    };
    const cancel = new AbortController();
    const pending = renderer.render(app('http://stuck.test', "fetch('/slow.json'); setTimeout(() => fetch('/later.json'), 300);"), { fetch: hanging, signal: cancel.signal });
    while (asked.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const cancelledAt = performance.now();
    cancel.abort();
    await assert.rejects(pending, { name: 'RenderCancelledError' });
    assert.ok(performance.now() - cancelledAt < 100, 'at once, not at the time limit');
    assert.equal(aborted, true, 'the request under way was aborted');
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.deepEqual(asked, ['http://stuck.test/slow.json'], 'the later request was never put to the fetcher');
    const next = crawlFetcher('next');
    assert.match((await renderer.render(app('http://next.test', BUILD), { fetch: next.fetch })).dom, /built for next/);
  });
});
