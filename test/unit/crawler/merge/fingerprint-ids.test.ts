import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FingerprintIds } from '../../../../crawler/merge/fingerprint-ids.ts';
import { fingerprint } from '../../../../crawler/url/fingerprint.ts';

/** The two halves the merge reads from SQLite: fp >> 32 (signed) and fp & 0xffffffff. */
function halves(fp: bigint): [number, number] {
  return [Number(BigInt.asIntN(32, fp >> 32n)), Number(fp & 0xffffffffn)];
}

describe('FingerprintIds', () => {
  it('gives each fingerprint one id, across growth', () => {
    const ids = new FingerprintIds(16);
    const fps = Array.from({ length: 50_000 }, (_, i) => fingerprint(`http://example.com/page/${i}`));
    let next = 1;
    for (const fp of fps) {
      const [hi, lo] = halves(fp);
      const id = ids.idFor(hi, lo, next);
      assert.equal(id, next);
      next++;
    }
    assert.equal(ids.size, fps.length);
    fps.forEach((fp, i) => {
      const [hi, lo] = halves(fp);
      assert.equal(ids.get(hi, lo), i + 1);
      assert.equal(ids.idFor(hi, lo, 999_999), i + 1, 'a known fingerprint keeps its id');
    });
    assert.equal(ids.size, fps.length);
  });

  it('tells apart fingerprints that share a half, and knows an unknown one', () => {
    const ids = new FingerprintIds();
    ids.idFor(-1, 7, 1);
    ids.idFor(1, 7, 2);
    ids.idFor(-1, 0xffffffff, 3);
    assert.equal(ids.get(-1, 7), 1);
    assert.equal(ids.get(1, 7), 2);
    assert.equal(ids.get(-1, 0xffffffff), 3);
    assert.equal(ids.get(0, 7), 0);
  });
});
