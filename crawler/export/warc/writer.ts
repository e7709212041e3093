/**
 * Writes the selected pages of a collection as WARC records to a sink, in fetch order:
 * a warcinfo record, then request, response and metadata per page. One page is in
 * memory at a time and the sink's back-pressure is awaited, so memory stays flat, and
 * every record's offset is known as it is written.
 */
import { parse as parsePath } from 'node:path';
import { DEFAULT_USER_AGENT, FORAGER_VERSION } from '../../protocol/settings.ts';
import { PageFacts, type Outlink } from '../../library/page-facts.ts';
import { selectedPages, type ExportPage } from '../../library/export-selection.ts';
import type { ExportFilter } from '../../protocol/api.ts';
import type { ReadonlyDb } from '../../store/database.ts';
import { loadSettings } from '../../store/settings-store.ts';
import { ArchiveRows, payloadAsReceived, type ArchiveRow } from './archive-rows.ts';
import { requestHead, responseHead } from './http.ts';
import {
  gzipMember,
  metadataRecord,
  newRecordId,
  requestRecord,
  responseRecord,
  sha256Digest,
  warcDate,
  warcinfoRecord,
} from './records.ts';

export interface WarcSink {
  /** Resolves when the sink can take more (back-pressure). */
  write(chunk: Buffer): Promise<void>;
}

/** A response record as written: what an index and a page list need. */
export interface WrittenResponse {
  page: ExportPage;
  recordId: string;
  /** Epoch ms of the capture: the response's WARC-Date. */
  capturedAt: number;
  payloadDigest: string;
  /** Where the record's gzip member starts in the WARC, and its length. */
  offset: number;
  length: number;
}

export interface WarcWriteOptions {
  /** Recorded as the warcinfo's WARC-Filename. */
  filename: string;
  sink: WarcSink;
  onResponse?: (written: WrittenResponse) => void | Promise<void>;
}

export interface WarcWriteResult {
  pages: number;
  records: number;
  bytes: number;
}

interface EncodedPage {
  members: [Buffer, Buffer, Buffer];
  responseId: string;
  payloadDigest: string;
}

interface PageContext {
  warcinfoId: string;
  query: string;
  userAgent: string;
}

/** Call inside a read transaction, so the WARC is one consistent snapshot. */
export async function writeWarc(db: ReadonlyDb, filter: ExportFilter, options: WarcWriteOptions): Promise<WarcWriteResult> {
  const settings = loadSettings(db);
  const context: PageContext = { warcinfoId: newRecordId(), query: settings?.query ?? '', userAgent: settings?.userAgent ?? DEFAULT_USER_AGENT };
  const rows = new ArchiveRows(db);
  const facts = new PageFacts(db);
  let bytes = 0;
  let records = 0;
  let pages = 0;
  const write = async (member: Buffer): Promise<number> => {
    const offset = bytes;
    await options.sink.write(member);
    bytes += member.length;
    records++;
    return offset;
  };

  await write(
    await gzipMember(
      warcinfoRecord({
        id: context.warcinfoId,
        filename: options.filename,
        date: warcDate(Date.now()),
        software: `Forager/${FORAGER_VERSION}`,
        collectionId: parsePath(db.name).name,
        query: context.query,
        settingsJson: JSON.stringify(settings ?? null),
      }),
    ),
  );

  for (const page of selectedPages(db, filter)) {
    const row = rows.get(page.seq);
    const encoded = await encodePage(page, row, facts.outlinks(page.seq), context);
    const [request, response, metadata] = encoded.members;
    await write(request);
    const offset = await write(response);
    await write(metadata);
    pages++;
    await options.onResponse?.({
      page,
      recordId: encoded.responseId,
      capturedAt: row.startedAt,
      payloadDigest: encoded.payloadDigest,
      offset,
      length: response.length,
    });
  }
  return { pages, records, bytes };
}

async function encodePage(page: ExportPage, row: ArchiveRow, outlinks: Outlink[], context: PageContext): Promise<EncodedPage> {
  const payload = payloadAsReceived(row, page.seq);
  const date = warcDate(row.startedAt);
  const ids = { request: newRecordId(), response: newRecordId(), metadata: newRecordId() };
  const base = { url: page.url, date, warcinfoId: context.warcinfoId };
  const payloadDigest = sha256Digest(payload.bytes);
  const metadata = {
    forager: 1,
    query: context.query,
    relevance: page.relevance,
    hot: page.hot,
    label: page.label,
    depth: page.depth,
    title: page.title,
    fetchedAt: new Date(page.fetchedAt).toISOString(),
    outlinks,
  };
  const members = await Promise.all([
    gzipMember(requestRecord({ ...base, id: ids.request }, requestHead(row, page.url, context.userAgent), ids.response)),
    gzipMember(
      responseRecord(
        { ...base, id: ids.response },
        { head: responseHead(row, page.status), payload: payload.bytes, payloadDigest, ipAddress: row.remoteAddress, truncated: payload.truncated },
      ),
    ),
    gzipMember(metadataRecord({ ...base, id: ids.metadata }, Buffer.from(JSON.stringify(metadata)), ids.response)),
  ]);
  return { members, responseId: ids.response, payloadDigest };
}
