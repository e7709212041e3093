import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiOver } from '../../../../renderer/src/api/api-proxy.ts';
import { ApiError } from '../../../../renderer/src/api/errors.ts';

test('the client is the contract over the transport: each method is a call of its name', async () => {
  const calls: [string, unknown][] = [];
  const api = apiOver({
    call: async (method, input) => {
      calls.push([method, input]);
      return method === 'getPage' ? { ok: false, error: { code: 'NOT_FOUND', message: 'no such page' } } : { ok: true, value: `${method} done` };
    },
  });
  assert.equal(await api.listPages({ collection: 'c', sort: 'relevance' } as never), 'listPages done');
  assert.equal(await api.info(), 'info done');
  assert.deepEqual(calls, [['listPages', { collection: 'c', sort: 'relevance' }], ['info', {}]], 'a method without input sends an empty object');
  assert.strictEqual(api.runLab, api.runLab, 'one function per method');
  assert.equal((api as unknown as { then?: unknown }).then, undefined, 'the API object is not a promise');
  await assert.rejects(api.getPage({ collection: 'c', seq: 1 }), (e: unknown) => e instanceof ApiError && e.code === 'NOT_FOUND' && e.message === 'no such page');
});

test('a reply that is not an ApiReply is refused in words', async () => {
  const api = apiOver({ call: async () => 'garbage' });
  await assert.rejects(api.info(), (e: unknown) => e instanceof ApiError && e.code === 'BAD_REPLY' && /does not understand/.test(e.message));
});
