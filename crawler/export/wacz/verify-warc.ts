/**
 * Reads a WARC back with warcio's WARCParser and checks every record: its block is as long
 * as declared, its WARC-Block-Digest and (for responses) WARC-Payload-Digest recompute.
 * Returns where each response record starts, for checking an index against it.
 */
import { createHash, type Hash } from 'node:crypto';
import { WARCParser } from 'warcio';

export interface IndexedRecord {
  length: number;
  url: string;
  /** The payload digest's value without its algorithm prefix, as CDXJ lines carry it. */
  digest: string;
}

export interface WarcCheck {
  records: number;
  responses: number;
  /** Response and resource records (what an index may point at) by the offset of their gzip member. */
  capturesByOffset: Map<number, IndexedRecord>;
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
  const check: WarcCheck = { records: 0, responses: 0, capturesByOffset: new Map() };
  const parser = new WARCParser(source, { parseHttp: false });
  for await (const record of parser) {
    check.records++;
    const type = record.warcType;
    const url = record.warcTargetURI ?? '';
    const where = `${name}: record ${check.records} (${type ?? 'no type'}${url === '' ? '' : ` ${url}`}) at offset ${parser.offset}`;
    if (check.records === 1 && type !== 'warcinfo') report(`${where}: the first record is not warcinfo`);
    const isHttp = type === 'response' || type === 'request';
    const digests = new BlockDigests(isHttp);
    for await (const chunk of record.reader) digests.update(chunk);
    const declared = record.warcContentLength;
    if (digests.bytes !== declared) {
      report(`${where}: block has ${digests.bytes} of its ${declared} bytes`);
      continue;
    }
    const blockHex = checkDigest(record.warcBlockDigest, digests.block, 'WARC-Block-Digest', where, report);
    // A resource record (a rendered DOM) is its own payload: indexed by its block digest.
    if (type === 'resource') check.capturesByOffset.set(parser.offset, { length: parser.recordLength, url, digest: blockHex ?? '' });
    if (type !== 'response') continue;
    check.responses++;
    if (!digests.headEnded) report(`${where}: the HTTP head does not end`);
    const payloadDigest = record.warcPayloadDigest;
    if (payloadDigest === null || payloadDigest === undefined) report(`${where}: no WARC-Payload-Digest`);
    const hex = checkDigest(payloadDigest, digests.payload, 'WARC-Payload-Digest', where, report);
    check.capturesByOffset.set(parser.offset, { length: parser.recordLength, url, digest: hex ?? '' });
  }
  if (check.records === 0) report(`${name}: no WARC record could be read`);
  return check;
}
