import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QueryAcronyms } from '../../../../crawler/relevance/acronyms.ts';
import { CrawlJudge, type JudgedPage } from '../../../../crawler/relevance/judge.ts';
import { evidenceOfRelevance } from '../../../../crawler/relevance/relevance.ts';
import { termCounts } from '../../../../crawler/relevance/text.ts';

test('an acronym of a query phrase is taken up once a page defines it, either way round', () => {
  const wal = new QueryAcronyms('write-ahead logging and checkpoints');
  assert.deepEqual(wal.observe('WAL is used everywhere here; wal wal.'), [], 'its letters alone are no definition');
  assert.deepEqual(wal.observe('Write-Ahead Logging (WAL) is a standard method'), [{ term: 'wal', longForm: ['write', 'ahead', 'log'] }]);
  assert.deepEqual(wal.observe('Write-Ahead Logging (WAL) again'), [], 'once');
  assert.equal(wal.confirmed.length, 1);
  const fft = new QueryAcronyms('fast Fourier transforms');
  assert.deepEqual(fft.observe('the FFT (fast Fourier transform) of a signal').map((a) => a.term), ['fft']);
  const none = new QueryAcronyms('sockets and servers');
  assert.deepEqual(none.observe('Secure Shell (SS) and sockets'), [], 'a stop word breaks a phrase, and two letters are too few');
});

let nextId = 1;
function page(title: string, text: string): JudgedPage {
  return { urlId: nextId++, site: 'http://docs.test', title, text, titleTerms: termCounts(title), bodyTerms: termCounts(text) };
}

test('once defined, an acronym\'s mentions count as mentions of its phrase', () => {
  const judge = new CrawlJudge({ query: 'write-ahead logging and checkpoints', hotPredicate: null, hotThreshold: null });
  const walPage = page('Reliability', 'The WAL records changes; WAL files are recycled at a checkpoint. '.repeat(5));
  const before = judge.judge(walPage).relevance ?? 0;
  judge.judge(page('Write-Ahead Logging', 'Write-Ahead Logging (WAL) is a standard method for ensuring data integrity.'));
  const after = judge.judge({ ...walPage, urlId: nextId++ }).relevance ?? 0;
  assert.ok(evidenceOfRelevance(after) > 1.5 * evidenceOfRelevance(before), `relevance ${before} → ${after}`);
});
