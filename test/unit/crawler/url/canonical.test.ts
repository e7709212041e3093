import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ForagerError, InvalidUrlError } from '../../../../crawler/errors.ts';
import { canonicalize, isSessionIdParam, MAX_URL_LENGTH, tryCanonicalize } from '../../../../crawler/url/canonical.ts';
import { fingerprint } from '../../../../crawler/url/fingerprint.ts';
import { urlTokens } from '../../../../crawler/url/tokens.ts';

function rejection(raw: string, base?: string, options?: { maxLength?: number }): InvalidUrlError {
  try {
    canonicalize(raw, base, options);
  } catch (e) {
    assert.ok(e instanceof InvalidUrlError, `${raw}: ${String(e)}`);
    return e;
  }
  assert.fail(`${raw} was accepted`);
}

describe('canonicalize: the canonical form', () => {
  test('lowercases scheme and host, keeps path case', () => {
    assert.equal(canonicalize('HTTPS://WWW.Example.COM/Some/Path'), 'https://www.example.com/Some/Path');
  });

  test('maps IDN hosts to punycode', () => {
    assert.equal(canonicalize('http://Bücher.de/straße'), 'http://xn--bcher-kva.de/stra%C3%9Fe');
  });

  test('drops default ports and keeps others', () => {
    assert.equal(canonicalize('http://example.com:80/a'), 'http://example.com/a');
    assert.equal(canonicalize('https://example.com:443/a'), 'https://example.com/a');
    assert.equal(canonicalize('http://example.com:443/a'), 'http://example.com:443/a');
    assert.equal(canonicalize('https://example.com:8443/a'), 'https://example.com:8443/a');
  });

  test('drops the fragment, including an empty one', () => {
    assert.equal(canonicalize('http://example.com/a?b=1#frag'), 'http://example.com/a?b=1');
    assert.equal(canonicalize('http://example.com/a#'), 'http://example.com/a');
  });

  test('drops a bare ? and keeps a real query in its order', () => {
    assert.equal(canonicalize('http://example.com/a?'), 'http://example.com/a');
    assert.equal(canonicalize('http://example.com/a?#x'), 'http://example.com/a');
    assert.equal(canonicalize('http://example.com/a?z=1&a=2&m'), 'http://example.com/a?z=1&a=2&m');
    assert.equal(canonicalize('http://example.com/a??'), 'http://example.com/a??');
  });

  test('resolves dot segments, including escaped dots', () => {
    assert.equal(canonicalize('http://example.com/a/./b/../c/'), 'http://example.com/a/c/');
    assert.equal(canonicalize('http://example.com/a/%2e%2E/b'), 'http://example.com/b');
    assert.equal(canonicalize('http://example.com/../../x'), 'http://example.com/x');
  });

  test('an empty path becomes /', () => {
    assert.equal(canonicalize('http://example.com'), 'http://example.com/');
    assert.equal(canonicalize('http://example.com?q'), 'http://example.com/?q');
  });

  test('decodes escapes of unreserved characters in path and query', () => {
    assert.equal(canonicalize('http://example.com/%7Euser/%41%62%2D%2e%5f%30'), 'http://example.com/~user/Ab-._0');
    assert.equal(canonicalize('http://example.com/p?%6B=%7e%7E'), 'http://example.com/p?k=~~');
  });

  test('uppercases the hex of other escapes and keeps them escaped', () => {
    assert.equal(canonicalize('http://example.com/a%2fb%3a?x=%2f%26%3d%e2%82%ac'), 'http://example.com/a%2Fb%3A?x=%2F%26%3D%E2%82%AC');
    assert.equal(canonicalize('http://example.com/%25%2525'), 'http://example.com/%25%2525');
  });

  test("leaves a '%' that starts no escape alone, as browsers send it", () => {
    assert.equal(canonicalize('http://example.com/100%/x%zz%4'), 'http://example.com/100%/x%zz%4');
    assert.equal(canonicalize('http://example.com/a%4'), 'http://example.com/a%4');
    assert.equal(canonicalize('http://example.com/a%41%'), 'http://example.com/aA%');
  });

  test('escapes what WHATWG escapes and nothing more', () => {
    assert.equal(canonicalize('http://example.com/a b"<>`{}?q=a b"<>\'|[]'), 'http://example.com/a%20b%22%3C%3E%60%7B%7D?q=a%20b%22%3C%3E%27|[]');
  });

  test('strips userinfo', () => {
    assert.equal(canonicalize('http://user:secret@example.com/a'), 'http://example.com/a');
    assert.equal(canonicalize('http://user@example.com:8080/a'), 'http://example.com:8080/a');
  });

  test('drops a trailing dot of the host', () => {
    assert.equal(canonicalize('http://example.com./a'), 'http://example.com/a');
    assert.equal(canonicalize('http://example.com.:81/a'), 'http://example.com:81/a');
  });

  test('normalises IP hosts the WHATWG way', () => {
    assert.equal(canonicalize('http://0x7f.1/'), 'http://127.0.0.1/');
    assert.equal(canonicalize('http://[0:0::1]:80/'), 'http://[::1]/');
  });

  test('resolves relative references against a string or URL base', () => {
    const base = 'http://example.com/dir/page.html?x=1';
    assert.equal(canonicalize('other.html', base), 'http://example.com/dir/other.html');
    assert.equal(canonicalize('../up', new URL(base)), 'http://example.com/up');
    assert.equal(canonicalize('?y=2', base), 'http://example.com/dir/page.html?y=2');
    assert.equal(canonicalize('#top', base), 'http://example.com/dir/page.html?x=1');
    assert.equal(canonicalize('//other.org/p', 'https://example.com/'), 'https://other.org/p');
    assert.equal(canonicalize('  /trimmed\n ', base), 'http://example.com/trimmed');
  });

  test('an absolute URL ignores its base, even a broken one', () => {
    assert.equal(canonicalize('https://a.example/x', 'http://b.example/y'), 'https://a.example/x');
    assert.equal(canonicalize('HTTP://a.example/x', 'not a base'), 'http://a.example/x');
    assert.equal(tryCanonicalize('x', 'not a base').ok, false);
  });

  test('is idempotent', () => {
    for (const raw of ['HTTP://Ex.com:80/a/../%7e%2f?b=%2a#f', 'http://[::1]/%41', 'http://bücher.de./?', 'http://x.com/a%zz%4']) {
      const once = canonicalize(raw);
      assert.equal(canonicalize(once), once, raw);
    }
  });
});

describe('canonicalize: rejections', () => {
  test('schemes other than http and https', () => {
    for (const [raw, scheme] of [
      ['mailto:someone@example.com', 'mailto'],
      ['javascript:void(0)', 'javascript'],
      ['data:text/html,<p>x</p>', 'data'],
      ['ftp://example.com/file', 'ftp'],
      ['file:///etc/passwd', 'file'],
      ['ftp:/', 'ftp'],
      ['tel:+123', 'tel'],
    ] as const) {
      const e = rejection(raw);
      assert.equal(e.code, 'INVALID_URL');
      assert.equal(e.context.reason, 'unsupported-scheme', raw);
      assert.equal(e.context.scheme, scheme, raw);
      assert.match(e.message, new RegExp(`"${scheme}:"`));
    }
  });

  test('a relative link to another scheme is rejected too', () => {
    assert.equal(rejection('mailto:x@example.com', 'http://example.com/').context.reason, 'unsupported-scheme');
  });

  test('empty hosts', () => {
    for (const raw of ['http://', 'https:///', 'http:///?q', 'http://./', 'http:']) {
      assert.equal(rejection(raw).context.reason, 'empty-host', raw);
    }
  });

  test('unparseable input', () => {
    for (const raw of ['', '   ', 'not a url', 'http://exa mple.com/', 'http://[::1/', 'http://example.com:99999/', '//example.com/no-scheme']) {
      const e = rejection(raw);
      assert.equal(e.context.reason, 'unparseable', raw);
      assert.equal(e.context.url, raw);
      assert.ok(e instanceof ForagerError);
    }
    const withBase = rejection('http://[', 'http://example.com/');
    assert.equal(withBase.context.base, 'http://example.com/');
    assert.match(withBase.message, /against base "http:\/\/example.com\/"/);
  });

  test('hosts DNS cannot resolve', () => {
    for (const raw of ['http://a..b/', 'http://license.{curly}.com/', 'http://a!b.com/', 'http://xn--pokxncvks.com/', 'http://xn--/', `http://${'a'.repeat(64)}.com/`, `http://${'abcdefghi.'.repeat(26)}com/`]) {
      const e = rejection(raw);
      assert.equal(e.context.reason, 'invalid-host', raw);
      assert.equal(typeof e.context.host, 'string');
    }
    assert.equal(canonicalize(`http://${'a'.repeat(63)}.com/`), `http://${'a'.repeat(63)}.com/`);
    assert.equal(canonicalize('http://under_score.example.com/'), 'http://under_score.example.com/');
    assert.equal(canonicalize('http://xn--bcher-kva.de/'), 'http://xn--bcher-kva.de/');
  });

  test('port 0', () => {
    assert.equal(rejection('http://example.com:0/').context.reason, 'invalid-port');
  });

  test(`absurd length: MAX_URL_LENGTH is ${MAX_URL_LENGTH} by default, and an option`, () => {
    assert.equal(MAX_URL_LENGTH, 2048);
    const prefix = 'http://example.com/';
    const atLimit = prefix + 'a'.repeat(MAX_URL_LENGTH - prefix.length);
    assert.equal(canonicalize(atLimit), atLimit);
    const e = rejection(atLimit + 'a');
    assert.equal(e.context.reason, 'too-long');
    assert.equal(e.context.length, MAX_URL_LENGTH + 1);
    assert.equal(e.context.maxLength, MAX_URL_LENGTH);
    assert.ok(String(e.context.url).length < 300, 'the context holds a preview, not the whole URL');
    assert.equal(rejection('http://example.com/abc', undefined, { maxLength: 20 }).context.reason, 'too-long');
    assert.equal(canonicalize(atLimit + 'aaaa', undefined, { maxLength: 5000 }), atLimit + 'aaaa');
  });

  test('the length limit also applies once resolved against a long base', () => {
    const base = `http://example.com/${'d'.repeat(2000)}/`;
    assert.equal(rejection('x'.repeat(100), base).context.reason, 'too-long');
  });
});

describe('tryCanonicalize', () => {
  test('returns the URL or the reason, without throwing', () => {
    assert.deepEqual(tryCanonicalize('HTTP://A.com/#x'), { ok: true, url: 'http://a.com/' });
    assert.deepEqual(tryCanonicalize('mailto:a@b'), { ok: false, reason: 'unsupported-scheme' });
    assert.deepEqual(tryCanonicalize('http://'), { ok: false, reason: 'empty-host' });
    assert.deepEqual(tryCanonicalize('http://a..b/'), { ok: false, reason: 'invalid-host' });
    assert.deepEqual(tryCanonicalize('http://a.b:0/'), { ok: false, reason: 'invalid-port' });
    assert.deepEqual(tryCanonicalize('::::'), { ok: false, reason: 'unparseable' });
    assert.deepEqual(tryCanonicalize('http://a.b/cdef', undefined, { maxLength: 10 }), { ok: false, reason: 'too-long' });
  });

  test('agrees with canonicalize', () => {
    for (const raw of ['http://a.com/%7e', 'javascript:x', 'http://x..y/', '']) {
      const r = tryCanonicalize(raw, 'http://base.example/');
      let thrown: unknown;
      let url: string | undefined;
      try {
        url = canonicalize(raw, 'http://base.example/');
      } catch (e) {
        thrown = e;
      }
      if (r.ok) assert.equal(url, r.url);
      else assert.equal((thrown as InvalidUrlError).context.reason, r.reason);
    }
  });
});

describe('session ids', () => {
  test('isSessionIdParam wants a session name and an opaque value', () => {
    assert.equal(isSessionIdParam('JSESSIONID', 'A1B2C3D4E5F6A7B8C9D0'), true);
    assert.equal(isSessionIdParam('PHPSESSID', '9f8e7d6c5b4a39281706'), true);
    assert.equal(isSessionIdParam('sid', '9682993c8daa2c5497996114facdc805'), true);
    assert.equal(isSessionIdParam('ASPSESSIONIDQQGGQGPG', 'ABCDEFGH1234IJKLMNOP5678'), true);
    assert.equal(isSessionIdParam('sid', '12'), false, 'short');
    assert.equal(isSessionIdParam('sid', '12345678901234'), false, 'digits only: an id');
    assert.equal(isSessionIdParam('sessionid', 'abcdefghijklmnop'), false, 'letters only: a word');
    assert.equal(isSessionIdParam('sessionid', 'abc def 1234567'), false, 'not opaque');
    assert.equal(isSessionIdParam('page', 'a1b2c3d4e5f6a7b8'), false, 'not a session name');
  });

  test('are kept by default and stripped on request, from query and path parameters', () => {
    const raw = 'http://example.com/shop;jsessionid=A1B2C3D4E5F6A7B8/item?id=7&PHPSESSID=9f8e7d6c5b4a39281706&sid=12';
    assert.equal(canonicalize(raw), raw);
    assert.equal(canonicalize(raw, undefined, { stripSessionIds: true }), 'http://example.com/shop/item?id=7&sid=12');
    assert.equal(canonicalize('http://example.com/a?sid=9682993c8daa2c5497996114facdc805', undefined, { stripSessionIds: true }), 'http://example.com/a');
    assert.equal(canonicalize('http://example.com/a;v=1;jsessionid=A1B2C3D4E5F6A7B8', undefined, { stripSessionIds: true }), 'http://example.com/a;v=1');
  });
});

describe('fingerprint', () => {
  const urls = Array.from({ length: 200_000 }, (_, i) => `https://example${i % 97}.com/path/${i}?q=${i % 13}`);

  test('is a deterministic signed 64-bit bigint', () => {
    for (const u of urls.slice(0, 1000)) {
      const fp = fingerprint(u);
      assert.equal(typeof fp, 'bigint');
      assert.equal(BigInt.asIntN(64, fp), fp);
      assert.equal(fingerprint(u), fp);
      assert.equal(fingerprint(`${u.slice(0, 5)}${u.slice(5)}`), fp, 'depends on content, not identity');
    }
    const signs = new Set(urls.slice(0, 1000).map((u) => fingerprint(u) < 0n));
    assert.equal(signs.size, 2, 'uses the sign bit');
  });

  test('has no 64-bit collisions, and each half collides only as often as chance says', () => {
    const fps = new Set<bigint>();
    const his = new Set<number>();
    const los = new Set<number>();
    for (const u of urls) {
      const fp = fingerprint(u);
      fps.add(fp);
      his.add(Number(BigInt.asUintN(32, fp >> 32n)));
      los.add(Number(BigInt.asUintN(32, fp)));
    }
    assert.equal(fps.size, urls.length);
    // Birthday bound for 200,000 values in 2^32: about 4.7 collisions per half.
    const expected = (urls.length * urls.length) / 2 ** 33;
    for (const half of [his, los]) {
      const collisions = urls.length - half.size;
      assert.ok(collisions <= expected * 4 + 10, `${collisions} collisions in one half, ~${expected.toFixed(1)} expected`);
    }
  });

  test('one changed character flips about half of the 64 bits', () => {
    let flipped = 0;
    let trials = 0;
    for (const u of urls.slice(0, 2000)) {
      const base = fingerprint(u);
      const i = trials % u.length;
      const changed = u.slice(0, i) + String.fromCharCode(u.charCodeAt(i) ^ 1) + u.slice(i + 1);
      let x = BigInt.asUintN(64, base ^ fingerprint(changed));
      while (x > 0n) {
        flipped += Number(x & 1n);
        x >>= 1n;
      }
      trials++;
    }
    const mean = flipped / trials;
    assert.ok(mean > 30 && mean < 34, `mean ${mean} bits flipped`);
  });

  test('tells apart strings that differ only in length, order or non-ASCII code units', () => {
    const inputs = ['', 'a', 'a\u0000', '\u0000a', 'ab', 'ba', 'é', '\u00e9\u0000', 'ā', '\u0101', '\ud83d\ude00', 'x'.repeat(1000), 'x'.repeat(1001)];
    const fps = new Set(inputs.map(fingerprint));
    assert.equal(fps.size, new Set(inputs).size);
  });
});

describe('urlTokens', () => {
  test('splits host and path on punctuation, camelCase, and letter-digit boundaries', () => {
    assert.deepEqual(
      urlTokens('https://www.Example-Site.co.uk/blog/getXMLResponse2xx/snake_case_words/kebab-case.html?ignored=query'),
      ['example', 'site', 'co', 'uk', 'blog', 'get', 'xml', 'response', '2', 'xx', 'snake', 'case', 'words', 'kebab', 'case'],
    );
  });

  test('drops www, http, https, html, htm, php, index', () => {
    assert.deepEqual(urlTokens('http://www.news.org/index.php/http/HTTPS/page.htm/index.HTML'), ['news', 'org', 'page']);
  });

  test('decodes punycode hosts and percent-escaped paths', () => {
    assert.deepEqual(urlTokens(new URL('http://xn--bcher-kva.de/caf%C3%A9/%E4%BE%8B%E5%AD%90')), ['bücher', 'de', 'café', '例子']);
  });

  test('survives malformed escapes and bad input', () => {
    assert.deepEqual(urlTokens('http://x.org/100%zz/page2Of10%E2'), ['x', 'org', '100', 'zz', 'page', '2', 'of', '10']);
    assert.deepEqual(urlTokens('not a url'), []);
  });

  test('yields no empty tokens', () => {
    assert.deepEqual(urlTokens('http://a.b/___/--/..//'), ['a', 'b']);
  });
});
