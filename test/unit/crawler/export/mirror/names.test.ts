import assert from 'node:assert/strict';
import { posix } from 'node:path';
import { describe, it } from 'node:test';
import { MAX_PATH_CHARS, MAX_SEGMENT_BYTES, MirrorNames, mirrorPath, relativeHref } from '../../../../../crawler/export/mirror/names.ts';

const HASH = '~[0-9a-f]{8}';
const WINDOWS_FORBIDDEN = /[<>:"\\|?*\u0000-\u001f\u007f]/;
const WINDOWS_DEVICE = /^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])$/i;

/** Every segment of a path is a name all of Linux, macOS and Windows accept and show. */
function assertPortable(path: string): void {
  assert.ok(path.length <= MAX_PATH_CHARS + 20, `${path} is too long`);
  for (const segment of path.split('/')) {
    assert.notEqual(segment, '', path);
    assert.doesNotMatch(segment, WINDOWS_FORBIDDEN, path);
    assert.doesNotMatch(segment, /^\.|[. ]$/, path);
    assert.doesNotMatch(segment.split('.')[0] as string, WINDOWS_DEVICE, path);
    assert.ok(Buffer.byteLength(segment) <= MAX_SEGMENT_BYTES + 20, `${segment} is too long`);
  }
  assert.match(path, /\.html?$/i);
}

describe('mirror file names', () => {
  it('reads like the URL: host and port, path segments, index.html for directories, .html added', () => {
    assert.equal(mirrorPath('http://127.0.0.1:8080/db/wal-0'), '127.0.0.1_8080/db/wal-0.html');
    assert.equal(mirrorPath('https://example.org/'), 'example.org/index.html');
    assert.equal(mirrorPath('https://example.org/docs/guide/'), 'example.org/docs/guide/index.html');
    assert.equal(mirrorPath('https://example.org/a/page.html'), 'example.org/a/page.html');
    assert.equal(mirrorPath('https://example.org/a/page.htm'), 'example.org/a/page.htm');
    assert.equal(mirrorPath('https://example.org/view.php'), 'example.org/view.php.html');
    assert.equal(mirrorPath('https://example.org/caf%C3%A9/men%C3%BC'), 'example.org/café/menü.html');
  });

  it('folds a query into the name with a hash of it', () => {
    const first = mirrorPath('https://example.org/search?q=wal&page=2');
    assert.match(first, new RegExp(`^example\\.org/search_q=wal_page=2${HASH}\\.html$`));
    assert.equal(mirrorPath('https://example.org/search?q=wal&page=2'), first, 'stable');
    assert.notEqual(mirrorPath('https://example.org/search?q=wal&page=3'), first);
    assert.match(mirrorPath('https://example.org/list/?p=2'), new RegExp(`^example\\.org/list/index_p=2${HASH}\\.html$`));
    assert.match(mirrorPath('https://example.org/a.html?x=1'), new RegExp(`^example\\.org/a_x=1${HASH}\\.html$`));
    const long = mirrorPath(`https://example.org/s?${'k=v&'.repeat(100)}`);
    assert.ok(long.length < 100, long);
    assertPortable(long);
  });

  it('replaces characters Windows forbids and avoids its device names, hidden files and trailing dots', () => {
    assert.equal(mirrorPath('https://example.org/what%3F%22%3C%3E%7C%3A%2A'), 'example.org/what_.html');
    assert.equal(mirrorPath('https://example.org/a%2Fb%5Cc'), 'example.org/a_b_c.html');
    assert.equal(mirrorPath('https://example.org/a%20b%09c'), 'example.org/a_b_c.html');
    assert.equal(mirrorPath('https://example.org/CON'), 'example.org/_CON.html');
    assert.equal(mirrorPath('https://example.org/con.txt'), 'example.org/_con.txt.html');
    assert.equal(mirrorPath('https://example.org/aux/lpt1/x'), 'example.org/_aux/_lpt1/x.html');
    assert.equal(mirrorPath('https://example.org/.well-known/x'), 'example.org/_well-known/x.html');
    assert.equal(mirrorPath('https://example.org/name.'), 'example.org/name_.html');
    assert.equal(mirrorPath('https://example.org/a//b'), 'example.org/a/_/b.html');
    assert.equal(mirrorPath('https://example.org/%2E%2Ehidden/x'), 'example.org/_.hidden/x.html');
    assert.equal(mirrorPath('http://[::1]:8080/'), '_1_8080/index.html');
  });

  it('never lets a directory take a name that a file can have', () => {
    assert.equal(mirrorPath('https://example.org/a.html/b'), 'example.org/a.html_/b.html');
    assert.equal(mirrorPath('https://index.html/'), 'index.html_/index.html');
  });

  it('names a document by its kind: a PDF ends in .pdf, plain text in .txt, whatever its URL says', () => {
    assert.equal(mirrorPath('https://example.org/papers/wal.pdf', 'pdf'), 'example.org/papers/wal.pdf');
    assert.equal(mirrorPath('https://example.org/papers/WAL.PDF', 'pdf'), 'example.org/papers/WAL.PDF');
    assert.equal(mirrorPath('https://example.org/papers/wal', 'pdf'), 'example.org/papers/wal.pdf');
    assert.equal(mirrorPath('https://example.org/papers/wal.html', 'pdf'), 'example.org/papers/wal.html.pdf');
    assert.equal(mirrorPath('https://example.org/papers/', 'pdf'), 'example.org/papers/index.pdf');
    assert.match(mirrorPath('https://example.org/get?id=7', 'pdf'), new RegExp(`^example\\.org/get_id=7${HASH}\\.pdf$`));
    assert.equal(mirrorPath('https://example.org/notes/readme.txt', 'text'), 'example.org/notes/readme.txt');
    assert.equal(mirrorPath('https://example.org/notes/README', 'text'), 'example.org/notes/README.txt');
    assert.equal(mirrorPath('https://example.org/con.txt', 'text'), 'example.org/_con.txt', 'a device name is still avoided');
    assert.equal(mirrorPath('https://example.org/papers/wal.pdf'), 'example.org/papers/wal.pdf.html', 'a page is HTML whatever its URL says');
  });

  it('never lets a directory take a document\'s name either', () => {
    assert.equal(mirrorPath('https://example.org/a.pdf/b', 'pdf'), 'example.org/a.pdf_/b.pdf');
    assert.equal(mirrorPath('https://example.org/a.txt/b'), 'example.org/a.txt_/b.html');
    const names = new MirrorNames();
    const paths = ['https://example.org/a.pdf', 'https://example.org/A.pdf'].map((url) => names.assign(url, 'pdf'));
    assert.equal(paths[0], 'example.org/a.pdf');
    assert.match(paths[1] as string, new RegExp(`^example\\.org/A${HASH}\\.pdf$`), 'a case-insensitive clash gets a hash before the extension');
  });

  it('caps segment and path lengths, keeping long names distinct', () => {
    const a = mirrorPath(`https://example.org/${'x'.repeat(300)}a`);
    const b = mirrorPath(`https://example.org/${'x'.repeat(300)}b`);
    assert.notEqual(a, b);
    for (const path of [a, b]) {
      const file = path.split('/').pop() as string;
      assert.ok(Buffer.byteLength(file) <= MAX_SEGMENT_BYTES, file);
      assert.match(file, new RegExp(`${HASH}\\.html$`));
    }
    const wide = mirrorPath(`https://example.org/${'é'.repeat(200)}`);
    assert.ok(Buffer.byteLength(wide.split('/').pop() as string) <= MAX_SEGMENT_BYTES);
    const deep = `https://example.org/${Array.from({ length: 40 }, (_, i) => `section-${i}`).join('/')}/page`;
    const folded = mirrorPath(deep);
    assert.ok(folded.length <= MAX_PATH_CHARS, `${folded.length}`);
    assert.match(folded, new RegExp(`^example\\.org/section-0/.*page${HASH}\\.html$`));
    assert.notEqual(folded, mirrorPath(`${deep}2`));
  });

  it('gives every page its own path, case-insensitively and deterministically', () => {
    const urls = [
      'http://example.org/',
      'https://example.org/',
      'http://example.org/index.html',
      'http://example.org/Docs/A',
      'http://example.org/docs/a',
      'http://example.org/docs/a?',
      'http://example.org/CON',
      'http://example.org/_CON',
    ];
    const assign = (): string[] => {
      const names = new MirrorNames();
      return urls.map((url) => names.assign(url));
    };
    const paths = assign();
    assert.deepEqual(assign(), paths, 'the same URLs in the same order get the same paths');
    assert.equal(new Set(paths.map((p) => p.toLowerCase())).size, paths.length, paths.join('\n'));
    assert.equal(paths[0], 'example.org/index.html', 'the first keeps the plain name');
    assert.match(paths[1] as string, new RegExp(`^example\\.org/index${HASH}\\.html$`));
    assert.equal(paths[3], 'example.org/Docs/A.html');
    assert.match(paths[4] as string, new RegExp(`^example\\.org/docs/a${HASH}\\.html$`));
    assert.notEqual(new MirrorNames().assign('http://index.html/'), 'index.html', 'the root index is never taken');
  });

  it('keeps every name portable for hostile URLs', () => {
    const names = new MirrorNames();
    const hostile = [
      'http://example.org/%00%01%1F%7F',
      'http://example.org/..%2F..%2Fetc%2Fpasswd',
      'http://example.org/%E2%80%AE%E2%80%8B',
      'http://example.org/nul.tar.gz/COM1.',
      'http://example.org/ %20 /%20.',
      'http://example.org/a%',
      'http://example.org/%C0%AF',
      `http://example.org/${'%F0%9F%98%80'.repeat(80)}`,
      'http://example.org/x?a=%00&b=<>"|',
      'http://xn--caf-dma.example/',
    ];
    for (const url of hostile) assertPortable(names.assign(url));
  });
});

describe('relative links between mirror files', () => {
  it('goes up and down from the linking file\'s folder and encodes each segment', () => {
    assert.equal(relativeHref('h/a/b.html', 'h/a/c.html'), 'c.html');
    assert.equal(relativeHref('h/a/b.html', 'h/a/b.html'), 'b.html');
    assert.equal(relativeHref('h/a/b/c.html', 'h/x/y.html'), '../../x/y.html');
    assert.equal(relativeHref('h/a.html', 'g/b/c.html'), '../g/b/c.html');
    assert.equal(relativeHref('h/Docs/a.html', 'h/docs/b.html'), '../docs/b.html');
    assert.equal(relativeHref('index.html', 'h/café.html'), 'h/caf%C3%A9.html');
    assert.equal(relativeHref('h/d/x.html', 'index.html'), '../../index.html');
  });

  it('resolves to the target file from the linking file', () => {
    const pairs = [
      ['127.0.0.1_80/db/wal-0.html', '127.0.0.1_80/garden/p-3.html'],
      ['example.org/a/b/c/d.html', 'example.org/a/e.html'],
      ['example.org/q_x=1~00000000.html', 'other.org/$weird (name)+.html'],
    ] as const;
    for (const [from, to] of pairs) {
      const resolved = new URL(relativeHref(from, to), `file:///mirror/${from}`);
      assert.equal(decodeURIComponent(resolved.pathname), posix.join('/mirror', to));
    }
  });
});
