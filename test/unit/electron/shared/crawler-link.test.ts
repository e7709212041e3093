/*
 * Main's CrawlerClient and the crawler process's serveCrawler, joined by a real
 * MessageChannel (so every message is structured-cloned as between Electron processes),
 * with a stand-in service and viewer.
 */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import type { ServiceEvent } from '../../../../crawler/protocol/api.ts';
import type { ApiReply } from '../../../../crawler/protocol/wire.ts';
import { CrawlerClient } from '../../../../electron/main/crawler-client.ts';
import { serveCrawler } from '../../../../electron/crawler-process/crawler-host.ts';
import type { Dispatch, PageHandler } from '../../../../electron/crawler-process/crawler-host.ts';
import { storedPageResponse, toWireRequest } from '../../../../electron/shared/crawler-protocol.ts';
import { viewerRoutes } from '../../../../crawler/viewer/viewer-url.ts';
import type { ViewerTarget } from '../../../../crawler/viewer/viewer-url.ts';
import { waitFor } from '../../../support/wait-for.ts';
import { electronStyle, FakeService } from '../../../support/fake-electron.ts';

const { pageHref, externalHref } = viewerRoutes('protocol');

interface Link {
  client: CrawlerClient;
  service: FakeService;
  events: ServiceEvent[];
  calls: { method: unknown; input: unknown }[];
  views: { url: string; method: string; target: ViewerTarget }[];
}

const openPorts: MessagePort[] = [];

afterEach(() => {
  for (const port of openPorts.splice(0)) port.close();
});

function link(options: { dispatch?: Dispatch; viewPage?: PageHandler } = {}): Link {
  const { port1, port2 } = new MessageChannel();
  openPorts.push(port1, port2);
  const service = new FakeService();
  const events: ServiceEvent[] = [];
  const calls: Link['calls'] = [];
  const views: Link['views'] = [];
  const dispatch: Dispatch = options.dispatch ?? (async (method, input) => {
    calls.push({ method, input });
    return { ok: true, value: { method, input } };
  });
  const viewPage: PageHandler = options.viewPage ?? (async (request, target) => {
    views.push({ url: request.url, method: request.method, target });
    return new Response('<p>stored</p>', {
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'" },
    });
  });
  serveCrawler(electronStyle(port2), service, dispatch, viewPage);
  const client = new CrawlerClient(electronStyle(port1), (event) => events.push(event));
  return { client, service, events, calls, views };
}

describe('calls', () => {
  test('a call reaches the dispatcher with its method and input, and the reply comes back', async () => {
    const { client, calls } = link();
    const reply = await client.call('getPage', { collection: 'wal', seq: 3 });
    assert.deepEqual(calls, [{ method: 'getPage', input: { collection: 'wal', seq: 3 } }]);
    assert.deepEqual(reply, { ok: true, value: { method: 'getPage', input: { collection: 'wal', seq: 3 } } });
  });

  test('concurrent calls each get their own answer, whatever the order they finish in', async () => {
    const { client } = link({
      dispatch: async (_method, input) => {
        const delay = (input as { delay: number }).delay;
        await new Promise((resolve) => setTimeout(resolve, delay));
        return { ok: true, value: delay };
      },
    });
    const replies = await Promise.all([30, 1, 15].map((delay) => client.call('info', { delay })));
    assert.deepEqual(replies.map((r) => (r.ok ? r.value : r.error.code)), [30, 1, 15]);
  });

  test('a dispatcher that throws still answers, as an internal error', async () => {
    const { client } = link({ dispatch: async () => { throw new Error('disk on fire'); } });
    const reply = await client.call('info', {});
    assert.equal(reply.ok, false);
    if (!reply.ok) assert.equal(reply.error.code, 'INTERNAL');
  });

  test('a value that cannot cross the port still answers, as an internal error', async () => {
    const { client } = link({ dispatch: async (): Promise<ApiReply> => ({ ok: true, value: { run: () => 1 } }) });
    const reply = await client.call('info', {});
    assert.equal(reply.ok, false);
    if (!reply.ok) assert.equal(reply.error.code, 'INTERNAL');
  });
});

describe('events and exports', () => {
  test('service events reach main in order', async () => {
    const { service, events } = link();
    service.emit({ type: 'collections', collections: [] });
    service.emit({ type: 'collections', collections: [] });
    await waitFor(() => events.length === 2);
    assert.deepEqual(events, [{ type: 'collections', collections: [] }, { type: 'collections', collections: [] }]);
  });

  test('an export file is found by its id, an unknown id is undefined', async () => {
    const { client, service } = link();
    service.exports.set('abc123', { path: '/tmp/forager-exports-x/abc123.jsonl', fileName: 'wal.jsonl' });
    assert.deepEqual(await client.exportFile('abc123'), { path: '/tmp/forager-exports-x/abc123.jsonl', fileName: 'wal.jsonl' });
    assert.equal(await client.exportFile('nope'), undefined);
  });

  test('close asks the service to close', async () => {
    const { client, service } = link();
    await client.close();
    assert.equal(service.closed, 1);
  });
});

describe('stored pages', () => {
  test('a page request reaches the viewer with its target, and the response comes back whole', async () => {
    const { client, views } = link();
    const href = pageHref('My Crawl', 7);
    const wire = await client.view(toWireRequest(new Request(href, { headers: { accept: 'text/html' } })));
    assert.deepEqual(views, [{ url: href, method: 'GET', target: { kind: 'page', collection: 'My Crawl', seq: 7 } }]);
    const response = storedPageResponse(wire);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(await response.text(), '<p>stored</p>');
  });

  test("main adds its CSP floor to the viewer's policy instead of replacing it", async () => {
    const { client } = link();
    const response = storedPageResponse(await client.view(toWireRequest(new Request(pageHref('wal', 1)))));
    const policies = response.headers.get('content-security-policy') ?? '';
    assert.ok(policies.includes("default-src 'none'"), policies);
    assert.ok(policies.includes("script-src 'none'"), policies);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
  });

  test('the collection in the host keeps its case and spaces', async () => {
    const { client, views } = link();
    await client.view(toWireRequest(new Request('forager-page://My%20Crawl/7')));
    await client.view(toWireRequest(new Request('forager-page://my%20crawl/7')));
    assert.deepEqual(views.map((v) => v.target), [
      { kind: 'page', collection: 'My Crawl', seq: 7 },
      { kind: 'page', collection: 'my crawl', seq: 7 },
    ]);
  });

  test('an external-link request reaches the viewer as an external target', async () => {
    const { client, views } = link();
    await client.view(toWireRequest(new Request(externalHref('https://example.org/a?b=1'))));
    assert.deepEqual(views.map((v) => v.target), [{ kind: 'external', url: 'https://example.org/a?b=1' }]);
  });

  test('URLs that name no page, and external links off the web, are 404 without asking the viewer', async () => {
    const { client, views } = link();
    for (const url of [
      'forager-page://wal/0',
      'forager-page://wal/x',
      'forager-page://wal/3/4',
      'forager-page://external/',
      externalHref('javascript:alert(1)'),
      externalHref('file:///etc/passwd'),
      externalHref('https://bank.example@evil.example/'),
    ]) {
      const wire = await client.view(toWireRequest(new Request(url)));
      assert.equal(wire.status, 404, url);
    }
    assert.equal(views.length, 0);
  });

  test('only GET and HEAD reach the viewer', async () => {
    const { client, views } = link();
    const wire = await client.view(toWireRequest(new Request(pageHref('wal', 1), { method: 'POST', body: 'x' })));
    assert.equal(wire.status, 405);
    assert.equal(views.length, 0);
  });

  test('a viewer that throws gives a 500 page', async () => {
    const { client } = link({ viewPage: async () => { throw new Error('broken page'); } });
    const wire = await client.view(toWireRequest(new Request(pageHref('wal', 1))));
    assert.equal(wire.status, 500);
    assert.equal(storedPageResponse(wire).status, 500);
  });
});

describe('a crawler process that is gone', () => {
  test('open and later requests are answered at once, none waits forever', async () => {
    const { client } = link({ dispatch: () => new Promise<ApiReply>(() => undefined) });
    const open = client.call('info', {});
    await new Promise((resolve) => setTimeout(resolve, 20));
    client.abandon('The crawler process stopped (exit code 9).');
    assert.deepEqual(await open, { ok: false, error: { code: 'UNAVAILABLE', message: 'The crawler process stopped (exit code 9).' } });
    assert.equal(client.abandoned, true);
    const later = await client.call('info', {});
    assert.equal(later.ok, false);
    assert.equal((await client.view(toWireRequest(new Request(pageHref('wal', 1))))).status, 503);
    assert.equal(await client.exportFile('abc'), undefined);
    await client.close();
  });
});
