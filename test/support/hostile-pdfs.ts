/*
 * Hand-made PDFs: a small well-formed one (text on known pages, a title, link annotations) and
 * the hostile ones a crawler meets or can be sent on purpose. Each is built object by object with
 * a correct cross-reference table, so that what is wrong with it is only what the name says.
 */
import { constants, deflateRawSync, deflateSync } from 'node:zlib';

type PdfObject = string | Buffer;

/** A PDF file of the given objects (numbered from 1, the first being the catalog), with its xref table and trailer. */
export function pdfFile(objects: readonly PdfObject[], trailerExtra = ''): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(length);
    const part = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), typeof body === 'string' ? Buffer.from(body, 'latin1') : body, Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(part);
    length += part.length;
  });
  const xref = ['xref', `0 ${objects.length + 1}`, '0000000000 65535 f ', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `)].join('\n');
  parts.push(Buffer.from(`${xref}\ntrailer\n<</Size ${objects.length + 1}/Root 1 0 R${trailerExtra}>>\nstartxref\n${length}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

/** A stream object: its dictionary entries and data (deflated when `deflate`). */
export function streamObject(data: Buffer | string, dictionary = '', deflate = false): Buffer {
  const raw = typeof data === 'string' ? Buffer.from(data, 'latin1') : data;
  const body = deflate ? deflateSync(raw) : raw;
  return Buffer.concat([Buffer.from(`<</Length ${body.length}${deflate ? '/Filter/FlateDecode' : ''}${dictionary}>>\nstream\n`, 'latin1'), body, Buffer.from('\nendstream', 'latin1')]);
}

function escapePdfString(text: string): string {
  return text.replace(/[\\()]/g, (c) => `\\${c}`);
}

/** A content stream writing each line of `text` in Helvetica from the top of a US Letter page. */
function textContent(lines: readonly string[]): string {
  return ['BT', '/F1 12 Tf', '14 TL', '72 720 Td', ...lines.map((line) => `(${escapePdfString(line)}) '`), 'ET'].join('\n');
}

export interface SimplePdfLink {
  /** The page (1-based) the annotation is on. */
  page: number;
  uri: string;
  /** The line (0-based) of that page the annotation covers. */
  line: number;
}

export interface SimplePdfOptions {
  /** The Info dictionary's Title; none when absent. */
  title?: string;
  author?: string;
  links?: readonly SimplePdfLink[];
}

/** A well-formed PDF whose pages hold the given lines, with URI link annotations over whole lines. */
export function simplePdf(pages: readonly (readonly string[])[], options: SimplePdfOptions = {}): Buffer {
  // 1 catalog, 2 pages, 3 font, 4 info, then per page: the page and its content stream.
  const objects: PdfObject[] = [];
  const pageRef = (i: number): number => 5 + 2 * i;
  objects.push('<</Type/Catalog/Pages 2 0 R/Lang(en-GB)>>');
  objects.push(`<</Type/Pages/Count ${pages.length}/Kids[${pages.map((_, i) => `${pageRef(i)} 0 R`).join(' ')}]>>`);
  objects.push('<</Type/Font/Subtype/Type1/BaseFont/Helvetica/Encoding/WinAnsiEncoding>>');
  const info = [options.title === undefined ? '' : `/Title(${escapePdfString(options.title)})`, options.author === undefined ? '' : `/Author(${escapePdfString(options.author)})`, '/CreationDate(D:20240131120000Z)'];
  objects.push(`<<${info.join('')}>>`);
  pages.forEach((lines, i) => {
    const annots = (options.links ?? [])
      .filter((link) => link.page === i + 1)
      .map((link) => {
        const baseline = 720 - 14 * (link.line + 1);
        return `<</Type/Annot/Subtype/Link/Rect[70 ${baseline - 3} 540 ${baseline + 11}]/Border[0 0 0]/A<</S/URI/URI(${escapePdfString(link.uri)})>>>>`;
      });
    objects.push(`<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</Font<</F1 3 0 R>>>>/Contents ${pageRef(i) + 1} 0 R${annots.length > 0 ? `/Annots[${annots.join(' ')}]` : ''}>>`);
    objects.push(streamObject(textContent(lines)));
  });
  return pdfFile(objects, '/Info 4 0 R');
}

/** Encrypted with a user password (RC4, revision 2): without the password nothing can be read. */
export function encryptedPdf(): Buffer {
  const ownerKey = 'a'.repeat(64);
  // A user key the empty password does not produce: a reader needs the password.
  const userKey = 'b'.repeat(64);
  return pdfFile(
    ['<</Type/Catalog/Pages 2 0 R>>', '<</Type/Pages/Count 1/Kids[3 0 R]>>', '<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R>>', streamObject('encrypted bytes'), `<</Filter/Standard/V 1/R 2/O<${ownerKey}>/U<${userKey}>/P -4>>`],
    '/Encrypt 5 0 R/ID[<00112233445566778899aabbccddeeff><00112233445566778899aabbccddeeff>]',
  );
}

/** A PDF header and then nothing a reader can use. */
export function malformedPdf(): Buffer {
  return Buffer.concat([Buffer.from('%PDF-1.4\n', 'latin1'), Buffer.from('this is not a PDF at all, no objects, no xref, no trailer\n'.repeat(200), 'latin1')]);
}

/** A well-formed PDF cut short at `keep` of its length: no xref, no trailer, no %%EOF. */
export function truncatedPdf(keep = 0.6): Buffer {
  const whole = simplePdf(Array.from({ length: 6 }, (_, i) => [`Page ${i + 1} of a document that was cut short in transfer.`]), { title: 'Cut short' });
  return whole.subarray(0, Math.floor(whole.length * keep));
}

/**
 * zlib data that inflates to `length` copies of `byte`, built without holding them: independent
 * raw deflate blocks of one megabyte each, a final empty block, and the Adler-32 of the whole run
 * (for n copies of b: A = 1 + n·b, B = n + b·n(n+1)/2, both mod 65521).
 */
function zlibOfRepeatedByte(byte: number, length: number): Buffer {
  const chunkLength = 1 << 20;
  const block = (n: number): Buffer => deflateRawSync(Buffer.alloc(n, byte), { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
  const whole = block(chunkLength);
  const blocks: Buffer[] = [Buffer.from([0x78, 0xda])];
  for (let left = length; left > 0; left -= chunkLength) blocks.push(left >= chunkLength ? whole : block(left));
  blocks.push(Buffer.from([0x03, 0x00]));
  const n = BigInt(length);
  const b = BigInt(byte);
  const a = (1n + n * b) % 65521n;
  const s = (n + (b * n * (n + 1n)) / 2n) % 65521n;
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(Number((s << 16n) | a));
  blocks.push(adler);
  return Buffer.concat(blocks);
}

/**
 * A page whose content stream is a little deflate that inflates to `inflatedBytes` of spaces
 * (a kilobyte a megabyte): the reader must refuse it rather than inflate it.
 */
export function inflationBombPdf(inflatedBytes: number): Buffer {
  const content = streamObject(zlibOfRepeatedByte(0x20, inflatedBytes), '/Filter/FlateDecode');
  return pdfFile(['<</Type/Catalog/Pages 2 0 R>>', '<</Type/Pages/Count 1/Kids[3 0 R]>>', '<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R>>', content]);
}

/** An array nested `depth` deep in the page's resources: a recursive parser runs out of stack. */
export function deeplyNestedPdf(depth = 100_000): Buffer {
  const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
  return pdfFile(['<</Type/Catalog/Pages 2 0 R>>', '<</Type/Pages/Count 1/Kids[3 0 R]>>', `<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</Deep ${nested}>>/Contents 4 0 R>>`, streamObject(textContent(['Nested deeply.']))]);
}

/** `pageCount` pages (each a page object of its own, all sharing one short content stream) under a two-level page tree. */
export function manyPagesPdf(pageCount = 100_000): Buffer {
  const perNode = 1000;
  const nodes = Math.ceil(pageCount / perNode);
  // 1 catalog, 2 root, 3 content, 4 font, then the intermediate nodes, then the pages.
  const firstNode = 5;
  const firstPage = firstNode + nodes;
  const objects: PdfObject[] = ['<</Type/Catalog/Pages 2 0 R>>'];
  objects.push(`<</Type/Pages/Count ${pageCount}/Kids[${Array.from({ length: nodes }, (_, n) => `${firstNode + n} 0 R`).join(' ')}]>>`);
  objects.push(streamObject(textContent(['One of very many pages.'])));
  objects.push('<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>');
  for (let n = 0; n < nodes; n++) {
    const count = Math.min(perNode, pageCount - n * perNode);
    objects.push(`<</Type/Pages/Parent 2 0 R/Count ${count}/Kids[${Array.from({ length: count }, (_, k) => `${firstPage + n * perNode + k} 0 R`).join(' ')}]>>`);
  }
  for (let p = 0; p < pageCount; p++) objects.push(`<</Type/Page/Parent ${firstNode + Math.floor(p / perNode)} 0 R/MediaBox[0 0 612 792]/Resources<</Font<</F1 4 0 R>>>>/Contents 3 0 R>>`);
  return pdfFile(objects);
}
