import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { APP_CSP, isAppUrl, resolveAppFile, serveAppFile } from '../../../../electron/main/app-files.ts';
import { APP_ENTRY_URL } from '../../../../electron/shared/app-origin.ts';

let base: string;
let root: string;

before(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'forager-app-files-'));
  root = path.join(base, 'renderer');
  await mkdir(path.join(root, 'assets'), { recursive: true });
  await writeFile(path.join(root, 'index.html'), '<!doctype html><title>Forager</title>');
  await writeFile(path.join(root, 'assets', 'index-abc.js'), 'console.log(1)');
  await writeFile(path.join(root, 'assets', 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(path.join(base, 'secret.txt'), 'outside the renderer folder');
  await mkdir(path.join(base, 'renderer-evil'));
  await writeFile(path.join(base, 'renderer-evil', 'x.js'), 'sibling folder with a shared prefix');
});

after(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('resolveAppFile', () => {
  test('the root and index.html name the entry page', () => {
    assert.equal(resolveAppFile('app://forager/', root), path.join(root, 'index.html'));
    assert.equal(resolveAppFile('app://forager', root), path.join(root, 'index.html'));
    assert.equal(resolveAppFile(APP_ENTRY_URL, root), path.join(root, 'index.html'));
    assert.equal(resolveAppFile('app://forager/index.html?x=1#/pages', root), path.join(root, 'index.html'));
  });

  test('nested assets resolve inside the folder, percent-encoded names decoded', () => {
    assert.equal(resolveAppFile('app://forager/assets/index-abc.js', root), path.join(root, 'assets', 'index-abc.js'));
    assert.equal(resolveAppFile('app://forager/assets/a%20b.js', root), path.join(root, 'assets', 'a b.js'));
  });

  test('dot segments never leave the folder', () => {
    // The URL parser removes plain and %2e dot segments before we see the path;
    // whatever remains must still be inside the folder.
    for (const url of [
      'app://forager/../secret.txt',
      'app://forager/../../../../etc/passwd',
      'app://forager/assets/../../secret.txt',
      'app://forager/%2e%2e/secret.txt',
      'app://forager/%2E%2E/%2e%2e/secret.txt',
      'app://forager/.%2e/renderer-evil/x.js',
      'app://forager/%2e',
      'app://forager/./index.html',
    ]) {
      const file = resolveAppFile(url, root);
      if (file === undefined) continue;
      assert.ok(file.startsWith(root + path.sep), `${url} resolved to ${file}`);
    }
  });

  test('encoded separators, backslashes, NULs and leftover dot segments are refused', () => {
    for (const url of [
      'app://forager/..%2fsecret.txt',
      'app://forager/..%2Fsecret.txt',
      'app://forager/assets%2f..%2f..%2fsecret.txt',
      'app://forager/..%5csecret.txt',
      'app://forager/..\\secret.txt',
      'app://forager/%252e%252e/secret.txt',
      'app://forager/index.html%00.js',
      'app://forager/C:%5cWindows%5cwin.ini',
      'app://forager/%E0%A4%A',
    ]) {
      const file = resolveAppFile(url, root);
      if (url.includes('%252e')) {
        // A double-encoded dot segment is a file literally named "%2e%2e": harmless, and inside.
        assert.ok(file === undefined || file.startsWith(root + path.sep), url);
        continue;
      }
      assert.equal(file, undefined, url);
    }
  });

  test('absolute paths stay relative to the folder', () => {
    assert.equal(resolveAppFile('app://forager//etc/passwd', root), path.join(root, 'etc', 'passwd'));
    assert.equal(resolveAppFile(`app://forager/${encodeURIComponent(path.join(base, 'secret.txt'))}`, root), undefined);
  });

  test('other hosts and schemes are refused', () => {
    for (const url of [
      'app://evil/index.html',
      'app://forager.evil/index.html',
      'app://forager:8080/index.html',
      'app://user@forager/index.html',
      'file:///index.html',
      `file://${path.join(root, 'index.html')}`,
      'https://forager/index.html',
      'forager-page://forager/index.html',
      'not a url',
    ]) {
      assert.equal(resolveAppFile(url, root), undefined, url);
    }
  });
});

describe('isAppUrl', () => {
  test('only app://forager counts as the app', () => {
    assert.equal(isAppUrl(APP_ENTRY_URL), true);
    assert.equal(isAppUrl('app://forager/assets/x.js'), true);
    assert.equal(isAppUrl('app://other/index.html'), false);
    assert.equal(isAppUrl('https://forager/index.html'), false);
    assert.equal(isAppUrl('junk'), false);
  });
});

describe('serveAppFile', () => {
  test('index.html is served as HTML with the CSP', async () => {
    const response = await serveAppFile({ url: APP_ENTRY_URL, method: 'GET' }, root);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(response.headers.get('content-security-policy'), APP_CSP);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(await response.text(), '<!doctype html><title>Forager</title>');
  });

  test('the CSP keeps scripts to the app and frames to stored pages', () => {
    const directives = new Map(APP_CSP.split(';').map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name, values.join(' ')];
    }));
    assert.equal(directives.get('default-src'), "'self'");
    assert.equal(directives.get('script-src'), "'self'");
    assert.equal(directives.get('frame-src'), 'forager-page:');
    assert.equal(directives.get('object-src'), "'none'");
    assert.equal(directives.get('base-uri'), "'none'");
    assert.equal(directives.get('form-action'), "'none'");
    assert.doesNotMatch(APP_CSP, /unsafe-eval|\*/);
  });

  test('scripts get a JavaScript type (module scripts need one)', async () => {
    const response = await serveAppFile({ url: 'app://forager/assets/index-abc.js', method: 'GET' }, root);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(await response.text(), 'console.log(1)');
  });

  test('HEAD has the headers and no body', async () => {
    const response = await serveAppFile({ url: 'app://forager/assets/logo.svg', method: 'HEAD' }, root);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'image/svg+xml');
    assert.equal(response.body, null);
  });

  test('missing files, folders and refused URLs are 404 and reveal nothing', async () => {
    for (const url of ['app://forager/nope.js', 'app://forager/assets', 'app://forager/..%2fsecret.txt', 'app://evil/index.html']) {
      const response = await serveAppFile({ url, method: 'GET' }, root);
      assert.equal(response.status, 404, url);
      assert.equal(await response.text(), 'Not found');
    }
  });

  test('other methods are refused', async () => {
    const response = await serveAppFile({ url: APP_ENTRY_URL, method: 'POST' }, root);
    assert.equal(response.status, 405);
  });
});
