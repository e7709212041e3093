import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { appRootFor, checkRequestSource, isAuthenticated, sessionCookie, tokenMatches } from '../../../../crawler/serve/request-guard.ts';
import { readStaticFile } from '../../../../crawler/serve/static-files.ts';
import { tempDir } from '../../../support/crawl-harness.ts';

const config = { port: 4321, token: 'secret-token-value', appRoot: appRootFor('secret-token-value') };

describe('serve: who may send requests', () => {
  it('accepts its own host names on its own port only', () => {
    assert.equal(checkRequestSource({ host: '127.0.0.1:4321' }, 4321).ok, true);
    assert.equal(checkRequestSource({ host: 'localhost:4321' }, 4321).ok, true);
    for (const host of ['127.0.0.1:4322', 'evil.example:4321', 'localhost', '127.0.0.1', '[::1]:4321', 'rebind.attacker.test:4321']) {
      const verdict = checkRequestSource({ host }, 4321);
      assert.equal(verdict.ok, false, host);
    }
    assert.equal(checkRequestSource({}, 4321).ok, false, 'no Host header');
  });

  it('refuses foreign origins and cross-site fetch metadata', () => {
    assert.equal(checkRequestSource({ host: '127.0.0.1:4321', origin: 'http://127.0.0.1:4321' }, 4321).ok, true);
    assert.equal(checkRequestSource({ host: '127.0.0.1:4321', origin: 'http://evil.example' }, 4321).ok, false);
    assert.equal(checkRequestSource({ host: '127.0.0.1:4321', origin: 'http://127.0.0.1:9999' }, 4321).ok, false);
    assert.equal(checkRequestSource({ host: '127.0.0.1:4321', origin: 'null' }, 4321).ok, false, 'sandboxed frames send Origin: null');
    assert.equal(checkRequestSource({ host: '127.0.0.1:4321', 'sec-fetch-site': 'same-origin' }, 4321).ok, true);
    assert.equal(checkRequestSource({ host: '127.0.0.1:4321', 'sec-fetch-site': 'cross-site' }, 4321).ok, false);
    assert.equal(checkRequestSource({ host: '127.0.0.1:4321', 'sec-fetch-site': 'same-site' }, 4321).ok, false);
  });

  it('authenticates by the session cookie or a bearer token, never by a near miss', () => {
    const cookie = sessionCookie(config).split(';')[0] as string;
    assert.equal(isAuthenticated({ cookie }, config), true);
    assert.equal(isAuthenticated({ cookie: `other=1; ${cookie}; x=2` }, config), true);
    assert.equal(isAuthenticated({ cookie: cookie.replace('4321', '4322') }, config), false, 'another port\'s cookie');
    assert.equal(isAuthenticated({ cookie: `${cookie}x` }, config), false);
    assert.equal(isAuthenticated({ authorization: `Bearer ${config.token}` }, config), true);
    assert.equal(isAuthenticated({ authorization: `Basic ${config.token}` }, config), false);
    assert.equal(isAuthenticated({}, config), false);
    assert.equal(tokenMatches(config.token, config.token), true);
    assert.equal(tokenMatches(config.token.slice(1), config.token), false);
    assert.equal(tokenMatches(null, config.token), false);
    assert.match(sessionCookie(config), /HttpOnly; SameSite=Strict; Path=\/s\/[\w-]{32}\/$/);
  });

  it('derives a secret app root per token, so the cookie\'s path is unguessable', () => {
    assert.equal(appRootFor('a-token'), appRootFor('a-token'));
    assert.notEqual(appRootFor('a-token'), appRootFor('b-token'));
    assert.ok(!appRootFor('a-token').includes('a-token'), 'the root does not reveal the token');
  });
});

describe('serve: the built renderer\'s files', () => {
  it('serves files inside the root and nothing outside it', () => {
    const { dir, cleanup } = tempDir('forager-static-');
    try {
      const root = join(dir, 'renderer');
      mkdirSync(join(root, 'assets'), { recursive: true });
      writeFileSync(join(root, 'index.html'), '<!doctype html><title>app</title>');
      writeFileSync(join(root, 'assets', 'app.js'), 'console.log(1)');
      writeFileSync(join(root, '.secret'), 'x');
      writeFileSync(join(dir, 'outside.txt'), 'outside');
      assert.match(readStaticFile(root, '/')?.body.toString() ?? '', /<title>app/);
      assert.equal(readStaticFile(root, '/assets/app.js')?.contentType, 'text/javascript; charset=utf-8');
      for (const path of ['/../outside.txt', '/assets/../../outside.txt', '/%2e%2e/outside.txt', '/..%2foutside.txt', '/.secret', '/assets/%00', '/%E0%A4%A', '/missing.js']) {
        assert.equal(readStaticFile(root, path), undefined, path);
      }
    } finally {
      cleanup();
    }
  });
});
