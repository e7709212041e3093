import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CrawlEngine, type EngineState, type PageEvent } from '../../../../crawler/engine/engine.ts';
import { openCollection } from '../../../../crawler/store/database.ts';
import { tempDir, testSettings } from '../../../support/crawl-harness.ts';

const tmp = tempDir('forager-engine-events-');
after(() => tmp.cleanup());

/**
 * Never called: `tsc` checks it. Each @ts-expect-error must meet an error, so a listener
 * with the wrong payload, or an event the engine does not have, stops the type-check.
 */
export function listenersTheEventMapRefuses(engine: CrawlEngine): void {
  // @ts-expect-error a page is an object, not a URL string
  engine.on('page', (page: string) => page.length);
  // @ts-expect-error a failure carries willRetry as a boolean
  engine.on('failure', (failure: { url: string; willRetry: string }) => failure.willRetry);
  // @ts-expect-error a blocked URL carries its reason
  engine.on('blocked', (blocked: { url: string; status: number }) => blocked.status);
  // @ts-expect-error the state is 'running' or 'paused'
  engine.on('state', (state: 'stopped') => state);
  // @ts-expect-error the engine has no 'done' event
  engine.on('done', () => undefined);
  // @ts-expect-error 'page' is emitted with a PageEvent
  engine.emit('page', { url: 'https://example.org/' });
  // Listeners that read less than the payload are fine.
  engine.on('page', (page: { url: string; hot: boolean }) => page.hot);
  engine.once('page', (page: PageEvent) => page.outlinks);
}

describe('CrawlEngine events', () => {
  it('types the payloads its listeners get, and emits state on pause and resume', () => {
    const db = openCollection(join(tmp.dir, 'events.db'), { create: true });
    try {
      const engine = new CrawlEngine(db, testSettings(['https://example.org/']), { parseWorkers: 0 });
      const states: EngineState[] = [];
      engine.on('state', (state) => states.push(state));
      engine.pause();
      engine.pause();
      engine.resume();
      assert.deepEqual(states, ['paused', 'running']);
      assert.equal(engine.listenerCount('state'), 1);
    } finally {
      db.close();
    }
  });
});
