import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { RequestSlots, SLOW_REQUESTS_PER_SLOT } from '../../../../crawler/engine/request-slots.ts';

function deferred(): { promise: Promise<string>; resolve: (value: string) => void } {
  let resolve!: (value: string) => void;
  const promise = new Promise<string>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

test('requests count against concurrency until they have waited past the slow threshold', async () => {
  let steppedAside = 0;
  const slots = new RequestSlots(2, () => steppedAside++, 30);
  const first = deferred();
  const second = deferred();
  const waiting = [slots.waitFor(first.promise), slots.waitFor(second.promise)];
  assert.equal(slots.hasRoom(2), false, 'two served requests fill a concurrency of 2');
  await sleep(80);
  assert.equal(steppedAside, 2, 'each slow request tells the caller once');
  assert.equal(slots.slow, 2);
  assert.equal(slots.hasRoom(2), true, 'slow requests leave their slots to others');
  first.resolve('a');
  second.resolve('b');
  assert.deepEqual(await Promise.all(waiting), ['a', 'b']);
  assert.equal(slots.slow, 0, 'a slow request that settles is no longer counted as waiting');
  assert.equal(slots.hasRoom(2), false, 'once answered, the two count as served again');
});

test('a request answered before the threshold never steps aside', async () => {
  let steppedAside = 0;
  const slots = new RequestSlots(1, () => steppedAside++, 30);
  assert.equal(await slots.waitFor(Promise.resolve('fast')), 'fast');
  await sleep(60);
  assert.equal(steppedAside, 0);
  assert.equal(slots.slow, 0);
});

test('a failed slow request is no longer counted as waiting either', async () => {
  const slots = new RequestSlots(1, () => undefined, 10);
  const failing = slots.waitFor(sleep(40).then(() => Promise.reject(new Error('reset'))));
  await sleep(25);
  assert.equal(slots.slow, 1);
  await assert.rejects(failing, /reset/);
  assert.equal(slots.slow, 0);
});

test('slow requests beside the served ones are capped, so a web of tarpits cannot open sockets without end', async () => {
  const concurrency = 2;
  const slots = new RequestSlots(concurrency, () => undefined, 5);
  const cap = concurrency * (1 + SLOW_REQUESTS_PER_SLOT);
  const never = new Promise<string>(() => undefined);
  const requests = Array.from({ length: cap - 1 }, () => slots.waitFor(never));
  await sleep(30);
  assert.equal(slots.slow, cap - 1);
  assert.equal(slots.hasRoom(cap - 1), true, 'one below the cap: another may start');
  assert.equal(slots.hasRoom(cap), false, 'at the cap, even slow requests hold their slots');
  assert.equal(requests.length, cap - 1);
});
