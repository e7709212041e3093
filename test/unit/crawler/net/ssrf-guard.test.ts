import assert from 'node:assert/strict';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { describe, test } from 'node:test';
import { FetchError } from '../../../../crawler/errors.ts';
import { SsrfGuard } from '../../../../crawler/net/ssrf-guard.ts';
import type { HostResolver, SsrfPolicy } from '../../../../crawler/net/ssrf-guard.ts';

// These tests never open a socket: the guard is exercised through its lookup function.

function addresses(...list: string[]): LookupAddress[] {
  return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
}

function countingResolver(table: Record<string, readonly LookupAddress[] | (() => readonly LookupAddress[])>): { resolve: HostResolver; calls: string[] } {
  const calls: string[] = [];
  const resolve: HostResolver = async (hostname) => {
    calls.push(hostname);
    const entry = table[hostname];
    if (entry === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return typeof entry === 'function' ? entry() : entry;
  };
  return { resolve, calls };
}

const closedPolicy = (): SsrfPolicy => ({ allowPrivate: false, allowedHosts: new Set() });

interface LookupOutcome {
  err: NodeJS.ErrnoException | null;
  address: string | LookupAddress[];
  family: number | undefined;
}

function lookup(guard: SsrfGuard, hostname: string, options: LookupOptions): Promise<LookupOutcome> {
  return new Promise((resolve) => {
    guard.lookup(hostname, options, (err, address, family) => resolve({ err, address, family }));
  });
}

function assertBlocked(outcome: LookupOutcome): FetchError {
  assert.ok(outcome.err instanceof FetchError, `expected a refusal, got ${JSON.stringify(outcome.address)}`);
  assert.equal(outcome.err.reason, 'ssrf:blocked');
  assert.equal(outcome.err.retryable, false);
  return outcome.err;
}

describe('SsrfGuard.lookup', () => {
  test('filters refused addresses out of a mixed answer', async () => {
    const { resolve } = countingResolver({ 'mixed.test': addresses('10.0.0.5', '93.184.216.34', '::1', '2606:4700::1111') });
    const guard = new SsrfGuard({ policy: closedPolicy(), resolve });
    const all = await lookup(guard, 'mixed.test', { all: true });
    assert.equal(all.err, null);
    assert.deepEqual(all.address, addresses('93.184.216.34', '2606:4700::1111'));
    const one = await lookup(guard, 'mixed.test', {});
    assert.equal(one.err, null);
    assert.equal(one.address, '93.184.216.34');
    assert.equal(one.family, 4);
  });

  test('refuses a host whose every address is private, naming them', async () => {
    const { resolve } = countingResolver({ 'internal.test': addresses('127.0.0.2', '169.254.169.254', 'fd00::1', '::ffff:192.168.0.1') });
    const guard = new SsrfGuard({ policy: closedPolicy(), resolve });
    const err = assertBlocked(await lookup(guard, 'internal.test', { all: true }));
    assert.equal(err.context.host, 'internal.test');
    assert.equal(err.context.address, '127.0.0.2');
    assert.deepEqual(err.context.addresses, ['127.0.0.2', '169.254.169.254', 'fd00::1', '::ffff:192.168.0.1']);
    assert.deepEqual(err.context.kinds, ['loopback', 'link-local', 'unique-local', 'private']);
    assertBlocked(await lookup(guard, 'internal.test', {}));
  });

  test('treats a resolver answer that is not an IP address as refused', async () => {
    const { resolve } = countingResolver({ 'odd.test': addresses('not-an-ip') });
    const guard = new SsrfGuard({ policy: closedPolicy(), resolve });
    assertBlocked(await lookup(guard, 'odd.test', { all: true }));
  });

  test('honours the family asked for', async () => {
    const { resolve } = countingResolver({ 'dual.test': addresses('93.184.216.34', '2606:4700::1111'), 'v6only.test': addresses('::1') });
    const guard = new SsrfGuard({ policy: closedPolicy(), resolve });
    assert.deepEqual((await lookup(guard, 'dual.test', { all: true, family: 6 })).address, addresses('2606:4700::1111'));
    assert.deepEqual((await lookup(guard, 'dual.test', { all: true, family: 4 })).address, addresses('93.184.216.34'));
    const none = await lookup(guard, 'v6only.test', { all: true, family: 4 });
    assert.ok(none.err instanceof FetchError);
    assert.equal(none.err.reason, 'dns');
  });

  test('allowedHosts lifts the guard for those hosts only, case and trailing dot aside', async () => {
    const { resolve } = countingResolver({ 'seed.test': addresses('192.168.1.10'), 'SEED.test.': addresses('192.168.1.10'), 'other.test': addresses('192.168.1.11') });
    const guard = new SsrfGuard({ policy: { allowPrivate: false, allowedHosts: new Set(['seed.test']) }, resolve });
    assert.deepEqual((await lookup(guard, 'seed.test', { all: true })).address, addresses('192.168.1.10'));
    assert.deepEqual((await lookup(guard, 'SEED.test.', { all: true })).address, addresses('192.168.1.10'));
    assertBlocked(await lookup(guard, 'other.test', { all: true }));
  });

  test("a seed host's exemption holds only for the addresses of its first resolution", async () => {
    let answer = addresses('192.168.1.10');
    const { resolve } = countingResolver({ 'seed.test': () => answer });
    const guard = new SsrfGuard({ policy: { allowPrivate: false, allowedHosts: new Set(['seed.test']) }, resolve, dnsCacheTtlMs: 0 });
    assert.deepEqual((await lookup(guard, 'seed.test', { all: true })).address, addresses('192.168.1.10'));
    answer = addresses('169.254.169.254');
    assertBlocked(await lookup(guard, 'seed.test', { all: true }));
    answer = addresses('127.0.0.1', '192.168.1.10');
    assert.deepEqual((await lookup(guard, 'seed.test', { all: true })).address, addresses('192.168.1.10'), 'the pinned address only');
    answer = addresses('93.184.216.34');
    assert.deepEqual((await lookup(guard, 'seed.test', { all: true })).address, addresses('93.184.216.34'), 'public addresses need no exemption');
  });

  test('allowPrivate lifts the guard for every host', async () => {
    const { resolve } = countingResolver({ 'lan.test': addresses('10.1.1.1', '127.0.0.1') });
    const guard = new SsrfGuard({ policy: { allowPrivate: true, allowedHosts: new Set() }, resolve });
    assert.deepEqual((await lookup(guard, 'lan.test', { all: true })).address, addresses('10.1.1.1', '127.0.0.1'));
  });

  test('reads the policy live: a host added mid-crawl is allowed from the next lookup, even if cached', async () => {
    const allowedHosts = new Set<string>();
    const { resolve, calls } = countingResolver({ 'late-seed.test': addresses('10.9.9.9') });
    const guard = new SsrfGuard({ policy: { allowPrivate: false, allowedHosts }, resolve });
    assertBlocked(await lookup(guard, 'late-seed.test', { all: true }));
    allowedHosts.add('late-seed.test');
    assert.deepEqual((await lookup(guard, 'late-seed.test', { all: true })).address, addresses('10.9.9.9'));
    assert.equal(calls.length, 1, 'the second lookup came from the cache');
  });

  test('checks every lookup, so a rebinding answer is refused', async () => {
    let answer = 0;
    const { resolve } = countingResolver({ 'rebind.test': () => (answer++ === 0 ? addresses('93.184.216.34') : addresses('127.0.0.1')) });
    const guard = new SsrfGuard({ policy: closedPolicy(), resolve, dnsCacheTtlMs: 0 });
    assert.equal((await lookup(guard, 'rebind.test', {})).address, '93.184.216.34');
    assertBlocked(await lookup(guard, 'rebind.test', {}));
  });

  test('turns resolver failures into retryable dns errors', async () => {
    const { resolve } = countingResolver({});
    const guard = new SsrfGuard({ policy: closedPolicy(), resolve });
    const outcome = await lookup(guard, 'missing.test', { all: true });
    assert.ok(outcome.err instanceof FetchError);
    assert.equal(outcome.err.reason, 'dns');
    assert.equal(outcome.err.retryable, true);
    assert.equal(outcome.err.context.code, 'ENOTFOUND');
  });
});

describe('SsrfGuard DNS cache', () => {
  test('reuses an answer within the TTL and resolves again after it', async () => {
    const { resolve, calls } = countingResolver({ 'cached.test': addresses('93.184.216.34') });
    const guard = new SsrfGuard({ policy: closedPolicy(), resolve, dnsCacheTtlMs: 40 });
    await guard.allowedAddresses('cached.test');
    await guard.allowedAddresses('cached.test');
    assert.equal(calls.length, 1);
    await new Promise((done) => setTimeout(done, 60));
    await guard.allowedAddresses('cached.test');
    assert.equal(calls.length, 2);
  });

  test('shares one resolution between concurrent lookups', async () => {
    const { resolve, calls } = countingResolver({ 'busy.test': addresses('93.184.216.34') });
    const guard = new SsrfGuard({ policy: closedPolicy(), resolve });
    const results = await Promise.all([guard.allowedAddresses('busy.test'), guard.allowedAddresses('busy.test'), guard.allowedAddresses('busy.test')]);
    assert.equal(calls.length, 1);
    for (const result of results) assert.deepEqual(result, addresses('93.184.216.34'));
  });

  test('does not cache failures', async () => {
    let fail = true;
    const calls: string[] = [];
    const resolve: HostResolver = async (hostname) => {
      calls.push(hostname);
      if (fail) throw Object.assign(new Error('temporary'), { code: 'EAI_AGAIN' });
      return addresses('93.184.216.34');
    };
    const guard = new SsrfGuard({ policy: closedPolicy(), resolve });
    await assert.rejects(guard.allowedAddresses('flaky.test'), (err: unknown) => err instanceof FetchError && err.reason === 'dns');
    fail = false;
    assert.deepEqual(await guard.allowedAddresses('flaky.test'), addresses('93.184.216.34'));
    assert.equal(calls.length, 2);
  });

  test('evicts the oldest entry beyond its bound', async () => {
    const { resolve, calls } = countingResolver({ 'a.test': addresses('1.1.1.1'), 'b.test': addresses('1.0.0.1'), 'c.test': addresses('8.8.4.4') });
    const guard = new SsrfGuard({ policy: closedPolicy(), resolve, dnsCacheMaxEntries: 2 });
    await guard.allowedAddresses('a.test');
    await guard.allowedAddresses('b.test');
    await guard.allowedAddresses('c.test');
    await guard.allowedAddresses('c.test');
    await guard.allowedAddresses('b.test');
    assert.deepEqual(calls, ['a.test', 'b.test', 'c.test']);
    await guard.allowedAddresses('a.test');
    assert.deepEqual(calls, ['a.test', 'b.test', 'c.test', 'a.test']);
  });
});

describe('SsrfGuard.checkIpLiteral', () => {
  test('refuses non-public IP literals and lets public ones and hostnames pass', () => {
    const guard = new SsrfGuard({ policy: closedPolicy() });
    for (const literal of ['127.0.0.1', '10.0.0.1', '169.254.169.254', '0.0.0.0', '::1', '::', 'fe80::1', '::ffff:127.0.0.1', '100.64.0.1', '224.0.0.1']) {
      const refusal = guard.checkIpLiteral(literal);
      assert.ok(refusal instanceof FetchError, literal);
      assert.equal(refusal.reason, 'ssrf:blocked');
      assert.equal(refusal.context.address, literal);
    }
    for (const allowed of ['93.184.216.34', '2606:4700::1111', 'example.com', 'localhost']) {
      assert.equal(guard.checkIpLiteral(allowed), undefined, allowed);
    }
  });

  test('an IP literal listed in allowedHosts, or allowPrivate, lifts the refusal', () => {
    assert.equal(new SsrfGuard({ policy: { allowPrivate: false, allowedHosts: new Set(['127.0.0.1']) } }).checkIpLiteral('127.0.0.1'), undefined);
    assert.ok(new SsrfGuard({ policy: { allowPrivate: false, allowedHosts: new Set(['127.0.0.1']) } }).checkIpLiteral('127.0.0.2') instanceof FetchError);
    assert.equal(new SsrfGuard({ policy: { allowPrivate: true, allowedHosts: new Set() } }).checkIpLiteral('10.0.0.1'), undefined);
  });
});
