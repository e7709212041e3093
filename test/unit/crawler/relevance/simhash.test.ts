import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hammingDistance, NearDuplicateIndex, simhash, simhashFromInt, simhashToInt, type Simhash } from '../../../../crawler/relevance/simhash.ts';
import { termCounts } from '../../../../crawler/relevance/text.ts';
import { pseudoWords } from '../../../support/random.ts';

const words = (seed: number, count: number): string => pseudoWords(seed, count, 'term', 5000);

const hashOf = (text: string): Simhash => simhash(termCounts(text)) as Simhash;

test('a page and the same page with a few words changed are within 3 bits; other pages are far', () => {
  const page = words(1, 400);
  const edited = page.replace(/term\d+/, 'altered').replace(/term\d+ term\d+$/, 'closing words');
  const other = words(2, 400);
  assert.ok(hammingDistance(hashOf(page), hashOf(edited)) <= 3, `edited: ${hammingDistance(hashOf(page), hashOf(edited))} bits`);
  assert.ok(hammingDistance(hashOf(page), hashOf(other)) > 10, `other: ${hammingDistance(hashOf(page), hashOf(other))} bits`);
  assert.equal(hammingDistance(hashOf(page), hashOf(page)), 0);
});

test('too little text has no fingerprint', () => {
  assert.equal(simhash(termCounts('a short page with five words')), null);
});

test('the fingerprint survives SQLite as a signed 64-bit integer', () => {
  for (const h of [{ hi: 0xffffffff, lo: 0xffffffff }, { hi: 0x80000000, lo: 1 }, { hi: 0, lo: 0 }, hashOf(words(3, 200))]) {
    assert.deepEqual(simhashFromInt(simhashToInt(h)), h);
  }
});

test('the index finds the earliest stored page within 3 bits, comparing only pages that share a block', () => {
  const index = new NearDuplicateIndex();
  const base = { hi: 0x12345678, lo: 0x9abcdef0 };
  index.add(5, base);
  index.add(9, { hi: base.hi ^ 0b1, lo: base.lo });
  index.add(12, { hi: ~base.hi >>> 0, lo: ~base.lo >>> 0 });
  assert.equal(index.find({ hi: base.hi ^ 0b100, lo: base.lo ^ 0b11 }), 5, '3 bits away');
  assert.equal(index.find({ hi: base.hi ^ 0b11110, lo: base.lo }), undefined, '4 bits from one, 5 from the other');
  // Flips spread over all four blocks: no block matches, and 4 bits is too far anyway.
  assert.equal(index.find({ hi: (base.hi ^ 0x00020002) >>> 0, lo: (base.lo ^ 0x00020002) >>> 0 }), undefined);
});

test('the index answers as a comparison with every stored page would, before and after each time its keys grow', () => {
  let state = 7;
  const random32 = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state;
  };
  const index = new NearDuplicateIndex();
  const stored: { seq: number; hash: Simhash }[] = [];
  const probe = (count: number): void => {
    for (let i = 0; i < count; i++) {
      const near = stored[random32() % stored.length]!.hash;
      const hash = i % 2 === 0 ? { hi: (near.hi ^ (1 << (random32() % 32))) >>> 0, lo: near.lo } : { hi: random32(), lo: random32() };
      const expected = stored.find((s) => hammingDistance(s.hash, hash) <= 3)?.seq;
      assert.equal(index.find(hash), expected, `with ${stored.length} pages stored`);
    }
  };
  for (let seq = 1; seq <= 5000; seq++) {
    // Some pages copy an earlier one with a few bits flipped, so that near-duplicates exist.
    const source = seq % 5 === 0 ? stored[random32() % stored.length] : undefined;
    const hash = source === undefined ? { hi: random32(), lo: random32() } : { hi: (source.hash.hi ^ (1 << (random32() % 32))) >>> 0, lo: (source.hash.lo ^ (1 << (random32() % 32))) >>> 0 };
    stored.push({ seq, hash });
    index.add(seq, hash);
    // The keys grow past 1,024 and 4,096 entries.
    if (seq === 1024 || seq === 1025 || seq === 4096 || seq === 4097) probe(100);
  }
  assert.equal(index.size, 5000);
  probe(400);
});
