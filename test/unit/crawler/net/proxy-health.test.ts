import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FetchError } from '../../../../crawler/errors.ts';
import { parseProxyUrl } from '../../../../crawler/net/proxy-config.ts';
import { ProxyHealth } from '../../../../crawler/net/proxy-health.ts';

const PROXY = parseProxyUrl('http://crawler:hunter2@127.0.0.1:3128', '--proxy');
const REFUSED = new FetchError('proxy:refused', 'proxy:refused through http://crawler:***@127.0.0.1:3128: connect ECONNREFUSED', {});

/** A ProxyHealth on a clock the test moves, and the errors it reported. */
function watched(): { health: ProxyHealth; downs: FetchError[]; at: (ms: number) => void } {
  let now = 0;
  const downs: FetchError[] = [];
  return { health: new ProxyHealth(PROXY, (error) => downs.push(error), () => now), downs, at: (ms) => (now = ms) };
}

describe('ProxyHealth', () => {
  test('five failures in a row over two seconds make the proxy down, once, naming it without its password', () => {
    const { health, downs, at } = watched();
    for (const ms of [0, 500, 1000, 1500]) {
      at(ms);
      health.failed(REFUSED);
    }
    at(2000);
    health.failed(REFUSED);
    assert.equal(downs.length, 1);
    assert.equal(downs[0]?.reason, 'proxy:unreachable');
    assert.match(downs[0]?.message ?? '', /^the proxy http:\/\/crawler:\*\*\*@127\.0\.0\.1:3128 failed 5 requests in a row over 2\.0 s \(the last: proxy:refused/);
    assert.doesNotMatch(downs[0]?.message ?? '', /hunter2/);
    at(3000);
    health.failed(REFUSED);
    assert.equal(downs.length, 1);
  });

  test('a burst of failures within two seconds is not enough', () => {
    const { health, downs, at } = watched();
    for (let i = 0; i < 50; i++) {
      at(i * 10);
      health.failed(REFUSED);
    }
    assert.equal(downs.length, 0);
  });

  test('an answer through the proxy starts the count again', () => {
    const { health, downs, at } = watched();
    for (const ms of [0, 1000, 2000, 3000]) {
      at(ms);
      health.failed(REFUSED);
    }
    health.answered();
    for (const ms of [4000, 5000, 6000, 7000]) {
      at(ms);
      health.failed(REFUSED);
    }
    assert.equal(downs.length, 0);
  });
});
