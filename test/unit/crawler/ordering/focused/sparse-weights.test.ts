import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SparseWeights } from '../../../../../crawler/ordering/focused/sparse-weights.ts';

describe('sparse weights', () => {
  it('holds what arrays of every token would, through its growth, with 0 and an accumulator of 1 for a new token', () => {
    const table = new SparseWeights();
    const weights = new Float32Array(1 << 16);
    const squared = new Float32Array(1 << 16).fill(1);
    let seed = 11;
    const next = (): number => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0);
    for (let step = 0; step < 20_000; step++) {
      // Tokens crowd at a few values, as a crawl's words do, and spread over the whole range.
      const token = step % 3 === 0 ? next() % 40 : next() % (1 << 16);
      const g = ((next() % 2001) - 1000) / 1000;
      const i = table.claim(token);
      assert.equal(table.weightAt(i), weights[token]);
      squared[token] = (squared[token] as number) + g * g;
      assert.equal(table.addSquaredAt(i, g * g), squared[token], `token ${token}'s accumulator`);
      weights[token] = (weights[token] as number) - g / 10;
      table.setWeightAt(i, (weights[token] as number));
    }
    assert.ok(table.size > 1000, `${table.size} tokens: the table grew several times`);
    for (let token = 0; token < 1 << 16; token += 7) assert.equal(table.weight(token), weights[token], `token ${token}`);
  });

  it('makes copies that later learning does not change', () => {
    const table = new SparseWeights();
    table.setWeightAt(table.claim(5), 0.5);
    const frozen = table.copy();
    table.setWeightAt(table.claim(5), 0.25);
    for (let token = 100; token < 300; token++) table.setWeightAt(table.claim(token), 1);
    assert.equal(frozen.weight(5), 0.5);
    assert.equal(frozen.weight(150), 0);
    assert.equal(frozen.size, 1);
    assert.equal(table.weight(5), 0.25);
    assert.equal(table.weight(150), 1);
  });
});
