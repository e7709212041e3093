import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ANCHOR_WEIGHT, createNaiveStrategy, HOT_PARENT_BONUS, URL_WEIGHT } from '../../../../crawler/ordering/naive.ts';

const link = (srcId: number | null, dstId: number, url: string, anchor: string, isNew = true) => ({ srcId, dstId, isNew, url, depth: 1, anchor, context: '' });

test('naive: 2 × query terms in the anchor + query terms in the URL + 1.5 under a hot page, fixed at first sight', () => {
  const s = createNaiveStrategy({ query: 'socket servers', randomSeed: 1 });
  s.linked(link(null, 1, 'http://d.test/', ''));
  s.linked(link(1, 2, 'http://d.test/a.html', 'Socket servers and sockets'));
  s.linked(link(1, 3, 'http://d.test/socket.html', 'Next'));
  s.linked(link(1, 4, 'http://d.test/b.html', 'Weather'));
  s.fetched({ id: 1, relevance: 0.9, hot: true, terms: [], outlinks: [2, 3, 4] });
  assert.deepEqual(s.takeChanged().sort(), [2, 3, 4], 'the hot parent\'s verdict reaches the URLs first seen on it');
  assert.equal(s.priority(2), 2 * ANCHOR_WEIGHT + HOT_PARENT_BONUS, 'each query term counts once');
  assert.equal(s.priority(3), URL_WEIGHT + HOT_PARENT_BONUS);
  assert.equal(s.priority(4), HOT_PARENT_BONUS);
  // A better anchor seen later changes nothing: the priority was fixed when the link was first seen.
  s.linked(link(4, 3, 'http://d.test/socket.html', 'socket servers', false));
  s.fetched({ id: 4, relevance: 0, hot: false, terms: [], outlinks: [3] });
  assert.equal(s.priority(3), URL_WEIGHT + HOT_PARENT_BONUS);
  assert.deepEqual(s.takeChanged(), []);
  const why = s.explain(2);
  assert.equal(why.signals.reduce((sum, x) => sum + x.contribution, 0), why.priority);
});
