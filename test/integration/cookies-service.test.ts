import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CollectionLockedError } from '../../crawler/errors.ts';
import { parseCookiesTxt } from '../../crawler/net/cookies-txt.ts';
import { ForagerService } from '../../crawler/service/service.ts';
import { importCookies, storedCookies } from '../../crawler/store/cookie-store.ts';
import { openCollection } from '../../crawler/store/database.ts';
import { saveSettings } from '../../crawler/store/settings-store.ts';
import { WriterLock } from '../../crawler/store/writer-lock.ts';
import { tempDir, testSettings } from '../support/crawl-harness.ts';

const VALUE = 'SECRET-SERVICE-COOKIE-VALUE-9a4e';

describe('the service and a collection\'s session', () => {
  const dir = tempDir('forager-cookies-service-');
  after(() => dir.cleanup());

  function collectionWithSession(name: string): string {
    const path = join(dir.dir, `${name}.forager`);
    const db = openCollection(path, { create: true });
    saveSettings(db, testSettings(['https://library.example.org/'], { query: 'library catalogue' }));
    importCookies(db, parseCookiesTxt(`.library.example.org\tTRUE\t/\tTRUE\t0\tsid\t${VALUE}\nlibrary.example.org\tFALSE\t/app\tFALSE\t0\tcsrf\t${VALUE}`, 'cookies.txt'));
    db.close();
    return path;
  }

  function storedCount(path: string): number {
    const db = openCollection(path, { create: false, readonly: true });
    try {
      return storedCookies(db).length;
    } finally {
      db.close();
    }
  }

  it('lists the session with the collection (never a value), and forgets it under the writer lock', async () => {
    const path = collectionWithSession('shelf');
    collectionWithSession('other');
    const service = new ForagerService({ dir: dir.dir });
    try {
      const listed = await service.listCollections();
      assert.deepEqual(listed.find((c) => c.id === 'shelf')?.session, { cookies: 2, domains: ['library.example.org'] });
      assert.ok(!JSON.stringify(listed).includes(VALUE));

      const held = WriterLock.acquire(path, 'forager crawl (command line)');
      try {
        await assert.rejects(service.forgetSession({ collection: 'shelf' }), (err: unknown) => err instanceof CollectionLockedError && /being written by forager crawl/.test(err.message));
      } finally {
        held.release();
      }
      assert.equal(storedCount(path), 2, 'a refused forget changes nothing');

      const after = await service.forgetSession({ collection: 'shelf' });
      assert.equal(after.session, null);
      assert.equal(storedCount(path), 0);
      assert.deepEqual((await service.listCollections()).find((c) => c.id === 'other')?.session?.cookies, 2, 'only that collection forgot');
    } finally {
      await service.close();
    }
  });
});
