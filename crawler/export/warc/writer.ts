/**
 * Writes the selected pages of a collection as WARC records to a sink, in fetch order:
 * a warcinfo record, then request, response and metadata per page (and a rendered page's
 * DOM as a resource), then the subresources those pages need, one response each. One page is in
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
import { RenderRows, usedSubresources } from '../../library/render-rows.ts';
import {
  gzipMember,
  metadataRecord,
  newRecordId,
  requestRecord,
  resourceRecord,
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

/** A record beside the pages' own: a subresource a render fetched, or a page's rendered DOM. */
export interface WrittenCapture {
  url: string;
  capturedAt: number;
  mime: string | null;
  /** The HTTP status; 200 for a resource record. */
  status: number;
  payloadDigest: string;
  offset: number;
  length: number;
}

export interface WarcWriteOptions {
  /** Recorded as the warcinfo's WARC-Filename. */
  filename: string;
  sink: WarcSink;
  onResponse?: (written: WrittenResponse) => void | Promise<void>;
  onCapture?: (written: WrittenCapture) => void | Promise<void>;
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

  const renders = new RenderRows(db);
  const subresources = new Set<string>();
  for (const page of selectedPages(db, filter)) {
    const row = rows.get(page.seq);
    const encoded = await encodePage(page, row, facts.outlinks(page.seq), context);
    const [request, response, metadata] = encoded.members;
    await write(request);
    const offset = await write(response);
    await write(metadata);
    pages++;
    for (const url of renders.requisites(page.seq)) subresources.add(url);
    const render = renders.render(page.seq);
    if (render !== undefined) {
      for (const url of usedSubresources(render)) subresources.add(url);
      const dom = Buffer.from(render.dom, 'utf8');
      const url = `urn:dom:${page.url}`;
      const member = await gzipMember(resourceRecord({ id: newRecordId(), url, date: warcDate(render.renderedAt), warcinfoId: context.warcinfoId }, 'text/html; charset=utf-8', dom, encoded.responseId));
      const domOffset = await write(member);
      await options.onCapture?.({ url, capturedAt: render.renderedAt, mime: 'text/html', status: 200, payloadDigest: sha256Digest(dom), offset: domOffset, length: member.length });
    }
    await options.onResponse?.({
      page,
      recordId: encoded.responseId,
      capturedAt: row.startedAt,
      payloadDigest: encoded.payloadDigest,
      offset,
      length: response.length,
    });
  }
  // What the selected pages need (requisites) and what their renders fetched, once each, after the pages: a replay finds them by URL.
  for (const url of subresources) {
    const resource = renders.subresource(url);
    if (resource === undefined) continue;
    const head = subresourceHead(resource.status, resource.headers, resource.body.length);
    const payloadDigest = sha256Digest(resource.body);
    const member = await gzipMember(
      responseRecord({ id: newRecordId(), url, date: warcDate(resource.fetchedAt), warcinfoId: context.warcinfoId }, { head, payload: resource.body, payloadDigest, ipAddress: null, truncated: false }),
    );
    const offset = await write(member);
    await options.onCapture?.({ url, capturedAt: resource.fetchedAt, mime: resource.headers['content-type']?.split(';')[0]?.trim() ?? null, status: resource.status, payloadDigest, offset, length: member.length });
  }
  return { pages, records, bytes };
}

/** An HTTP head for a stored subresource: its status, the headers kept, and the length of the decoded body stored. */
function subresourceHead(status: number, headers: Record<string, string>, length: number): Buffer {
  const lines = [`HTTP/1.1 ${status} ${status >= 200 && status < 300 ? 'OK' : 'Status'}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  lines.push(`content-length: ${length}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
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
