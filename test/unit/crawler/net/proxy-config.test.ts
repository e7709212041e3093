import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { UsageError } from '../../../../crawler/errors.ts';
import { checkProxySetting, parseNoProxy, matchesNoProxy, parseProxyUrl, proxyRoutes, type ProxyEnvironment } from '../../../../crawler/net/proxy-config.ts';
import { validateNewSettings } from '../../../../crawler/settings.ts';
import { DEFAULT_SETTINGS } from '../../../../crawler/protocol/settings.ts';

/** The proxy (its label) a URL takes under a setting and an environment, or 'direct'. */
function routeOf(setting: string, env: ProxyEnvironment, url: string): string {
  return proxyRoutes(setting, env).proxyFor(new URL(url))?.label ?? 'direct';
}

describe('the proxy setting', () => {
  test('takes http, https, socks5 and socks5h URLs, with or without credentials', () => {
    for (const url of ['http://proxy.example:3128', 'https://proxy.example', 'socks5://127.0.0.1:1080', 'socks5h://user:pw@[::1]:9050', 'http://user:pw@proxy:8080/']) {
      assert.doesNotThrow(() => checkProxySetting(url), url);
    }
    assert.equal(parseProxyUrl('socks5h://tor:9050', '--proxy').protocol, 'socks5h');
  });

  test('refuses other schemes, paths and URLs without a host, naming the setting and masking the password', () => {
    for (const [value, words] of [
      ['ftp://proxy:21', /scheme ftp:/],
      ['socks4://proxy:1080', /scheme socks4:/],
      ['http://user:hunter2@proxy:3128/path', /path or query/],
      ['http://', /not a proxy URL/],
    ] as const) {
      assert.throws(
        () => checkProxySetting(value),
        (err: unknown) => err instanceof UsageError && words.test(err.message) && err.message.startsWith('--proxy') && !err.message.includes('hunter2'),
        value,
      );
    }
  });

  test('is checked with the other settings before anything starts', () => {
    assert.throws(() => validateNewSettings({ ...DEFAULT_SETTINGS, query: 'test', seeds: ['http://a.example/'], proxy: 'gopher://proxy:70' }), /--proxy: .*scheme gopher:/);
    assert.equal(validateNewSettings({ ...DEFAULT_SETTINGS, query: 'test', seeds: ['http://a.example/'], proxy: 'none' }).proxy, 'none');
  });

  test("a chosen crawl's environment is checked too, naming the variable", () => {
    const saved = process.env.HTTPS_PROXY;
    process.env.HTTPS_PROXY = 'ftp://user:hunter2@p:21';
    try {
      const settings = { ...DEFAULT_SETTINGS, query: 'test', seeds: ['http://a.example/'], proxy: '' };
      assert.throws(() => validateNewSettings(settings), (err: unknown) => err instanceof UsageError && /^the environment variable HTTPS_PROXY: .*scheme ftp:/.test(err.message) && !err.message.includes('hunter2'));
      assert.equal(validateNewSettings({ ...settings, proxy: 'none' }).proxy, 'none');
    } finally {
      if (saved === undefined) delete process.env.HTTPS_PROXY;
      else process.env.HTTPS_PROXY = saved;
    }
  });

  test('a proxy URL without a scheme is an HTTP proxy, as curl reads it', () => {
    assert.equal(routeOf('', { https_proxy: 'proxy.example:3128' }, 'https://a.example/'), 'http://proxy.example:3128');
  });

  test("shows a proxy's user but never its password", () => {
    assert.equal(parseProxyUrl('http://alice:s3cret@proxy:3128', '--proxy').label, 'http://alice:***@proxy:3128');
    assert.equal(parseProxyUrl('socks5://alice:s3cret@proxy:1080', '--proxy').label, 'socks5://alice:***@proxy:1080');
  });

  test('a URL sends every request through it and ignores the environment; none sends every request direct', () => {
    const env = { https_proxy: 'http://env-proxy:1', NO_PROXY: '*' };
    assert.equal(routeOf('socks5://fixed:1080', env, 'https://a.example/'), 'socks5://fixed:1080');
    assert.equal(routeOf('socks5://fixed:1080', env, 'http://localhost/'), 'socks5://fixed:1080');
    assert.equal(routeOf('none', env, 'https://a.example/'), 'direct');
    assert.equal(routeOf('none', { ALL_PROXY: 'http://p:1' }, 'http://a.example/'), 'direct');
  });

  test('an environment variable holding a bad URL is an error naming it', () => {
    assert.throws(() => proxyRoutes('', { HTTPS_PROXY: 'ftp://p:21' }), /the environment variable HTTPS_PROXY: .*scheme ftp:/);
  });
});

describe('the environment, as curl reads it', () => {
  // [variables, target, the proxy it takes]
  const table: [ProxyEnvironment, string, string][] = [
    [{}, 'http://a.example/', 'direct'],
    [{ http_proxy: 'http://h:1' }, 'http://a.example/', 'http://h:1'],
    [{ http_proxy: 'http://h:1' }, 'https://a.example/', 'direct'],
    [{ HTTP_PROXY: 'http://H:1' }, 'http://a.example/', 'http://h:1'],
    [{ http_proxy: 'http://lower:1', HTTP_PROXY: 'http://upper:1' }, 'http://a.example/', 'http://lower:1'],
    [{ https_proxy: 'http://s:1' }, 'https://a.example/', 'http://s:1'],
    [{ https_proxy: 'http://s:1' }, 'http://a.example/', 'direct'],
    [{ HTTPS_PROXY: 'http://S:1' }, 'https://a.example/', 'http://s:1'],
    [{ https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:1' }, 'https://a.example/', 'http://lower:1'],
    [{ ALL_PROXY: 'socks5h://all:1080' }, 'http://a.example/', 'socks5h://all:1080'],
    [{ ALL_PROXY: 'socks5h://all:1080' }, 'https://a.example/', 'socks5h://all:1080'],
    [{ all_proxy: 'http://lower:1', ALL_PROXY: 'http://upper:1' }, 'https://a.example/', 'http://lower:1'],
    [{ ALL_PROXY: 'http://all:1', https_proxy: 'http://s:1' }, 'https://a.example/', 'http://s:1'],
    [{ ALL_PROXY: 'http://all:1', https_proxy: 'http://s:1' }, 'http://a.example/', 'http://all:1'],
    // An empty variable is unset (curl's curl_getenv).
    [{ https_proxy: '', HTTPS_PROXY: 'http://upper:1' }, 'https://a.example/', 'http://upper:1'],
    [{ https_proxy: 'http://s:1', no_proxy: '', NO_PROXY: 'a.example' }, 'https://a.example/', 'direct'],
    [{ https_proxy: 'http://s:1', no_proxy: 'b.example', NO_PROXY: 'a.example' }, 'https://a.example/', 'http://s:1'],
    // NO_PROXY exempts from every variable, ALL_PROXY included.
    [{ ALL_PROXY: 'http://all:1', NO_PROXY: 'a.example' }, 'http://a.example/', 'direct'],
  ];
  for (const [env, url, expected] of table) {
    test(`${JSON.stringify(env)} ${url} → ${expected}`, () => assert.equal(routeOf('', env, url), expected));
  }
});

describe('NO_PROXY, as curl matches it', () => {
  // [NO_PROXY, target, exempt from the proxy]
  const table: [string, string, boolean][] = [
    ['*', 'https://anything.example/', true],
    ['*', 'http://10.0.0.1/', true],
    ['example.com', 'http://example.com/', true],
    ['example.com', 'http://www.example.com/', true],
    ['example.com', 'http://a.b.example.com/', true],
    ['example.com', 'http://nonexample.com/', false],
    ['example.com', 'http://example.com.evil/', false],
    ['.example.com', 'http://www.example.com/', true],
    ['.example.com', 'http://example.com/', true],
    ['example.com.', 'http://www.example.com/', true],
    ['EXAMPLE.com', 'http://Www.Example.COM/', true],
    ['example.com', 'http://example.com./', true],
    ['a.example, b.example ,c.example', 'http://b.example/', true],
    ['a.example,,c.example', 'http://c.example/', true],
    ['a.example', 'http://b.example/', false],
    // Names match names, addresses match addresses: no resolution.
    ['localhost', 'http://127.0.0.1/', false],
    ['127.0.0.1', 'http://localhost/', false],
    ['127.0.0.1', 'http://127.0.0.1:8080/', true],
    ['127.0.0.1', 'http://127.0.0.2/', false],
    ['10.0.0.0/8', 'http://10.20.30.40/', true],
    ['10.0.0.0/8', 'http://11.0.0.1/', false],
    ['192.168.1.0/24', 'http://192.168.1.77/', true],
    ['192.168.1.0/24', 'http://192.168.2.1/', false],
    ['0.0.0.0/0', 'http://8.8.8.8/', true],
    ['::1', 'http://[::1]:8080/', true],
    ['fd00::/8', 'http://[fd12:3456::1]/', true],
    ['fd00::/8', 'http://[fe80::1]/', false],
    ['10.0.0.0/8', 'http://[::1]/', false],
    // `*` is every host only alone.
    ['a.example,*', 'http://b.example/', false],
    // Beyond curl: an entry with a port matches that port only (curl never matches it).
    ['example.com:8080', 'http://example.com:8080/', true],
    ['example.com:8080', 'http://example.com/', false],
    ['127.0.0.1:8080', 'http://127.0.0.1:8080/', true],
    ['127.0.0.1:8080', 'http://127.0.0.1:9090/', false],
    ['[::1]:8080', 'http://[::1]:8080/', true],
    ['example.com:443', 'https://example.com/', true],
  ];
  for (const [noProxy, url, exempt] of table) {
    test(`NO_PROXY=${noProxy} ${url} → ${exempt ? 'direct' : 'proxied'}`, () => assert.equal(matchesNoProxy(parseNoProxy(noProxy), new URL(url)), exempt));
  }

  test('an entry that is no host or range is ignored, not an error', () => {
    assert.deepEqual(parseNoProxy('10.0.0.0/33, 10.0.0.0/x, , example.com'), [{ kind: 'name', name: 'example.com' }]);
  });
});
