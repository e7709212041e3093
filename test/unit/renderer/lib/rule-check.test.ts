import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { verdictWords } from '../../../../renderer/src/lib/rule-check.ts';

describe('verdictWords', () => {
  const url = 'https://docs.example/a';
  test('says yes for a seed and an admitted URL', () => {
    assert.deepEqual(verdictWords({ crawled: true, url, why: 'seed' }), { crawled: true, text: 'Crawled: it is a seed, and seeds are always fetched.' });
    assert.match(verdictWords({ crawled: true, url, why: 'admitted' }).text, /^Crawled: it is in scope and the rules admit it/);
  });

  test('names what refuses: the scope, the exclude pattern, the includes', () => {
    assert.equal(verdictWords({ crawled: false, url, why: 'scope', detail: 'host x is not a seed host (y)' }).text, 'Refused: out of scope (host x is not a seed host (y)).');
    assert.equal(verdictWords({ crawled: false, url, why: 'rule:exclude', pattern: '**/*.zip' }).text, 'Refused: excluded by the pattern “**/*.zip”.');
    assert.equal(verdictWords({ crawled: false, url, why: 'rule:not-included', includes: 1 }).text, 'Refused: it does not match the include pattern.');
    assert.equal(verdictWords({ crawled: false, url, why: 'rule:not-included', includes: 3 }).text, 'Refused: not included by any of the 3 include patterns.');
    assert.equal(verdictWords({ crawled: false, url, why: 'no-seeds', detail: 'give one first' }).crawled, false);
  });
});
