import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRoute, routeHash, type Route } from '../../../../renderer/src/lib/route.ts';

describe('hash routes', () => {
  test('top-level screens', () => {
    assert.deepEqual(parseRoute(''), { screen: 'collections' });
    assert.deepEqual(parseRoute('#/'), { screen: 'collections' });
    assert.deepEqual(parseRoute('#/collections'), { screen: 'collections' });
    assert.deepEqual(parseRoute('#/new'), { screen: 'new' });
    assert.deepEqual(parseRoute('#/cluster'), { screen: 'cluster' });
  });

  test('collection screens, with a dashboard by default and a page in the library', () => {
    assert.deepEqual(parseRoute('#/c/wal/dashboard'), { screen: 'dashboard', collection: 'wal' });
    assert.deepEqual(parseRoute('#/c/wal'), { screen: 'dashboard', collection: 'wal' });
    assert.deepEqual(parseRoute('#/c/wal/library/42'), { screen: 'library', collection: 'wal', seq: 42 });
    assert.deepEqual(parseRoute('#/c/wal/library/42/v3'), { screen: 'library', collection: 'wal', seq: 42, version: 3 });
    assert.deepEqual(parseRoute('#/c/wal/library/42/p12'), { screen: 'library', collection: 'wal', seq: 42, documentPage: 12 }, 'a PDF opened at a page');
    assert.deepEqual(parseRoute('#/c/wal/export/'), { screen: 'export', collection: 'wal' });
  });

  test('unknown or malformed addresses are not found', () => {
    for (const hash of [
      '#/c/wal/settings', '#/c/wal/library/0', '#/c/wal/lab/3', '#/c//dashboard', '#/c/%E0%A4%A/lab', '#/elsewhere',
      '#/c/wal/library/4/v0', '#/c/wal/library/4/3', '#/c/wal/library/4/v2/x', '#/c/wal/lab/4/v2',
      '#/c/wal/library/4/p0', '#/c/wal/library/4/p', '#/c/wal/library/4/p2/v1', '#/c/wal/lab/4/p2',
    ]) {
      assert.equal(parseRoute(hash).screen, 'not-found', hash);
    }
  });

  test('routeHash and parseRoute round-trip, names with spaces and slashes included', () => {
    const routes: Route[] = [
      { screen: 'collections' },
      { screen: 'new' },
      { screen: 'cluster' },
      { screen: 'dashboard', collection: 'write ahead/log' },
      { screen: 'library', collection: 'wal', seq: 7 },
      { screen: 'library', collection: 'wal', seq: 7, version: 2 },
      { screen: 'library', collection: 'wal', seq: 7, documentPage: 12 },
      { screen: 'library', collection: 'wal' },
      { screen: 'lab', collection: 'ü-docs' },
      { screen: 'export', collection: 'wal_2' },
    ];
    for (const route of routes) assert.deepEqual(parseRoute(routeHash(route)), route);
    assert.equal(routeHash({ screen: 'dashboard', collection: 'a b' }), '#/c/a%20b/dashboard');
  });
});
