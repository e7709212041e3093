import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { descendantPids } from '../../../../crawler/render/browser-memory.ts';
import { findBrowser } from '../../../../crawler/render/find-browser.ts';
import type { SubresourceFetcher } from '../../../../crawler/render/page-renderer.ts';
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
