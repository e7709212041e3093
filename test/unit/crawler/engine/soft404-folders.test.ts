import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FOLDER_PROBES_PER_HOST, folderOf, PAGES_BEFORE_FOLDER_PROBE, Soft404Folders } from '../../../../crawler/engine/soft404-folders.ts';
import { simhashFromInt, simhashToInt } from '../../../../crawler/relevance/simhash.ts';
import { openCollection } from '../../../../crawler/store/database.ts';
import { Soft404Store } from '../../../../crawler/store/soft404-store.ts';

const ROOT = simhashFromInt(0x1111n);
const WIKI = simhashFromInt(0x2222n);

function folders(): { folders: Soft404Folders; store: Soft404Store; reopen: () => Soft404Folders } {
  const db = openCollection(':memory:', { create: true });
  db.prepare("INSERT INTO hosts (origin) VALUES ('http://a')").run();
  const store = new Soft404Store(db);
  return { folders: new Soft404Folders(store), store, reopen: () => new Soft404Folders(new Soft404Store(db)) };
}

describe('soft 404s per folder', () => {
  it('names the folder of a URL', () => {
    assert.equal(folderOf('http://a/wiki/Page'), '/wiki/');
    assert.equal(folderOf('http://a/a/b/c.html?x=1'), '/a/b/');
    assert.equal(folderOf('http://a/top'), '/');
    assert.equal(folderOf('http://a/dir/'), '/dir/');
  });

  it('asks to probe a folder once its third page is taken, never the root (the host probe covers it), and stops at the cap', () => {
    const { folders: f } = folders();
    assert.equal(PAGES_BEFORE_FOLDER_PROBE, 3);
    for (let i = 0; i < 5; i++) assert.equal(f.folderToProbe(1, `http://a/page${i}`), undefined);
    assert.equal(f.folderToProbe(1, 'http://a/wiki/A'), undefined, 'a folder of one page is not worth a probe');
    assert.equal(f.folderToProbe(1, 'http://a/wiki/B'), undefined);
    assert.equal(f.folderToProbe(1, 'http://a/wiki/X'), '/wiki/');
    f.learnt(1, '/wiki/', WIKI, simhashToInt(WIKI));
    assert.equal(f.folderToProbe(1, 'http://a/wiki/Y'), undefined);
    for (let i = 1; i < FOLDER_PROBES_PER_HOST; i++) f.learnt(1, `/f${i}/`, null, null);
    for (let i = 0; i < PAGES_BEFORE_FOLDER_PROBE; i++) assert.equal(f.folderToProbe(1, `http://a/another/page${i}`), undefined, 'the host has spent its probes');
    const other = [0, 1, 2].map((i) => f.folderToProbe(2, `http://b/another/page${i}`));
    assert.deepEqual(other, [undefined, undefined, '/another/'], 'another host has its own');
  });

  it("compares a page with its folder's answer, its nearest probed ancestor's, else the root's", () => {
    const { folders: f, reopen } = folders();
    f.learnt(1, '/wiki/', WIKI, simhashToInt(WIKI));
    f.learnt(1, '/docs/', null, null);
    assert.equal(f.signatureFor(1, 'http://a/wiki/Page', ROOT), WIKI);
    assert.equal(f.signatureFor(1, 'http://a/wiki/deep/Page', ROOT), WIKI, 'a subfolder inherits');
    assert.equal(f.signatureFor(1, 'http://a/docs/intro', ROOT), null, 'a folder that answers a real 404 has no soft 404');
    assert.equal(f.signatureFor(1, 'http://a/other/x', ROOT), ROOT);
    assert.equal(f.signatureFor(2, 'http://b/wiki/x', null), null);
    // Learnt probes are stored: a new run knows them.
    const again = reopen();
    assert.deepEqual(again.signatureFor(1, 'http://a/wiki/Page', ROOT), WIKI);
    assert.equal(again.folderToProbe(1, 'http://a/wiki/Z'), undefined);
  });
});
