import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { externalLinkTarget } from '../../../../electron/shared/external-links.ts';
import { mayNavigate } from '../../../../electron/main/navigation-policy.ts';

describe('externalLinkTarget', () => {
  test('http and https links pass, re-serialised by the URL parser', () => {
    assert.equal(externalLinkTarget('https://www.sqlite.org/wal.html'), 'https://www.sqlite.org/wal.html');
    assert.equal(externalLinkTarget('http://example.org'), 'http://example.org/');
    assert.equal(externalLinkTarget('HTTPS://Example.ORG/a b?q=1#x'), 'https://example.org/a%20b?q=1#x');
    assert.equal(externalLinkTarget('https://[::1]:8443/x'), 'https://[::1]:8443/x');
  });

  test('script, file, data and other built-in schemes are refused', () => {
    for (const url of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      ' javascript:alert(1)',
      'java\tscript:alert(1)',
      'file:///etc/passwd',
      'file://server/share/x.exe',
      'data:text/html,<script>alert(1)</script>',
      'blob:https://example.org/0d4b',
      'about:blank',
      'ftp://example.org/x',
      'ws://example.org/',
      'mailto:someone@example.org',
      'vbscript:msgbox(1)',
    ]) {
      assert.equal(externalLinkTarget(url), undefined, url);
    }
  });

  test('custom and app schemes are refused', () => {
    for (const url of ['app://forager/index.html', 'forager-page://wal/3', 'ms-msdt:/id', 'smb://host/share', 'x-scheme-handler://a', 'steam://run/1']) {
      assert.equal(externalLinkTarget(url), undefined, url);
    }
  });

  test('malformed or absurd input is refused', () => {
    for (const url of ['', 'not a url', 'https://', 'http://', '//example.org/x', '/relative', `https://example.org/${'a'.repeat(9_000)}`, 42, null, undefined, { href: 'https://example.org/' }]) {
      assert.equal(externalLinkTarget(url), undefined, String(url).slice(0, 40));
    }
  });

  test('credentials in the URL are refused: they disguise the real host', () => {
    assert.equal(externalLinkTarget('https://www.bank.example@evil.example/'), undefined);
    assert.equal(externalLinkTarget('https://user:pass@example.org/'), undefined);
  });
});

describe('mayNavigate', () => {
  test('the window itself only shows the app', () => {
    assert.equal(mayNavigate('app://forager/index.html', true), true);
    assert.equal(mayNavigate('app://forager/index.html#/pages', true), true);
    for (const url of ['https://example.org/', 'forager-page://wal/3', 'file:///etc/passwd', 'app://evil/index.html', 'about:blank', 'javascript:alert(1)']) {
      assert.equal(mayNavigate(url, true), false, url);
    }
  });

  test('frames show stored pages or a blank document, never the web', () => {
    assert.equal(mayNavigate('forager-page://wal/3', false), true);
    assert.equal(mayNavigate('forager-page://external/?url=https%3A%2F%2Fexample.org%2F', false), true);
    assert.equal(mayNavigate('about:blank', false), true);
    for (const url of ['https://example.org/', 'http://127.0.0.1:3000/', 'file:///etc/passwd', 'data:text/html,x', 'javascript:alert(1)', 'app://forager/index.html']) {
      assert.equal(mayNavigate(url, false), false, url);
    }
  });
});
