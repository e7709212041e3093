/**
 * Proves a WACZ well formed by reading all of it back: the zip's entries (CRC-32 and
 * sizes), the data package's digest, every resource's size and sha256, every WARC record
 * (warcio's parser; block and payload digests recomputed), every index line against the
 * record it points at, and every page against the index. Never throws: a file that cannot
 * be read is reported as not ok, in words.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import { crc32 } from 'node:zlib';
import { openPromise, type Entry, type ZipFile } from 'yauzl';
import { DATAPACKAGE_PATH, DIGEST_PATH, PAGES_FORMAT, PAGES_PATH } from './package.ts';
import { checkWarc, type IndexedRecord } from './verify-warc.ts';
import { REVISIT_MIME } from '../warc/records.ts';

export interface WaczCheck {
  ok: boolean;
  /** What is wrong, one sentence each (at most MAX_ERRORS, then a count of the rest). */
  errors: string[];
  /** The zip's entry names, in order. */
  entries: string[];
  /** WARC records read, and how many of them are responses and revisits. */
  records: number;
  responses: number;
  revisits: number;
  indexLines: number;
  pages: number;
}

const MAX_ERRORS = 50;
/** The JSON files are small; a bigger one is refused rather than read into memory. */
const MAX_JSON_BYTES = 16 * 1024 * 1024;

class Errors {
  readonly list: string[] = [];
  #dropped = 0;

  add(message: string): void {
    if (this.list.length < MAX_ERRORS) this.list.push(message);
    else this.#dropped++;
  }

  result(): string[] {
    return this.#dropped === 0 ? this.list : [...this.list, `… and ${this.#dropped} more`];
  }
}

interface EntryFacts {
  hash: string;
  bytes: number;
}

/** Hashes an entry's bytes as they stream past, and checks them against the zip's CRC-32 and size. */
class EntryReader {
  readonly #zip: ZipFile;
  readonly #errors: Errors;
  readonly facts = new Map<string, EntryFacts>();

  constructor(zip: ZipFile, errors: Errors) {
    this.#zip = zip;
    this.#errors = errors;
  }

  /** The entry's bytes, hashed on the way; call `done` once the consumer has read them all. */
  async open(entry: Entry): Promise<{ chunks: AsyncIterable<Buffer>; done: () => Promise<void> }> {
    const stream: Readable = await this.#zip.openReadStreamPromise(entry);
    const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const hash = createHash('sha256');
    let crc = 0;
    let bytes = 0;
    const next = async (): Promise<IteratorResult<Buffer>> => {
      const result = await iterator.next();
      if (result.done !== true) {
        hash.update(result.value);
        crc = crc32(result.value, crc);
        bytes += result.value.length;
      }
      return result;
    };
    // No return(): a consumer that stops early must not close the stream before `done` drains it.
    const chunks: AsyncIterable<Buffer> = { [Symbol.asyncIterator]: () => ({ next }) };
    const done = async (): Promise<void> => {
      while ((await next()).done !== true);
      if (crc >>> 0 !== entry.crc32 >>> 0) this.#errors.add(`${entry.fileName}: CRC-32 does not match the zip directory (the entry is corrupt)`);
      this.facts.set(entry.fileName, { hash: `sha256:${hash.digest('hex')}`, bytes });
    };
    return { chunks, done };
  }

  async readAll(entry: Entry): Promise<Buffer> {
    const { chunks, done } = await this.open(entry);
    const parts: Buffer[] = [];
    for await (const chunk of chunks) parts.push(chunk);
    await done();
    return Buffer.concat(parts);
  }

  async lines(entry: Entry, each: (line: string, number: number) => void): Promise<void> {
    const { chunks, done } = await this.open(entry);
    let number = 0;
    for await (const line of createInterface({ input: Readable.from(chunks), crlfDelay: Infinity })) each(line, ++number);
    await done();
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function parseJson(bytes: Buffer, name: string, errors: Errors): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    errors.add(`${name} is not valid JSON: ${message(err)}`);
    return undefined;
  }
}

export async function verifyWacz(path: string): Promise<WaczCheck> {
  const errors = new Errors();
  const check: WaczCheck = { ok: false, errors: [], entries: [], records: 0, responses: 0, revisits: 0, indexLines: 0, pages: 0 };
  let zip: ZipFile;
  try {
    zip = await openPromise(path, { autoClose: false, strictFileNames: true });
  } catch (err) {
    return { ...check, errors: [`${path} is not a readable zip file: ${message(err)}`] };
  }
  try {
    const entries = new Map<string, Entry>();
    for await (const entry of zip.eachEntry()) {
      if (entries.has(entry.fileName)) errors.add(`${entry.fileName} appears twice in the zip`);
      entries.set(entry.fileName, entry);
      check.entries.push(entry.fileName);
    }
    await checkContents(zip, entries, errors, check);
  } catch (err) {
    errors.add(`cannot read ${path}: ${message(err)}`);
  } finally {
    zip.close();
  }
  check.errors = errors.result();
  check.ok = check.errors.length === 0;
  return check;
}

async function checkContents(zip: ZipFile, entries: Map<string, Entry>, errors: Errors, check: WaczCheck): Promise<void> {
  const reader = new EntryReader(zip, errors);
  const datapackageEntry = entries.get(DATAPACKAGE_PATH);
  if (datapackageEntry === undefined) {
    errors.add(`${DATAPACKAGE_PATH} is missing`);
    return;
  }
  if (datapackageEntry.uncompressedSize > MAX_JSON_BYTES) {
    errors.add(`${DATAPACKAGE_PATH} is implausibly large (${datapackageEntry.uncompressedSize} bytes)`);
    return;
  }
  const datapackageBytes = await reader.readAll(datapackageEntry);
  await checkDigestFile(reader, entries.get(DIGEST_PATH), datapackageBytes, errors);

  const warcs = [...entries.values()].filter((e) => /^archive\/[^/]+\.warc(\.gz)?$/.test(e.fileName));
  const indexes = [...entries.values()].filter((e) => /^indexes\/[^/]+\.cdxj$/.test(e.fileName));
  if (warcs.length === 0) errors.add('no WARC file under archive/');
  if (indexes.length === 0) errors.add('no CDXJ index under indexes/');

  const records = new Map<string, Map<number, IndexedRecord>>();
  for (const entry of warcs) {
    if (entry.compressionMethod !== 0) errors.add(`${entry.fileName} is compressed in the zip; WACZ requires it stored, for random access`);
    const name = entry.fileName.slice('archive/'.length);
    const { chunks, done } = await reader.open(entry);
    try {
      const warc = await checkWarc(chunks, entry.fileName, (m) => errors.add(m));
      check.records += warc.records;
      check.responses += warc.responses;
      check.revisits += warc.revisits;
      records.set(name, warc.capturesByOffset);
    } catch (err) {
      errors.add(`${entry.fileName} cannot be read as WARC: ${message(err)}`);
    }
    await done();
  }

  const indexedUrls = new Set<string>();
  for (const entry of indexes) await checkIndex(reader, entry, records, indexedUrls, errors, check);

  const pages = entries.get(PAGES_PATH);
  if (pages === undefined) errors.add(`${PAGES_PATH} is missing`);
  else await checkPages(reader, pages, indexedUrls, errors, check);

  for (const entry of entries.values()) {
    if (!reader.facts.has(entry.fileName)) await reader.open(entry).then(({ done }) => done());
  }
  const datapackage = parseJson(datapackageBytes, DATAPACKAGE_PATH, errors);
  if (datapackage !== undefined) checkDatapackage(datapackage, entries, reader.facts, errors);
}

async function checkDigestFile(reader: EntryReader, entry: Entry | undefined, datapackage: Buffer, errors: Errors): Promise<void> {
  if (entry === undefined) {
    errors.add(`${DIGEST_PATH} is missing`);
    return;
  }
  if (entry.uncompressedSize > MAX_JSON_BYTES) {
    errors.add(`${DIGEST_PATH} is implausibly large (${entry.uncompressedSize} bytes)`);
    return;
  }
  const digest = parseJson(await reader.readAll(entry), DIGEST_PATH, errors) as { path?: unknown; hash?: unknown } | undefined;
  if (digest === undefined) return;
  if (digest.path !== DATAPACKAGE_PATH) errors.add(`${DIGEST_PATH} names ${String(digest.path)}, not ${DATAPACKAGE_PATH}`);
  const actual = `sha256:${createHash('sha256').update(datapackage).digest('hex')}`;
  if (digest.hash !== actual) errors.add(`${DIGEST_PATH} says ${String(digest.hash)} but ${DATAPACKAGE_PATH} hashes to ${actual}`);
}

function checkDatapackage(value: unknown, entries: Map<string, Entry>, facts: Map<string, EntryFacts>, errors: Errors): void {
  const datapackage = value as { profile?: unknown; wacz_version?: unknown; resources?: unknown };
  if (datapackage.profile !== 'data-package') errors.add(`${DATAPACKAGE_PATH}: profile is ${String(datapackage.profile)}, not data-package`);
  if (typeof datapackage.wacz_version !== 'string') errors.add(`${DATAPACKAGE_PATH}: no wacz_version`);
  if (!Array.isArray(datapackage.resources)) {
    errors.add(`${DATAPACKAGE_PATH}: no resources list`);
    return;
  }
  const listed = new Set<string>();
  for (const resource of datapackage.resources as { path?: unknown; hash?: unknown; bytes?: unknown }[]) {
    const path = String(resource.path);
    listed.add(path);
    const entry = entries.get(path);
    const fact = facts.get(path);
    if (entry === undefined || fact === undefined) {
      errors.add(`${DATAPACKAGE_PATH} lists ${path}, which is not in the zip`);
      continue;
    }
    if (resource.bytes !== fact.bytes) errors.add(`${path}: ${DATAPACKAGE_PATH} says ${String(resource.bytes)} bytes, the zip holds ${fact.bytes}`);
    if (resource.hash !== fact.hash) errors.add(`${path}: ${DATAPACKAGE_PATH} says ${String(resource.hash)}, the content hashes to ${fact.hash}`);
  }
  for (const name of entries.keys()) {
    const isFolder = name.endsWith('/');
    if (!isFolder && name !== DATAPACKAGE_PATH && name !== DIGEST_PATH && !listed.has(name)) errors.add(`${name} is in the zip but not listed in ${DATAPACKAGE_PATH}`);
  }
}

async function checkIndex(
  reader: EntryReader,
  entry: Entry,
  records: Map<string, Map<number, IndexedRecord>>,
  indexedUrls: Set<string>,
  errors: Errors,
  check: WaczCheck,
): Promise<void> {
  let previous = '';
  await reader.lines(entry, (line, number) => {
    if (line === '') return;
    check.indexLines++;
    const where = `${entry.fileName} line ${number}`;
    if (line < previous) errors.add(`${where}: the index is not sorted`);
    previous = line;
    const jsonAt = line.indexOf(' {');
    const parsed = jsonAt < 0 ? undefined : safeJson(line.slice(jsonAt + 1));
    const fields = line.slice(0, Math.max(jsonAt, 0)).split(' ');
    if (parsed === undefined || fields.length !== 2 || !/^\d{14}$/.test(fields[1] as string)) {
      errors.add(`${where}: not a CDXJ line (<key> <timestamp> <json>)`);
      return;
    }
    const { url, offset, length, filename, digest, mime } = parsed as { url?: unknown; offset?: unknown; length?: unknown; filename?: unknown; digest?: unknown; mime?: unknown };
    const warc = records.get(String(filename));
    const record = warc?.get(Number(offset));
    if (warc === undefined) errors.add(`${where}: names ${String(filename)}, which is not a WARC in archive/`);
    else if (record === undefined) errors.add(`${where}: offset ${String(offset)} is not the start of a response, revisit or resource record in ${String(filename)}`);
    else if (record.length !== Number(length)) errors.add(`${where}: length ${String(length)} but the record at ${String(offset)} is ${record.length} bytes`);
    else if (record.url !== url) errors.add(`${where}: ${String(url)} but the record at ${String(offset)} is for ${record.url}`);
    else if (digest !== undefined && digest !== record.digest) errors.add(`${where}: digest ${String(digest)} but the record's payload digest is ${record.digest === '' ? 'absent' : record.digest}`);
    // Replay tools resolve a line as a revisit by its mime alone.
    else if ((mime === REVISIT_MIME) !== (record.type === 'revisit')) errors.add(`${where}: mime ${String(mime)} but the record at ${String(offset)} is a ${record.type} record`);
    else indexedUrls.add(record.url);
  });
}

async function checkPages(reader: EntryReader, entry: Entry, indexedUrls: Set<string>, errors: Errors, check: WaczCheck): Promise<void> {
  await reader.lines(entry, (line, number) => {
    if (line === '') return;
    const where = `${entry.fileName} line ${number}`;
    const parsed = safeJson(line) as { format?: unknown; url?: unknown; ts?: unknown } | undefined;
    if (parsed === undefined) {
      errors.add(`${where}: not JSON`);
      return;
    }
    if (number === 1) {
      if (parsed.format !== PAGES_FORMAT) errors.add(`${where}: the header line's format is ${String(parsed.format)}, not ${PAGES_FORMAT}`);
      return;
    }
    check.pages++;
    if (typeof parsed.url !== 'string' || typeof parsed.ts !== 'string' || Number.isNaN(Date.parse(parsed.ts))) {
      errors.add(`${where}: a page needs a url and an RFC 3339 ts`);
      return;
    }
    if (!indexedUrls.has(parsed.url)) errors.add(`${where}: ${parsed.url} is not in the index`);
  });
}

function safeJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
