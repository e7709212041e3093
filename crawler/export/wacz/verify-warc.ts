/**
 * Reads a WARC back with warcio's WARCParser and checks every record: its block is as long
 * as declared, its WARC-Block-Digest and (for responses) WARC-Payload-Digest recompute, and
 * every revisit names a response in the same WARC that replay can find it by.
 * Returns where each capture record starts, for checking an index against it.
 */
import { createHash, type Hash } from 'node:crypto';
import { WARCParser, type WARCRecord } from 'warcio';

export interface IndexedRecord {
  type: 'response' | 'revisit' | 'resource';
  length: number;
  url: string;
  /** The payload digest's value without its algorithm prefix, as CDXJ lines carry it; '' when there is none. */
  digest: string;
}

export interface WarcCheck {
  records: number;
  responses: number;
  revisits: number;
  /** Response, revisit and resource records (what an index may point at) by the offset of their gzip member. */
  capturesByOffset: Map<number, IndexedRecord>;
}

/** The revisit profiles of WARC 1.0 and 1.1 (§6.7) that carry WARC-Payload-Digest of the payload they repeat. */
const IDENTICAL_PAYLOAD_PROFILES: ReadonlySet<string> = new Set([
  'http://netpreserve.org/warc/1.0/revisit/identical-payload-digest',
  'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest',
]);

/** What a revisit says it repeats, checked once the whole WARC is read. */
interface RevisitReference {
  where: string;
  targetUri: string;
  date: number;
  refersTo: string | null;
  /** Set for an identical-payload-digest revisit: the digest the repeated response must have. */
  payloadDigest: string | null;
}

/** A response a revisit may repeat: its record id and payload digest (hex), by `<date ms> <uri>`. */
type ResponsesByCapture = Map<string, { id: string; digest: string }>;

function captureKey(uri: string, date: number): string {
  return `${date} ${uri}`;
}

const CRLFCRLF = Buffer.from('\r\n\r\n');
/** An HTTP head longer than this is not one Forager wrote (undici refuses heads over 16 KiB by default). */
const MAX_HTTP_HEAD = 1024 * 1024;

/** Splits an HTTP message block at the end of its head to hash block and payload in one pass. */
class BlockDigests {
  readonly block: Hash = createHash('sha256');
  readonly payload: Hash = createHash('sha256');
  readonly splitsHead: boolean;
  bytes = 0;
  #head: Buffer | null;

  constructor(splitsHead: boolean) {
    this.splitsHead = splitsHead;
    this.#head = splitsHead ? Buffer.alloc(0) : null;
  }

  get headEnded(): boolean {
    return this.#head === null;
  }

  update(chunk: Uint8Array): void {
    this.block.update(chunk);
    this.bytes += chunk.length;
    if (this.#head === null) {
      if (this.splitsHead) this.payload.update(chunk);
      return;
    }
    const head = Buffer.concat([this.#head, chunk]);
    const end = head.indexOf(CRLFCRLF);
    if (end >= 0) {
      this.payload.update(head.subarray(end + CRLFCRLF.length));
      this.#head = null;
    } else if (head.length <= MAX_HTTP_HEAD) {
      this.#head = head;
    }
  }
}

type Report = (message: string) => void;

function checkDigest(declared: string | null | undefined, hash: Hash, what: string, where: string, report: Report): string | undefined {
  if (declared === null || declared === undefined) return undefined;
  const hex = hash.digest('hex');
  const match = /^sha256:([0-9a-f]{64})$/i.exec(declared);
  if (match === null) {
    report(`${where}: unsupported ${what} ${declared} (expected sha256:<hex>)`);
    return undefined;
  }
  if ((match[1] as string).toLowerCase() !== hex) report(`${where}: ${what} does not match the content (declared ${declared}, computed sha256:${hex})`);
  return hex;
}

export async function checkWarc(source: AsyncIterable<Uint8Array>, name: string, report: Report): Promise<WarcCheck> {
  const check: WarcCheck = { records: 0, responses: 0, revisits: 0, capturesByOffset: new Map() };
  const responses: ResponsesByCapture = new Map();
  const references: RevisitReference[] = [];
  const parser = new WARCParser(source, { parseHttp: false });
  for await (const record of parser) {
    check.records++;
    const type = record.warcType;
    const url = record.warcTargetURI ?? '';
    const where = `${name}: record ${check.records} (${type ?? 'no type'}${url === '' ? '' : ` ${url}`}) at offset ${parser.offset}`;
    if (check.records === 1 && type !== 'warcinfo') report(`${where}: the first record is not warcinfo`);
    const isHttp = type === 'response' || type === 'request' || type === 'revisit';
    const digests = new BlockDigests(isHttp);
    for await (const chunk of record.reader) digests.update(chunk);
    const declared = record.warcContentLength;
    if (digests.bytes !== declared) {
      report(`${where}: block has ${digests.bytes} of its ${declared} bytes`);
      continue;
    }
    const blockHex = checkDigest(record.warcBlockDigest, digests.block, 'WARC-Block-Digest', where, report);
    // A resource record (a rendered DOM) is its own payload: indexed by its block digest.
    if (type === 'resource') check.capturesByOffset.set(parser.offset, { type, length: parser.recordLength, url, digest: blockHex ?? '' });
    if (type === 'revisit') {
      check.revisits++;
      const reference = revisitReference(record, where, digests, report);
      if (reference !== undefined) references.push(reference);
      const digest = /^sha256:([0-9a-f]{64})$/i.exec(record.warcPayloadDigest ?? '')?.[1]?.toLowerCase() ?? '';
      check.capturesByOffset.set(parser.offset, { type, length: parser.recordLength, url, digest });
      continue;
    }
    if (type !== 'response') continue;
    check.responses++;
    if (!digests.headEnded) report(`${where}: the HTTP head does not end`);
    const payloadDigest = record.warcPayloadDigest;
    if (payloadDigest === null || payloadDigest === undefined) report(`${where}: no WARC-Payload-Digest`);
    const hex = checkDigest(payloadDigest, digests.payload, 'WARC-Payload-Digest', where, report);
    check.capturesByOffset.set(parser.offset, { type, length: parser.recordLength, url, digest: hex ?? '' });
    const date = Date.parse(record.warcDate ?? '');
    if (!Number.isNaN(date)) responses.set(captureKey(url, date), { id: record.warcHeader('WARC-Record-ID') ?? '', digest: hex ?? '' });
  }
  if (check.records === 0) report(`${name}: no WARC record could be read`);
  for (const reference of references) checkReference(reference, responses, report);
  return check;
}

/**
 * What a revisit must say for a replay tool to serve it (WARC 1.1 §6.7): the URI and date of
 * the response it repeats (wabac.js and pywb find that response by these alone), and for
 * identical-payload-digest the payload's digest. Its block, when there is one, is an HTTP head.
 */
function revisitReference(record: WARCRecord, where: string, digests: BlockDigests, report: Report): RevisitReference | undefined {
  if (digests.bytes > 0 && !digests.headEnded) report(`${where}: the HTTP head does not end`);
  const profile = record.warcHeader('WARC-Profile');
  if (profile === null || profile === undefined) report(`${where}: a revisit without WARC-Profile`);
  const targetUri = record.warcHeader('WARC-Refers-To-Target-URI');
  const dateText = record.warcHeader('WARC-Refers-To-Date');
  const date = Date.parse(dateText ?? '');
  if (targetUri === null || targetUri === undefined || targetUri === '') report(`${where}: no WARC-Refers-To-Target-URI, so replay cannot find the capture it repeats`);
  if (Number.isNaN(date)) report(`${where}: no valid WARC-Refers-To-Date (${dateText ?? 'none'}), so replay cannot find the capture it repeats`);
  let payloadDigest: string | null = null;
  if (profile !== null && profile !== undefined && IDENTICAL_PAYLOAD_PROFILES.has(profile)) {
    const declared = record.warcPayloadDigest;
    const hex = /^sha256:([0-9a-f]{64})$/i.exec(declared ?? '')?.[1];
    if (hex === undefined) report(`${where}: an identical-payload-digest revisit needs a WARC-Payload-Digest as sha256:<hex> (has ${declared ?? 'none'})`);
    else payloadDigest = hex.toLowerCase();
  }
  if (targetUri === null || targetUri === undefined || targetUri === '' || Number.isNaN(date)) return undefined;
  return { where, targetUri, date, refersTo: record.warcHeader('WARC-Refers-To') ?? null, payloadDigest };
}

function checkReference(reference: RevisitReference, responses: ResponsesByCapture, report: Report): void {
  const { where, targetUri, date } = reference;
  const repeated = responses.get(captureKey(targetUri, date));
  if (repeated === undefined) {
    report(`${where}: repeats ${targetUri} at ${new Date(date).toISOString()}, but the WARC has no response for it then`);
    return;
  }
  if (reference.refersTo !== null && reference.refersTo !== repeated.id) report(`${where}: WARC-Refers-To ${reference.refersTo} is not the record id of the response it repeats (${repeated.id})`);
  if (reference.payloadDigest !== null && reference.payloadDigest !== repeated.digest) {
    report(`${where}: WARC-Payload-Digest sha256:${reference.payloadDigest} is not the payload digest of the response it repeats (sha256:${repeated.digest})`);
  }
}
