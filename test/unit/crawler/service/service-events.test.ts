import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServiceEvent } from '../../../../crawler/protocol/api.ts';
import { ForagerService } from '../../../../crawler/service/service.ts';
import { tempDir } from '../../../support/crawl-harness.ts';

/** Never called: `tsc` checks it (see engine-events.test.ts). */
export function listenersTheEventMapRefuses(service: ForagerService): void {
  // @ts-expect-error 'event' carries a ServiceEvent
  service.on('event', (event: string) => event);
  // @ts-expect-error the service has no 'status' event: statuses travel inside 'event'
  service.on('status', () => undefined);
  // @ts-expect-error 'ended:<collection>' has no payload
  service.on('ended:wal', (collection: string) => collection);
  // @ts-expect-error 'event' is emitted with a ServiceEvent
  service.emit('event', { type: 'nothing' });
  service.once('ended:wal', () => undefined);
}

describe('ForagerService events', () => {
  it('gives its listeners typed ServiceEvents', async () => {
    const tmp = tempDir('forager-service-events-');
    const service = new ForagerService({ dir: tmp.dir });
    try {
      const events: ServiceEvent[] = [];
      const pushed = new Promise<void>((resolve) => {
        service.on('event', (event) => {
          events.push(event);
          if (event.type === 'collections') resolve();
        });
      });
      await service.createCollection({ query: 'write-ahead logging', seeds: ['https://example.org/'], start: false });
      await pushed;
      const collections = events.find((e) => e.type === 'collections');
      assert.ok(collections?.type === 'collections');
      assert.deepEqual(collections.collections.map((c) => c.query), ['write-ahead logging']);
    } finally {
      await service.close();
      tmp.cleanup();
    }
  });
});
