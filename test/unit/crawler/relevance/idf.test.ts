import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BackgroundIdf } from '../../../../crawler/relevance/background-idf.ts';
import { backgroundIdf } from '../../../../crawler/relevance/background-idf.ts';
import { IdfEstimator } from '../../../../crawler/relevance/idf.ts';
import { termsOfWords } from '../../../../crawler/relevance/text.ts';

/** Every term occurs in a document with the same chance, unless listed. */
function flatBackground(rate: number, rates: Record<string, number> = {}): BackgroundIdf {
  return { logDocumentRate: (term) => Math.log(rates[term] ?? rate) };
}

const stem = (word: string): string => termsOfWords([word])[0]!;

test('shipped background: common spoken words weigh less than rare technical ones', () => {
  const idf = new IdfEstimator();
  assert.equal(idf.documents, 0);
  const time = idf.idf(stem('time'));
  const socket = idf.idf(stem('sockets'));
  const checkpoint = idf.idf(stem('checkpoints'));
  const neverSeen = idf.idf('qzxjvw');
  assert.ok(time < socket, `time ${time} < socket ${socket}`);
  assert.ok(time < checkpoint, `time ${time} < checkpoint ${checkpoint}`);
  assert.ok(checkpoint < neverSeen && socket < neverSeen, 'a term missing from the list is rarer than any in it');
  assert.ok(time >= 1, 'the smoothed floor keeps every idf at 1 or more');
  assert.ok(backgroundIdf().logDocumentRate(stem('time')) > backgroundIdf().logDocumentRate(stem('checkpoints')));
});

test('before any page, idf is the background: 1 + ln(1/p_bg)', () => {
  const idf = new IdfEstimator({ background: flatBackground(0.01, { common: 0.5 }) });
  assert.ok(Math.abs(idf.idf('anything') - (1 + Math.log(100))) < 1e-12);
  assert.ok(Math.abs(idf.idf('common') - (1 + Math.log(2))) < 1e-12);
});

test('blending moves from the background to the observed document frequency', () => {
  const pBg = 0.001;
  const idf = new IdfEstimator({ background: flatBackground(pBg), priorPages: 100 });
  const everywhere = (): number => idf.idf('everywhere');
  const start = everywhere();
  const trace: number[] = [];
  for (let n = 1; n <= 10_000; n++) {
    idf.observe(['everywhere', `page${n}`]);
    if (n === 100) {
      // At n = K the observed rate (1) and the background rate weigh the same.
      assert.ok(Math.abs(everywhere() - (1 - Math.log((1 + pBg) / 2))) < 1e-9, `halfway at n = K: ${everywhere()}`);
    }
    if (n % 1000 === 0) trace.push(everywhere());
  }
  assert.equal(idf.documents, 10_000);
  assert.ok(start > 7, 'rare in the background');
  for (let i = 1; i < trace.length; i++) assert.ok(trace[i]! < trace[i - 1]!, 'falls as the evidence grows');
  assert.ok(trace.at(-1)! - 1 < 0.02, `a term on every page ends near the floor of 1: ${trace.at(-1)}`);
  // A term on one page in 10,000 ends near ln(10,000) above the floor.
  assert.ok(Math.abs(idf.idf('page5') - (1 + Math.log(10_100 / (1 + 100 * pBg)))) < 1e-9);
});

test('a term never observed grows rarer as pages come in without it', () => {
  const idf = new IdfEstimator({ background: flatBackground(0.2) });
  const before = idf.idf('absent');
  for (let n = 0; n < 500; n++) idf.observe(['present']);
  assert.ok(idf.idf('absent') > before + 1);
  assert.ok(idf.idf('present') < before);
});

test('a page counts each distinct term once', () => {
  const a = new IdfEstimator({ background: flatBackground(0.01) });
  const b = new IdfEstimator({ background: flatBackground(0.01) });
  a.observe(['x', 'x', 'x', 'y']);
  b.observe(new Set(['x', 'y']));
  assert.equal(a.idf('x'), b.idf('x'));
  assert.equal(a.idf('x'), a.idf('y'));
});

test('memory stays bounded: past maxTerms the rarest terms are forgotten, frequent ones kept', () => {
  const idf = new IdfEstimator({ background: flatBackground(0.001), maxTerms: 1_000 });
  for (let n = 0; n < 5_000; n++) idf.observe(['shared', `only-here-${n}`, `pair-${n >> 1}`]);
  assert.ok(idf.termCount <= 1_000, `${idf.termCount} terms held`);
  const shared = idf.idf('shared');
  assert.ok(Math.abs(shared - (1 + Math.log(5_100 / (5_000 + 100 * 0.001)))) < 1e-9, `a term on every page keeps its document frequency: ${shared}`);
  assert.ok(idf.idf('only-here-3') > idf.idf('pair-2499'), 'forgotten hapaxes count as unseen, rarer than a pair');
});
