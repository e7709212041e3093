import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STORED_PAGE_SCHEME, STORED_PREFIX } from '../../../../crawler/protocol/wire.ts';
import { parseViewerUrl, versionViewPath } from '../../../../crawler/viewer/viewer-url.ts';

describe('viewer addresses of an earlier version of a page', () => {
  it('reads back versionViewPath under both transports', () => {
    for (const name of ['My crawl', 'ünïcödé', 'a%2Fb', 'external']) {
      const path = versionViewPath(name, 42, 3);
      const serve = parseViewerUrl(new URL(`${STORED_PREFIX}${path}`, 'http://127.0.0.1:8080'), 'serve');
      const protocol = parseViewerUrl(new URL(`${STORED_PAGE_SCHEME}://${path}`), 'protocol');
      for (const target of [serve, protocol]) assert.deepEqual(target, { kind: 'page', collection: name, seq: 42, version: 3 }, name);
    }
  });

  it('refuses a version that is no version number, and keeps the latest when none is asked for', () => {
    const parse = (path: string) => parseViewerUrl(new URL(path, 'http://127.0.0.1:8080'), 'serve');
    for (const version of ['0', '-1', '1.5', 'two', '', '01', '9999999999']) {
      assert.equal(parse(`/stored/c/4?version=${version}`), undefined, version);
    }
    assert.deepEqual(parse('/stored/c/4'), { kind: 'page', collection: 'c', seq: 4 });
    assert.deepEqual(parse('/stored/c/4?other=1'), { kind: 'page', collection: 'c', seq: 4 });
  });
});
