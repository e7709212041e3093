/**
 * Forager's WARC 1.1 records, built with warcio's WARCRecord and written by its
 * WARCSerializer, each as a gzip member of its own.
 *
 * Two measured choices (bench/export-bench.ts): the digests are computed here with
 * node:crypto and handed to warcio, which then keeps them (warcio otherwise instantiates a
 * WebAssembly SHA-256 per record, ten times slower for a 20 KB page); and the serialized
 * record is gzipped by node:zlib rather than by warcio's CompressionStream, twice as fast.
 * zlib runs synchronously: on two cores its thread pool measured no faster, the cost of a
 * zlib handle per call eating the parallelism. The output is what warcio would write:
 * `sha256:<hex>` digests and one gzip member per record.
 *
 * HTTP records carry their message (head and payload) as the record's content, so the
 * head's bytes are exactly those given (warcio would re-encode header text as UTF-8 and
 * group repeated header names).
 */
import { createHash, randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { WARC_1_1, WARCRecord, WARCSerializer } from 'warcio';

export function newRecordId(): string {
  return `<urn:uuid:${randomUUID()}>`;
}

export function sha256Digest(...parts: Uint8Array[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return `sha256:${hash.digest('hex')}`;
}

/** WARC-Date with millisecond precision, which WARC 1.1 allows. */
export function warcDate(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/** warc-fields values are single lines. */
function fieldValue(value: string): string {
  return value.replace(/[\r\n]+/g, ' ');
}

export interface WarcinfoFields {
  id: string;
  filename: string;
  date: string;
  software: string;
  collectionId: string;
  query: string;
  settingsJson: string;
}

export function warcinfoRecord(info: WarcinfoFields): WARCRecord {
  return WARCRecord.createWARCInfo(
    { filename: info.filename, date: info.date, warcVersion: WARC_1_1, warcHeaders: [['WARC-Record-ID', info.id]] },
    {
      software: fieldValue(info.software),
      format: 'WARC File Format 1.1',
      isPartOf: fieldValue(info.collectionId),
      description: fieldValue(info.query),
      'x-forager-query': fieldValue(info.query),
      'x-forager-settings': fieldValue(info.settingsJson),
    },
  );
}

export interface RecordBase {
  id: string;
  url: string;
  date: string;
  warcinfoId: string;
}

/** `payloadDigest` null: the record has no payload of its own to digest (a server-not-modified revisit). */
function newRecord(base: RecordBase, type: string, contentType: string, extra: [string, string][], block: Uint8Array[], payloadDigest: string | null): WARCRecord {
  const warcHeaders: [string, string][] = [
    ['WARC-Type', type],
    ['WARC-Record-ID', base.id],
    ['WARC-Date', base.date],
    ['WARC-Target-URI', base.url],
    ['Content-Type', contentType],
    ...extra,
    ['WARC-Warcinfo-ID', base.warcinfoId],
    ...(payloadDigest === null ? [] : [['WARC-Payload-Digest', payloadDigest] as [string, string]]),
    ['WARC-Block-Digest', sha256Digest(...block)],
  ];
  // No `type` option: warcio would then add an HTTP head of its own; ours is in the block.
  return WARCRecord.create({ date: base.date, warcVersion: WARC_1_1, warcHeaders }, block);
}

export function requestRecord(base: RecordBase, head: Buffer, concurrentTo: string): WARCRecord {
  return newRecord(base, 'request', 'application/http; msgtype=request', [['WARC-Concurrent-To', concurrentTo]], [head], sha256Digest());
}

export interface ResponseParts {
  head: Buffer;
  payload: Buffer;
  payloadDigest: string;
  ipAddress: string | null;
  truncated: boolean;
}

export function responseRecord(base: RecordBase, parts: ResponseParts): WARCRecord {
  const extra: [string, string][] = [];
  if (parts.ipAddress !== null) extra.push(['WARC-IP-Address', parts.ipAddress]);
  if (parts.truncated) extra.push(['WARC-Truncated', 'unspecified']);
  return newRecord(base, 'response', 'application/http; msgtype=response', extra, [parts.head, parts.payload], parts.payloadDigest);
}

/** WARC 1.1 §6.7.2 and §6.7.3. */
export const REVISIT_PROFILES = {
  'identical-payload-digest': 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest',
  'server-not-modified': 'http://netpreserve.org/warc/1.1/revisit/server-not-modified',
} as const;

export type RevisitProfile = keyof typeof REVISIT_PROFILES;

/** The mime type an index gives a revisit record, as pywb and warcio.js index them. */
export const REVISIT_MIME = 'warc/revisit';

/** The response record a revisit repeats: replay tools find it by URI and date. */
export interface RevisitTarget {
  id: string;
  url: string;
  date: string;
  payloadDigest: string;
}

export interface RevisitParts {
  /** The revisit's own response head (its status line and headers), with no payload. */
  head: Buffer;
  profile: RevisitProfile;
  refersTo: RevisitTarget;
  ipAddress: string | null;
}

/**
 * A revisit record: the head the server answered, and where the payload it stands for is.
 * identical-payload-digest carries the repeated response's payload digest (the payload is
 * left out, so WARC-Truncated says `length`); server-not-modified carries none, a 304 having
 * no payload to compare.
 */
export function revisitRecord(base: RecordBase, parts: RevisitParts): WARCRecord {
  const identical = parts.profile === 'identical-payload-digest';
  const extra: [string, string][] = [
    ['WARC-Profile', REVISIT_PROFILES[parts.profile]],
    ['WARC-Refers-To', parts.refersTo.id],
    ['WARC-Refers-To-Target-URI', parts.refersTo.url],
    ['WARC-Refers-To-Date', parts.refersTo.date],
  ];
  if (parts.ipAddress !== null) extra.push(['WARC-IP-Address', parts.ipAddress]);
  if (identical) extra.push(['WARC-Truncated', 'length']);
  return newRecord(base, 'revisit', 'application/http; msgtype=response', extra, [parts.head], identical ? parts.refersTo.payloadDigest : null);
}

/** A record of something Forager made rather than received: a page's DOM after its scripts ran. */
export function resourceRecord(base: RecordBase, contentType: string, body: Buffer, concurrentTo: string): WARCRecord {
  const digest = sha256Digest(body);
  return newRecord(base, 'resource', contentType, [['WARC-Concurrent-To', concurrentTo]], [body], digest);
}

export function metadataRecord(base: RecordBase, json: Buffer, refersTo: string): WARCRecord {
  return newRecord(base, 'metadata', 'application/json', [['WARC-Refers-To', refersTo]], [json], sha256Digest(json));
}

/** The record serialized and gzipped as one member. */
export async function gzipMember(record: WARCRecord): Promise<Buffer> {
  const bytes = await new WARCSerializer(record, { gzip: false }).readFully();
  return gzipSync(bytes);
}
