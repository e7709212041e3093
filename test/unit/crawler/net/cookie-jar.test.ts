import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SessionJar, type CookieJarSink } from '../../../../crawler/net/cookie-jar.ts';

/** A sink that keeps what a collection would: the serialised cookie by domain, path and name. */
function memorySink(): CookieJarSink & { rows: Map<string, string> } {
  const rows = new Map<string, string>();
  return {
    rows,
    put: (domain, path, name, serialized) => void rows.set(`${domain} ${path} ${name}`, serialized),
    remove: (domain, path, name) => void rows.delete(`${domain} ${path} ${name}`),
  };
}

function jarWith(url: string, ...setCookies: string[]): SessionJar {
  const jar = new SessionJar();
  jar.storeSetCookies(url, setCookies.map((value) => ['Set-Cookie', value] as [string, string]));
  return jar;
}

describe('SessionJar (RFC 6265 matching)', () => {
  it('sends a Domain cookie to the domain and its subdomains, and a host-only cookie to its host alone', () => {
    const jar = jarWith('https://www.example.org/', 'wide=1; Domain=example.org', 'narrow=2');
    assert.equal(jar.cookieHeader('https://example.org/'), 'wide=1');
    assert.equal(jar.cookieHeader('https://deep.sub.example.org/'), 'wide=1');
    assert.equal(jar.cookieHeader('https://www.example.org/'), 'wide=1; narrow=2');
    assert.equal(jar.cookieHeader('https://sub.www.example.org/'), 'wide=1');
    assert.equal(jar.cookieHeader('https://notexample.org/'), undefined);
    assert.equal(jar.cookieHeader('https://example.com/'), undefined);
  });

  it('refuses a cookie for another domain or for a public suffix', () => {
    const jar = jarWith('https://www.example.org/', 'evil=1; Domain=other.org', 'suffix=2; Domain=org', 'cosuffix=3; Domain=co.uk');
    assert.equal(jar.cookieHeader('https://other.org/'), undefined);
    assert.equal(jar.cookieHeader('https://anything.org/'), undefined);
    assert.equal(jar.cookieHeader('https://www.example.org/'), undefined);
    assert.equal(jar.summary().cookies, 0);
  });

  it('matches paths by prefix at a / boundary, and defaults the path to the setting URL\'s directory', () => {
    const jar = jarWith('https://example.org/members/login', 'm=1; Path=/members', 'd=2');
    assert.equal(jar.cookieHeader('https://example.org/members'), 'm=1; d=2');
    assert.equal(jar.cookieHeader('https://example.org/members/area/page'), 'm=1; d=2');
    assert.equal(jar.cookieHeader('https://example.org/membership'), undefined);
    assert.equal(jar.cookieHeader('https://example.org/'), undefined);
  });

  it('sends a Secure cookie over https only', () => {
    const jar = jarWith('https://example.org/', 'safe=1; Secure', 'plain=2');
    assert.equal(jar.cookieHeader('https://example.org/'), 'safe=1; plain=2');
    assert.equal(jar.cookieHeader('http://example.org/'), 'plain=2');
  });

  it('sends no expired cookie, and an answer that expires one removes it', () => {
    const jar = jarWith('https://example.org/', 'old=1; Expires=Thu, 01 Jan 1970 00:00:01 GMT', 'gone=2; Max-Age=0', 'keep=3; Max-Age=3600');
    assert.equal(jar.cookieHeader('https://example.org/'), 'keep=3');
    jar.storeSetCookies('https://example.org/', [['set-cookie', 'keep=3; Max-Age=0']]);
    assert.equal(jar.cookieHeader('https://example.org/'), undefined);
  });

  it('keeps every Set-Cookie of an answer, and a newer value replaces the older', () => {
    const jar = jarWith('https://example.org/', 'a=1', 'b=2');
    jar.storeSetCookies('https://example.org/', [['SET-COOKIE', 'a=9'], ['content-type', 'text/html']]);
    assert.equal(jar.cookieHeader('https://example.org/'), 'a=9; b=2');
  });
});

describe('SessionJar (persistence and listing)', () => {
  it('hands every change to its sink, and a jar loaded from what it kept sends the same cookies', () => {
    const sink = memorySink();
    const jar = new SessionJar([], sink);
    jar.storeSetCookies('https://example.org/a', [['set-cookie', 'sid=one; Path=/'], ['set-cookie', 'tmp=x; Path=/']]);
    jar.storeSetCookies('https://example.org/a', [['set-cookie', 'sid=two; Path=/'], ['set-cookie', 'tmp=; Path=/; Max-Age=0']]);
    jar.cookieHeader('https://example.org/');
    assert.deepEqual([...sink.rows.keys()], ['example.org / sid']);
    const loaded = new SessionJar([...sink.rows.values()]);
    assert.equal(loaded.cookieHeader('https://example.org/'), 'sid=two');
  });

  it('does not write back the cookies it loads', () => {
    const first = memorySink();
    new SessionJar([], first).storeSetCookies('https://example.org/', [['set-cookie', 'sid=1']]);
    const second = memorySink();
    const jar = new SessionJar([...first.rows.values()], second);
    assert.equal(jar.cookieHeader('https://example.org/'), 'sid=1');
    assert.equal(second.rows.size, 0);
  });

  it('imports a cookies.txt and lists cookies without their values', () => {
    const jar = new SessionJar();
    jar.addImported([
      { domain: 'example.org', includeSubdomains: true, path: '/', secure: false, httpOnly: true, expiresAt: undefined, name: 'sid', value: 'VALUE-1' },
      { domain: 'login.example.net', includeSubdomains: false, path: '/app', secure: true, httpOnly: false, expiresAt: Date.UTC(2099, 0, 1), name: 'tok', value: 'VALUE-2' },
    ]);
    assert.equal(jar.cookieHeader('http://www.example.org/'), 'sid=VALUE-1');
    assert.equal(jar.cookieHeader('https://sub.login.example.net/app'), undefined);
    assert.equal(jar.cookieHeader('https://login.example.net/app/x'), 'tok=VALUE-2');
    const listed = jar.list();
    assert.deepEqual(listed, [
      { domain: 'example.org', hostOnly: false, path: '/', name: 'sid', secure: false, httpOnly: true, expiresAt: null },
      { domain: 'login.example.net', hostOnly: true, path: '/app', name: 'tok', secure: true, httpOnly: false, expiresAt: Date.UTC(2099, 0, 1) },
    ]);
    assert.doesNotMatch(JSON.stringify(listed), /VALUE/);
    assert.deepEqual(jar.summary(), { cookies: 2, domains: ['example.org', 'login.example.net'] });
  });
});
