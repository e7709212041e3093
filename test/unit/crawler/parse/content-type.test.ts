import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isParseableHtml, parseContentType, sniffLooksBinary } from '../../../../crawler/parse/content-type.ts';

test('parseContentType: ordinary values', () => {
  assert.deepEqual(parseContentType('text/html; charset=UTF-8'), { mime: 'text/html', charset: 'UTF-8' });
  assert.deepEqual(parseContentType('text/html'), { mime: 'text/html' });
  assert.deepEqual(parseContentType('TEXT/HTML;Charset="iso-8859-1"'), { mime: 'text/html', charset: 'iso-8859-1' });
  assert.deepEqual(parseContentType('application/xhtml+xml ; charset = utf-8 '), { mime: 'application/xhtml+xml', charset: 'utf-8' });
  assert.deepEqual(parseContentType('text/html; boundary=x; charset=shift_jis; charset=utf-8'), { mime: 'text/html', charset: 'shift_jis' });
  assert.deepEqual(parseContentType('text/html; charset="we\\"ird"'), { mime: 'text/html', charset: 'we"ird' });
});

test('parseContentType: absent and junk values give an empty mime, never a throw', () => {
  assert.deepEqual(parseContentType(undefined), { mime: '' });
  assert.deepEqual(parseContentType(''), { mime: '' });
  assert.deepEqual(parseContentType('html'), { mime: '' });
  assert.deepEqual(parseContentType(';;;'), { mime: '' });
  assert.deepEqual(parseContentType('text/'), { mime: '' });
  assert.deepEqual(parseContentType('/html'), { mime: '' });
  assert.deepEqual(parseContentType('text/ht ml'), { mime: '' });
  assert.deepEqual(parseContentType('*/*'), { mime: '' });
  assert.deepEqual(parseContentType('text/html;;charset='), { mime: 'text/html' });
  assert.deepEqual(parseContentType('text/html; charset'), { mime: 'text/html' });
  assert.deepEqual(parseContentType('text/html; charset="unterminated'), { mime: 'text/html', charset: 'unterminated' });
  assert.deepEqual(parseContentType('text/html\u00e9'), { mime: '' });
});

test('parseContentType: a repeated header (comma-joined) keeps the last valid type', () => {
  assert.deepEqual(parseContentType('text/plain, text/html'), { mime: 'text/html' });
  // Same essence again: the earlier charset stays.
  assert.deepEqual(parseContentType('text/html; charset=gbk, text/html'), { mime: 'text/html', charset: 'gbk' });
  assert.deepEqual(parseContentType('text/html; charset=gbk, text/html; charset=utf-8'), { mime: 'text/html', charset: 'utf-8' });
  // Different essence: the earlier charset does not carry over.
  assert.deepEqual(parseContentType('text/plain; charset=gbk, text/html'), { mime: 'text/html' });
  assert.deepEqual(parseContentType('text/html, garbage'), { mime: 'text/html' });
  // A comma inside a quoted parameter is not a separator.
  assert.deepEqual(parseContentType('text/html; charset="a,b"'), { mime: 'text/html', charset: 'a,b' });
});

test('isParseableHtml accepts only HTML and XHTML', () => {
  assert.equal(isParseableHtml('text/html'), true);
  assert.equal(isParseableHtml('application/xhtml+xml'), true);
  for (const mime of ['text/plain', 'application/xml', 'text/xml', 'application/rss+xml', 'image/png', '', 'TEXT/HTML']) {
    assert.equal(isParseableHtml(mime), false, mime);
  }
});

function bytesOf(...parts: (number[] | string)[]): Uint8Array {
  const out: number[] = [];
  for (const part of parts) {
    if (typeof part === 'string') for (const ch of Buffer.from(part, 'latin1')) out.push(ch);
    else out.push(...part);
  }
  return Uint8Array.from(out);
}

test('sniffLooksBinary catches magic numbers of common binary formats', () => {
  const cases: Record<string, Uint8Array> = {
    png: bytesOf([0x89], 'PNG\r\n\x1a\n', 'IHDR'),
    gif: bytesOf('GIF89a<html>'),
    jpeg: bytesOf([0xff, 0xd8, 0xff, 0xe0], 'JFIF'),
    zip: bytesOf('PK\x03\x04', '<html>'),
    pdf: bytesOf('%PDF-1.7\n<html>'),
    gzip: bytesOf([0x1f, 0x8b, 0x08], '<html>'),
    mp4: bytesOf([0x00, 0x00, 0x00, 0x20], 'ftypisom'),
    webp: bytesOf('RIFF', [0x24, 0x01, 0x00, 0x00], 'WEBPVP8 '),
    elf: bytesOf([0x7f], 'ELF<html>'),
  };
  for (const [name, bytes] of Object.entries(cases)) {
    assert.equal(sniffLooksBinary(bytes), true, name);
  }
});

test('sniffLooksBinary: NUL and control bytes in the first 1 KiB', () => {
  assert.equal(sniffLooksBinary(bytesOf('<html><body>hi', [0x00], '</body></html>')), true);
  // A NUL after the first 1 KiB is not looked at.
  assert.equal(sniffLooksBinary(bytesOf('<p>' + 'x'.repeat(1100), [0x00])), false);
  // One or two stray control bytes occur in legacy pages; eight or more do not.
  assert.equal(sniffLooksBinary(bytesOf('<p>caf', [0x1a], ' x', [0x0b], '</p>')), false);
  assert.equal(sniffLooksBinary(bytesOf('<p>', [1, 2, 3, 4, 5, 6, 7, 8], '</p>')), true);
  assert.equal(sniffLooksBinary(bytesOf('<p>', [1, 2, 3, 4, 5, 6, 7], '</p>')), false);
  // Tab, newline, carriage return, form feed and escape are text.
  assert.equal(sniffLooksBinary(bytesOf('<p>\t\n\r\x0c\x1b[0m</p>')), false);
});

test('sniffLooksBinary passes real text, including UTF-16 with a BOM', () => {
  assert.equal(sniffLooksBinary(new Uint8Array(0)), false);
  assert.equal(sniffLooksBinary(bytesOf('<!doctype html><html><body>Caf\u00e9</body></html>')), false);
  assert.equal(sniffLooksBinary(Uint8Array.from(Buffer.from('<p>\u65e5\u672c\u8a9e</p>', 'utf8'))), false);
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<html>hi</html>', 'utf16le')]);
  assert.equal(sniffLooksBinary(Uint8Array.from(utf16)), false);
  // The same text without its BOM is indistinguishable from binary here.
  assert.equal(sniffLooksBinary(Uint8Array.from(Buffer.from('<html>hi</html>', 'utf16le'))), true);
  // Words that merely start like a magic number are text.
  assert.equal(sniffLooksBinary(bytesOf('GIF is a format')), false);
  assert.equal(sniffLooksBinary(bytesOf('PK <html>')), false);
});
