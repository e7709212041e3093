/*
 * electron/crawler-process/crawler-process.ts with the real service and viewer, as the utility process
 * runs it: process.parentPort is stood in for (Electron sets it), and main's side is a
 * CrawlerClient on a real MessageChannel. No crawl is started: nothing leaves the machine.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import type { CollectionInfo, ServiceEvent, ServiceInfo } from '../../../../crawler/protocol/api.ts';
import { CrawlerClient } from '../../../../electron/main/crawler-client.ts';
import { storedPageResponse, toWireRequest } from '../../../../electron/shared/crawler-protocol.ts';
import { waitFor } from '../../../support/wait-for.ts';
import { electronStyle } from '../../../support/fake-electron.ts';

let workDir = '';
let dir = '';
let client: CrawlerClient;
const events: ServiceEvent[] = [];
const ports: MessagePort[] = [];

before(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), 'forager-crawler-process-'));
  dir = path.join(workDir, 'collections');
  const parentPort = new EventEmitter();
  (process as unknown as { parentPort: EventEmitter }).parentPort = parentPort;
  await import('../../../../electron/crawler-process/crawler-process.ts');
  const { port1, port2 } = new MessageChannel();
  ports.push(port1, port2);
  client = new CrawlerClient(electronStyle(port1), (event) => events.push(event));
  parentPort.emit('message', { data: { dir }, ports: [electronStyle(port2)] });
});

after(async () => {
  await client.close();
  for (const port of ports) port.close();
  delete (process as unknown as { parentPort?: unknown }).parentPort;
  await rm(workDir, { recursive: true, force: true });
});

describe('electron/crawler-process/crawler-process.ts (real service and viewer)', () => {
  test('the service serves the collections folder main named', async () => {
    const reply = await client.call('info', {});
    assert.equal(reply.ok, true);
    if (!reply.ok) return;
    const info = reply.value as ServiceInfo;
    assert.equal(info.location, dir);
    assert.equal(info.canManageCollections, true);
    assert.ok(existsSync(dir));
  });

  test('calls are validated again in the crawler process', async () => {
    const reply = await client.call('crawlStatus', { collection: 'wal', dir: '/etc' });
    assert.equal(reply.ok, false);
    if (!reply.ok) assert.equal(reply.error.code, 'INVALID_INPUT');
  });

  test('a collection created over the port exists, and the service says so with an event', async () => {
    const created = await client.call('createCollection', { name: 'My Crawl', query: 'write-ahead logging', seeds: ['https://www.sqlite.org/wal.html'], start: false });
    assert.equal(created.ok, true, JSON.stringify(created));
    const listed = await client.call('listCollections', {});
    assert.equal(listed.ok, true);
    if (!listed.ok) return;
    assert.deepEqual((listed.value as CollectionInfo[]).map((c) => c.id), ['My Crawl']);
    await waitFor(() => events.some((e) => e.type === 'collections' && e.collections.some((c) => c.id === 'My Crawl')));
  });

  test('errors of the service keep their code', async () => {
    const reply = await client.call('crawlStatus', { collection: 'no such collection' });
    assert.equal(reply.ok, false);
    if (!reply.ok) assert.notEqual(reply.error.code, 'INTERNAL');
  });

  test('the viewer answers forager-page requests with its policy, framed only by the app, plus the floor', async () => {
    const response = storedPageResponse(await client.view(toWireRequest(new Request('forager-page://My%20Crawl/1'))));
    assert.equal(response.status, 404, 'an empty collection has no page 1');
    const policy = response.headers.get('content-security-policy') ?? '';
    assert.match(policy, /frame-ancestors app:/);
    assert.match(policy, /default-src 'none'/);
    assert.match(policy, /form-action 'none'/);
    assert.match(await response.text(), /no page 1/);
  });

  test('the external-link page is served for web links', async () => {
    const response = storedPageResponse(await client.view(toWireRequest(new Request(`forager-page://external/?url=${encodeURIComponent('https://example.org/a')}`))));
    assert.equal(response.status, 200);
    assert.match(await response.text(), /example\.org/);
  });

  test('an export file that does not exist is undefined', async () => {
    assert.equal(await client.exportFile('0123456789abcdef01234567'), undefined);
  });
});
