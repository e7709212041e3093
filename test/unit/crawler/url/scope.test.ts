import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidUrlError, UsageError } from '../../../../crawler/errors.ts';
import type { ScopeMode } from '../../../../crawler/protocol/settings.ts';
import { createScope, registrableDomain } from '../../../../crawler/url/scope.ts';

describe('registrableDomain', () => {
  test('is eTLD+1 from the public suffix list', () => {
    assert.equal(registrableDomain('www.example.com'), 'example.com');
    assert.equal(registrableDomain('a.b.example.co.uk'), 'example.co.uk');
    assert.equal(registrableDomain('example.co.uk'), 'example.co.uk');
    assert.equal(registrableDomain('news.xn--bcher-kva.de'), 'xn--bcher-kva.de');
  });

  test('treats private suffixes as suffixes, so user sites stay apart', () => {
    assert.equal(registrableDomain('alice.github.io'), 'alice.github.io');
    assert.equal(registrableDomain('www.bob.blogspot.com'), 'bob.blogspot.com');
  });

  test('ignores case and one trailing dot', () => {
    assert.equal(registrableDomain('WWW.Example.COM.'), 'example.com');
  });

  test('is null for IP addresses, localhost, bare suffixes and single labels', () => {
    for (const host of ['127.0.0.1', '10.1.2.3', '[::1]', '[2001:db8::1]', 'localhost', 'co.uk', 'com', 'intranet', '']) {
      assert.equal(registrableDomain(host), null, host);
    }
  });
});

describe("scope 'hosts'", () => {
  const scope = createScope('hosts', ['https://www.example.com/start', 'http://Blog.Example.ORG:8080/']);

  test('allows the seed hosts under any scheme and port', () => {
    for (const url of ['https://www.example.com/other', 'http://www.example.com/', 'http://www.example.com:8080/x', 'https://blog.example.org/', 'http://BLOG.example.org./a']) {
      assert.equal(scope.allows(url), true, url);
      assert.equal(scope.allows(new URL(url)), true, url);
    }
  });

  test('refuses other hosts, even of the same domain', () => {
    for (const url of ['https://example.com/', 'https://shop.example.com/', 'https://www.example.com.evil.net/', 'https://example.org/', 'https://other.net/']) {
      assert.equal(scope.allows(url), false, url);
    }
  });

  test('refuses what is not an http(s) URL', () => {
    for (const url of ['ftp://www.example.com/', 'mailto:me@www.example.com', 'not a url', '']) assert.equal(scope.allows(url), false, url);
  });

  test('explains its verdicts', () => {
    assert.deepEqual(scope.explain('http://www.example.com/a'), { allowed: true, reason: 'host www.example.com is a seed host' });
    const no = scope.explain('http://shop.example.com/');
    assert.equal(no.allowed, false);
    assert.match(no.reason, /shop\.example\.com is not a seed host \(www\.example\.com, blog\.example\.org\)/);
    assert.deepEqual(scope.explain('javascript:alert(1)'), { allowed: false, reason: 'not an http(s) URL' });
  });

  test('has its mode', () => {
    assert.equal(scope.mode, 'hosts');
  });
});

describe("scope 'domains'", () => {
  const scope = createScope('domains', ['https://www.example.co.uk/', 'https://alice.github.io/blog', 'http://127.0.0.1:8080/', 'http://localhost/']);

  test('allows every host of a seed registrable domain', () => {
    for (const url of ['https://example.co.uk/', 'http://shop.example.co.uk/x', 'https://a.b.c.example.co.uk:444/', 'https://alice.github.io/', 'https://www.alice.github.io/']) {
      assert.equal(scope.allows(url), true, url);
    }
  });

  test('refuses other registrable domains, including siblings under a private suffix', () => {
    for (const url of ['https://other.co.uk/', 'https://example.com/', 'https://bob.github.io/', 'https://github.io/', 'https://example.co.uk.evil.net/']) {
      assert.equal(scope.allows(url), false, url);
    }
  });

  test('compares hosts without a registrable domain exactly', () => {
    assert.equal(scope.allows('http://127.0.0.1/other'), true);
    assert.equal(scope.allows('https://127.0.0.1:9/'), true);
    assert.equal(scope.allows('http://127.0.0.2/'), false);
    assert.equal(scope.allows('http://localhost:3000/'), true);
    assert.equal(scope.allows('http://sub.localhost/'), false);
    assert.equal(scope.allows('http://[::1]/'), false);
  });

  test('explains with the registrable domain', () => {
    assert.deepEqual(scope.explain('http://shop.example.co.uk/'), {
      allowed: true,
      reason: 'host shop.example.co.uk (registrable domain example.co.uk) is in a seed domain',
    });
    const ip = scope.explain('http://10.0.0.1/');
    assert.equal(ip.allowed, false);
    assert.match(ip.reason, /^host 10\.0\.0\.1 \(no registrable domain, compared as is\) is not in a seed domain/);
  });
});

describe("scope 'any'", () => {
  const scope = createScope('any', []);

  test('allows every http(s) URL and nothing else', () => {
    assert.equal(scope.allows('https://anything.example/'), true);
    assert.equal(scope.allows(new URL('http://10.0.0.1:81/')), true);
    assert.equal(scope.allows('ftp://anything.example/'), false);
    assert.equal(scope.allows('data:text/plain,x'), false);
    assert.equal(scope.explain('https://x.example/').allowed, true);
  });
});

describe('createScope errors', () => {
  test('an unknown mode is a UsageError', () => {
    assert.throws(() => createScope('everything' as ScopeMode, ['http://a.example/']), UsageError);
  });

  test("'hosts' and 'domains' need seeds", () => {
    assert.throws(() => createScope('hosts', []), (e) => e instanceof UsageError && /at least one seed/.test(e.message));
    assert.throws(() => createScope('domains', []), UsageError);
  });

  test('a bad seed is an InvalidUrlError', () => {
    assert.throws(() => createScope('hosts', ['mailto:me@example.com']), InvalidUrlError);
    assert.throws(() => createScope('domains', ['http://']), InvalidUrlError);
  });
});
