import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, describeError } from '../../../../renderer/src/api/errors.ts';
import { isApiReply, unwrapReply } from '../../../../renderer/src/api/reply.ts';
import { PROXY_UNREACHABLE_OUTCOME } from '../../../../crawler/protocol/api.ts';
import { describeOutcome, describeReason, describeRevisit, describeState } from '../../../../renderer/src/lib/words.ts';

describe('renderer words', () => {
  test('crawl states and outcomes in words', () => {
    assert.equal(describeState('running'), 'Crawling');
    assert.equal(describeState('idle'), 'Not crawling');
    assert.equal(describeOutcome(null, 100), null);
    assert.match(describeOutcome('budget', 1500) ?? '', /page budget \(1,500 pages\)/);
    assert.match(describeOutcome('exhausted', 1) ?? '', /nothing in scope/);
    assert.equal(describeOutcome('the crawl stopped on an error: disk full', 1), 'The last run ended: the crawl stopped on an error: disk full.');
  });

  test('a crawl paused by its proxy, and proxy failures, in words', () => {
    const outcome = `${PROXY_UNREACHABLE_OUTCOME}the proxy http://u:***@127.0.0.1:3128 failed 5 requests in a row over 4.0 s`;
    assert.equal(
      describeOutcome(outcome, 10),
      'The crawl paused because its proxy failed every request: the proxy http://u:***@127.0.0.1:3128 failed 5 requests in a row over 4.0 s. Its pages stay queued: start it again once the proxy answers.',
    );
    assert.equal(describeReason('proxy:auth'), 'the proxy refused its credentials (407)');
    assert.equal(describeReason('proxy:bad-gateway'), 'the proxy could not reach the server');
  });

  test('a refresh\'s state, outcomes and revisits in words', () => {
    assert.equal(describeState('running', true), 'Refreshing');
    assert.equal(describeState('paused', true), 'Paused');
    assert.match(describeOutcome('budget', 80, 1200) ?? '', /made the 1,200 fetches it was allowed/);
    assert.match(describeOutcome('exhausted', 80, 12) ?? '', /revisited every page that was due/);
    assert.match(describeOutcome('stopped', 80, 12) ?? '', /goes on where it stopped/);
    assert.equal(describeOutcome('the crawl stopped on an error: disk full', 1, 12), 'The last run ended: the crawl stopped on an error: disk full.');
    assert.match(describeRevisit('not-modified', 304), /unchanged/);
    assert.match(describeRevisit('identical', 200), /unchanged/);
    assert.match(describeRevisit('changed', 200), /new version/);
    assert.equal(describeRevisit('gone', 410), 'gone (the server answered 410)');
  });

  test('failure reasons in words, unknown ones as they are', () => {
    assert.equal(describeReason('http:404'), 'the server answered 404');
    assert.equal(describeReason('dns'), 'the host name could not be found');
    assert.match(describeReason('ssrf:blocked'), /private/);
    assert.match(describeReason('trap:calendar'), /trap \(calendar\)/);
    assert.equal(describeReason('something-new'), 'something-new');
  });

  test('errors never show more than their message', () => {
    assert.equal(describeError(new ApiError('USAGE', 'no crawl of this collection is running')), 'no crawl of this collection is running');
    assert.equal(describeError(new TypeError('x is undefined')), 'Something went wrong: x is undefined');
    assert.match(describeError('weird'), /could not tell what/);
  });
});

describe('API replies', () => {
  test('a successful reply yields its value', () => {
    assert.deepEqual(unwrapReply('info', { ok: true, value: { version: '0.1.0' } }), { version: '0.1.0' });
    assert.equal(unwrapReply('deleteCollection', { ok: true, value: null }), null);
  });

  test('a failed reply throws an ApiError with the service code and words', () => {
    assert.throws(
      () => unwrapReply('exportCollection', { ok: false, error: { code: 'USAGE', message: 'no page matches this selection' } }),
      (error: unknown) => error instanceof ApiError && error.code === 'USAGE' && error.message === 'no page matches this selection',
    );
  });

  test('anything else is a BAD_REPLY ApiError', () => {
    for (const reply of [undefined, null, 'ok', [], { ok: true }, { ok: false, error: 'x' }, { ok: false, error: { code: 1, message: 'm' } }]) {
      assert.equal(isApiReply(reply), false);
      assert.throws(() => unwrapReply('info', reply), (error: unknown) => error instanceof ApiError && error.code === 'BAD_REPLY');
    }
  });
});
