import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  charsetFromMetaContent,
  decodeHtml,
  detectBom,
  prescanMetaCharset,
  resolveEncodingLabel,
} from '../../../../crawler/parse/charset.ts';

function latin1(s: string): Uint8Array {
  return Uint8Array.from(Buffer.from(s, 'latin1'));
}
function utf8(s: string): Uint8Array {
  return Uint8Array.from(Buffer.from(s, 'utf8'));
}
function concat(...parts: (Uint8Array | number[])[]): Uint8Array {
  return Uint8Array.from(Buffer.concat(parts.map((p) => Buffer.from(p))));
}

test('resolveEncodingLabel uses TextDecoder labels and rejects unknown ones', () => {
  assert.equal(resolveEncodingLabel('UTF-8'), 'utf-8');
  assert.equal(resolveEncodingLabel('utf8'), 'utf-8');
  assert.equal(resolveEncodingLabel('latin1'), 'windows-1252');
  assert.equal(resolveEncodingLabel('ISO-8859-1'), 'windows-1252');
  assert.equal(resolveEncodingLabel('sjis'), 'shift_jis');
  assert.equal(resolveEncodingLabel('gb2312'), 'gbk');
  assert.equal(resolveEncodingLabel('no-such-charset'), null);
  assert.equal(resolveEncodingLabel('iso-2022-kr'), null); // the "replacement" encoding
  assert.equal(resolveEncodingLabel(''), null);
  assert.equal(resolveEncodingLabel('x'.repeat(200)), null);
});

test('detectBom', () => {
  assert.equal(detectBom(Uint8Array.from([0xef, 0xbb, 0xbf, 0x41])), 'utf-8');
  assert.equal(detectBom(Uint8Array.from([0xfe, 0xff, 0, 0x41])), 'utf-16be');
  assert.equal(detectBom(Uint8Array.from([0xff, 0xfe, 0x41, 0])), 'utf-16le');
  assert.equal(detectBom(Uint8Array.from([0xef, 0xbb])), null);
  assert.equal(detectBom(new Uint8Array(0)), null);
});

test('the header charset wins over meta and default', () => {
  const bytes = latin1('<meta charset="utf-8"><p>caf\u00e9</p>');
  const r = decodeHtml(bytes, 'ISO-8859-1');
  assert.deepEqual(r, { text: '<meta charset="utf-8"><p>caf\u00e9</p>', charset: 'windows-1252', source: 'header' });
});

test('an unknown header label falls through to the meta prescan', () => {
  const bytes = latin1('<meta charset="windows-1252"><p>caf\u00e9 \u0080</p>');
  const r = decodeHtml(bytes, 'x-bogus');
  assert.equal(r.source, 'meta');
  assert.equal(r.charset, 'windows-1252');
  assert.equal(r.text, '<meta charset="windows-1252"><p>caf\u00e9 \u20ac</p>');
});

test('a BOM that contradicts the header wins, and is stripped from the text', () => {
  const bytes = concat([0xef, 0xbb, 0xbf], utf8('<p>na\u00efve</p>'));
  const r = decodeHtml(bytes, 'windows-1252');
  assert.deepEqual(r, { text: '<p>na\u00efve</p>', charset: 'utf-8', source: 'bom' });
});

test('a BOM that agrees with the header reports the header', () => {
  const bytes = concat([0xef, 0xbb, 0xbf], utf8('<p>\u00e9</p>'));
  assert.deepEqual(decodeHtml(bytes, 'utf-8'), { text: '<p>\u00e9</p>', charset: 'utf-8', source: 'header' });
});

test('a UTF-16 BOM without a header decodes UTF-16', () => {
  const le = concat([0xff, 0xfe], Uint8Array.from(Buffer.from('<p>\u00fc\u65e5</p>', 'utf16le')));
  assert.deepEqual(decodeHtml(le), { text: '<p>\u00fc\u65e5</p>', charset: 'utf-16le', source: 'bom' });
  const beBody = Buffer.from('<p>ok</p>', 'utf16le').swap16();
  const be = concat([0xfe, 0xff], Uint8Array.from(beBody));
  assert.deepEqual(decodeHtml(be), { text: '<p>ok</p>', charset: 'utf-16be', source: 'bom' });
});

test('meta prescan: <meta charset> and http-equiv forms', () => {
  assert.equal(prescanMetaCharset(latin1('<html><head><meta charset="Shift_JIS">')), 'shift_jis');
  assert.equal(prescanMetaCharset(latin1("<META CHARSET='euc-kr'>")), 'euc-kr');
  assert.equal(prescanMetaCharset(latin1('<meta charset=gb18030>')), 'gb18030');
  assert.equal(prescanMetaCharset(latin1('<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-2">')), 'iso-8859-2');
  assert.equal(prescanMetaCharset(latin1('<meta content="text/html;charset=koi8-r" http-equiv=content-type />')), 'koi8-r');
  // content=...charset without the http-equiv pragma does not count.
  assert.equal(prescanMetaCharset(latin1('<meta content="text/html; charset=koi8-r">')), null);
});

test('meta prescan: skips comments, other tags\' quoted ">", unknown labels, and stops at 1024 bytes', () => {
  assert.equal(prescanMetaCharset(latin1('<!-- <meta charset="koi8-r"> --><meta charset="iso-8859-5">')), 'iso-8859-5');
  assert.equal(prescanMetaCharset(latin1('<!--><meta charset="koi8-r">')), 'koi8-r');
  assert.equal(prescanMetaCharset(latin1('<div title="<meta charset=koi8-r>"><meta charset="big5">')), 'big5');
  assert.equal(prescanMetaCharset(latin1('<meta charset="nonsense"><meta charset="euc-jp">')), 'euc-jp');
  assert.equal(prescanMetaCharset(latin1('<metal charset="koi8-r">')), null);
  // A repeated attribute counts once, the first time.
  assert.equal(prescanMetaCharset(latin1('<meta charset="koi8-r" charset="utf-8">')), 'koi8-r');
  const late = latin1('<p>' + 'x'.repeat(1030) + '<meta charset="koi8-r">');
  assert.equal(prescanMetaCharset(late), null);
  const early = latin1('<p>' + 'x'.repeat(990) + '<meta charset="koi8-r">');
  assert.equal(prescanMetaCharset(early), 'koi8-r');
});

test('meta prescan: UTF-16 labels mean UTF-8 and x-user-defined means windows-1252', () => {
  assert.equal(prescanMetaCharset(latin1('<meta charset="utf-16">')), 'utf-8');
  assert.equal(prescanMetaCharset(latin1('<meta charset="UTF-16BE">')), 'utf-8');
  assert.equal(prescanMetaCharset(latin1('<meta charset="x-user-defined">')), 'windows-1252');
});

test('charsetFromMetaContent', () => {
  assert.equal(charsetFromMetaContent('text/html; charset=utf-8'), 'utf-8');
  assert.equal(charsetFromMetaContent('text/html; CHARSET = "big5" ; x'), 'big5');
  assert.equal(charsetFromMetaContent("text/html;charset='sjis'"), 'sjis');
  assert.equal(charsetFromMetaContent('text/html; charsetx; charset=koi8-r'), 'koi8-r');
  assert.equal(charsetFromMetaContent('text/html'), null);
  assert.equal(charsetFromMetaContent('charset="unterminated'), null);
  assert.equal(charsetFromMetaContent('charset='), null);
});

test('CJK legacy encodings decode through TextDecoder', () => {
  // "日本" in Shift_JIS, "한국" in EUC-KR, "中文" in GB18030.
  const sjis = concat(latin1('<meta charset="shift_jis"><p>'), [0x93, 0xfa, 0x96, 0x7b], latin1('</p>'));
  assert.deepEqual(decodeHtml(sjis), { text: '<meta charset="shift_jis"><p>\u65e5\u672c</p>', charset: 'shift_jis', source: 'meta' });
  const euckr = concat(latin1('<p>'), [0xc7, 0xd1, 0xb1, 0xb9], latin1('</p>'));
  assert.deepEqual(decodeHtml(euckr, 'euc-kr'), { text: '<p>\ud55c\uad6d</p>', charset: 'euc-kr', source: 'header' });
  const gb = concat(latin1('<p>'), [0xd6, 0xd0, 0xce, 0xc4], latin1('</p>'));
  assert.deepEqual(decodeHtml(gb, 'GB18030'), { text: '<p>\u4e2d\u6587</p>', charset: 'gb18030', source: 'header' });
});

test('default: valid UTF-8 is UTF-8, anything else windows-1252', () => {
  assert.deepEqual(decodeHtml(utf8('<p>\u00e9\u20ac\u65e5</p>')), { text: '<p>\u00e9\u20ac\u65e5</p>', charset: 'utf-8', source: 'default' });
  assert.deepEqual(decodeHtml(latin1('<p>plain ascii</p>')), { text: '<p>plain ascii</p>', charset: 'utf-8', source: 'default' });
  // 0xE9 alone is not UTF-8; in windows-1252 it is é, and 0x80 is €.
  const legacy = Uint8Array.from([0x3c, 0x70, 0x3e, 0xe9, 0x80, 0x3c, 0x2f, 0x70, 0x3e]);
  assert.deepEqual(decodeHtml(legacy), { text: '<p>\u00e9\u20ac</p>', charset: 'windows-1252', source: 'default' });
  assert.deepEqual(decodeHtml(new Uint8Array(0)), { text: '', charset: 'utf-8', source: 'default' });
});

test('mislabelled pages decode without throwing, as documented', () => {
  // Header says UTF-8, bytes are latin1: the lone high byte becomes U+FFFD.
  const r1 = decodeHtml(latin1('<p>caf\u00e9 ok</p>'), 'utf-8');
  assert.deepEqual(r1, { text: '<p>caf\ufffd ok</p>', charset: 'utf-8', source: 'header' });
  // Header says iso-8859-1, bytes are UTF-8: mojibake.
  const r2 = decodeHtml(utf8('<p>caf\u00e9</p>'), 'iso-8859-1');
  assert.deepEqual(r2, { text: '<p>caf\u00c3\u00a9</p>', charset: 'windows-1252', source: 'header' });
  // Meta says UTF-8 over truncated multi-byte sequences.
  const r3 = decodeHtml(concat(latin1('<meta charset=utf-8><p>'), [0xe6, 0x97]));
  assert.deepEqual(r3, { text: '<meta charset=utf-8><p>\ufffd', charset: 'utf-8', source: 'meta' });
});
