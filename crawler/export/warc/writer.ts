/**
 * Writes the selected pages of a collection as WARC records to a sink, in fetch order:
 * a warcinfo record, then each page's captures in time order (its earlier versions as
 * request and response, its latest as request, response and metadata, its revisits as
 * request and revisit, or request and response when it was found gone), a rendered page's
 * DOM as a resource, then the subresources those pages need, one response each. One
 * capture is in memory at a time and the sink's back-pressure is awaited, so memory stays
 * flat, and every record's offset is known as it is written.
 */
import { parse as parsePath } from 'node:path';
import { DEFAULT_USER_AGENT, FORAGER_VERSION } from '../../protocol/settings.ts';
import { PageFacts } from '../../library/page-facts.ts';
import { selectedPages, type ExportPage } from '../../library/export-selection.ts';
import type { DocumentFacts } from '../../parse/documents/document-facts.ts';
import type { ExportFilter } from '../../protocol/api.ts';
import type { ReadonlyDb } from '../../store/database.ts';
import { loadSettings } from '../../store/settings-store.ts';
import { ArchiveRows, payloadAsReceived, type ArchivePayload, type ArchiveRevisit, type ArchiveRow } from './archive-rows.ts';
import { requestHead, responseHead } from './http.ts';
import { withoutPrivateHeaderFields } from '../private-headers.ts';
import { redactUrl } from '../../url/redact.ts';
import { RenderRows, usedSubresources } from '../../library/render-rows.ts';
import { firstHeader } from '../../net/header-pairs.ts';
import {
  gzipMember,
  metadataRecord,
  newRecordId,
  requestRecord,
  resourceRecord,
  responseRecord,
  revisitRecord,
  REVISIT_MIME,
  sha256Digest,
  warcDate,
  warcinfoRecord,
  type RecordBase,
  type RevisitTarget,
} from './records.ts';

export interface WarcSink {
  /** Resolves when the sink can take more (back-pressure). */
  write(chunk: Buffer): Promise<void>;
}

/** The response record of a page's latest version as written: what an index and a page list need. */
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

/**
 * Any other capture an index lists: an earlier version, a revisit, a page found gone, a
 * subresource a render fetched, or a page's rendered DOM.
 */
export interface WrittenCapture {
  url: string;
  capturedAt: number;
  /** The MIME type of the content; REVISIT_MIME for a revisit record. */
  mime: string | null;
  /** The HTTP status the capture replays as; 200 for a resource record. */
  status: number;
  /** null for a server-not-modified revisit, which has no payload digest. */
  payloadDigest: string | null;
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

interface PageContext {
  warcinfoId: string;
  query: string;
  userAgent: string;
}

/** One capture of a page, placed in time: a version's response, or a revisit that stored none. */
type Capture = { kind: 'version'; version: number; startedAt: number } | { kind: 'revisit'; revisit: ArchiveRevisit; startedAt: number };

/** The MIME type of a Content-Type value. */
function mimeOf(contentType: string | null | undefined): string | null {
  if (contentType === null || contentType === undefined) return null;
  return contentType.split(';', 1)[0]?.trim() ?? null;
}

interface VersionExchange {
  row: ArchiveRow;
  status: number;
  contentType: string | null;
  payload: ArchivePayload;
}

/** What a revisit needs of the version it repeats. */
interface VersionTarget {
  target: RevisitTarget;
  status: number;
  /** Its body was not downloaded, so no payload was compared. */
  truncated: boolean;
}

/**
 * A page's versions while its captures are written: a version's response record id is
 * fixed when first needed, so a revisit can name the response it repeats wherever the two
 * fall in the file.
 */
class PageVersions {
  readonly page: ExportPage;
  readonly latest: ArchiveRow;
  readonly #rows: ArchiveRows;
  readonly #ids = new Map<number, string>();
  readonly #targets = new Map<number, VersionTarget>();

  constructor(page: ExportPage, latest: ArchiveRow, rows: ArchiveRows) {
    this.page = page;
    this.latest = latest;
    this.#rows = rows;
  }

  recordId(version: number): string {
    let id = this.#ids.get(version);
    if (id === undefined) {
      id = newRecordId();
      this.#ids.set(version, id);
    }
    return id;
  }

  /** The captures in time order; at the same instant a version comes before the revisits that repeat it. */
  timeline(): Capture[] {
    const captures: Capture[] = this.#rows.earlierVersions(this.page.seq).map((v) => ({ kind: 'version', version: v.version, startedAt: v.startedAt }));
    captures.push({ kind: 'version', version: this.page.version, startedAt: this.latest.startedAt });
    for (const revisit of this.#rows.revisits(this.page.seq)) captures.push({ kind: 'revisit', revisit, startedAt: revisit.startedAt });
    return captures.sort((a, b) => a.startedAt - b.startedAt);
  }

  /** A version's stored exchange: the latest is the pages row, earlier ones are in page_versions. */
  exchange(version: number): VersionExchange {
    if (version === this.page.version) {
      return { row: this.latest, status: this.page.status, contentType: this.page.contentType, payload: payloadAsReceived(this.latest, this.page.seq) };
    }
    const row = this.#rows.version(this.page.seq, version);
    return { row, status: row.status, contentType: row.contentType, payload: payloadAsReceived(row, this.page.seq, version) };
  }

  /** Notes a version's response as written; returns what a revisit of it needs. */
  written(version: number, exchange: VersionExchange): VersionTarget {
    const { row, status, payload } = exchange;
    const target = { target: { id: this.recordId(version), url: this.page.url, date: warcDate(row.startedAt), payloadDigest: sha256Digest(payload.bytes) }, status, truncated: payload.truncated };
    this.#targets.set(version, target);
    return target;
  }

  /** What a revisit repeats: known once that version is written, else read now (a revisit stamped before its version). */
  target(version: number): VersionTarget {
    return this.#targets.get(version) ?? this.written(version, this.exchange(version));
  }
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
        // The proxy's password stays in the collection, as its cookies do.
        settingsJson: JSON.stringify(settings === undefined ? null : { ...settings, proxy: redactUrl(settings.proxy) }),
      }),
    ),
  );

  /** A request and the response (or revisit) it got, in that order; returns the second one's offset and length. */
  const writeExchange = async (request: Promise<Buffer>, answer: Promise<Buffer>): Promise<{ offset: number; length: number }> => {
    const [requestMember, answerMember] = await Promise.all([request, answer]);
    await write(requestMember);
    return { offset: await write(answerMember), length: answerMember.length };
  };

  const writeVersion = async (versions: PageVersions, version: number): Promise<void> => {
    const { page } = versions;
    const exchange = versions.exchange(version);
    const { row, status, contentType, payload } = exchange;
    const { id, payloadDigest } = versions.written(version, exchange).target;
    const base = { url: page.url, date: warcDate(row.startedAt), warcinfoId: context.warcinfoId };
    const response = gzipMember(
      responseRecord({ ...base, id }, { head: responseHead(row, status), payload: payload.bytes, payloadDigest, ipAddress: row.remoteAddress, truncated: payload.truncated }),
    );
    const request = gzipMember(requestRecord({ ...base, id: newRecordId() }, requestHead(row, page.url, context.userAgent), id));
    const written = await writeExchange(request, response);
    if (version !== page.version) {
      await options.onCapture?.({ url: page.url, capturedAt: row.startedAt, mime: mimeOf(contentType), status, payloadDigest, ...written });
      return;
    }
    const document = page.documentType === null ? null : facts.document(page.seq);
    await write(await gzipMember(metadataRecord({ ...base, id: newRecordId() }, pageMetadata(page, facts.outlinks(page.seq), document, context), id)));
    await options.onResponse?.({ page, recordId: id, capturedAt: row.startedAt, payloadDigest, ...written });
  };

  const writeRevisit = async (versions: PageVersions, revisit: ArchiveRevisit): Promise<void> => {
    const { page } = versions;
    const repeated = versions.target(revisit.version);
    const id = newRecordId();
    const base: RecordBase = { id, url: page.url, date: warcDate(revisit.startedAt), warcinfoId: context.warcinfoId };
    const head = responseHead(revisit, revisit.status);
    const request = gzipMember(requestRecord({ ...base, id: newRecordId() }, requestHead(revisit, page.url, context.userAgent), id));
    // A page found gone is a response of its own; so is a 200 "identical" by its head alone (its body was never downloaded, so no payload was compared).
    if (revisit.outcome === 'gone' || (revisit.outcome === 'identical' && repeated.truncated)) {
      const empty = sha256Digest();
      const response = gzipMember(responseRecord(base, { head, payload: Buffer.alloc(0), payloadDigest: empty, ipAddress: revisit.remoteAddress, truncated: revisit.wireBytes > 0 }));
      const written = await writeExchange(request, response);
      await options.onCapture?.({ url: page.url, capturedAt: revisit.startedAt, mime: mimeOf(firstHeader(revisit.headers, 'content-type')), status: revisit.status, payloadDigest: empty, ...written });
      return;
    }
    const notModified = revisit.outcome === 'not-modified';
    const record = gzipMember(revisitRecord(base, { head, profile: notModified ? 'server-not-modified' : 'identical-payload-digest', refersTo: repeated.target, ipAddress: revisit.remoteAddress }));
    const written = await writeExchange(request, record);
    // A 304 is indexed with the status it confirms: replay tools answer a revisit indexed as a 3xx with its own head and no body.
    await options.onCapture?.({
      url: page.url,
      capturedAt: revisit.startedAt,
      mime: REVISIT_MIME,
      status: notModified ? repeated.status : revisit.status,
      payloadDigest: notModified ? null : repeated.target.payloadDigest,
      ...written,
    });
  };

  const renders = new RenderRows(db);
  const subresources = new Set<string>();
  for (const page of selectedPages(db, filter)) {
    const versions = new PageVersions(page, rows.get(page.seq), rows);
    for (const capture of versions.timeline()) {
      if (capture.kind === 'version') await writeVersion(versions, capture.version);
      else await writeRevisit(versions, capture.revisit);
    }
    pages++;
    for (const url of renders.requisites(page.seq)) subresources.add(url);
    const render = renders.render(page.seq);
    if (render !== undefined) {
      for (const url of usedSubresources(render)) subresources.add(url);
      const dom = Buffer.from(render.dom, 'utf8');
      const url = `urn:dom:${page.url}`;
      const member = await gzipMember(resourceRecord({ id: newRecordId(), url, date: warcDate(render.renderedAt), warcinfoId: context.warcinfoId }, 'text/html; charset=utf-8', dom, versions.recordId(page.version)));
      const domOffset = await write(member);
      await options.onCapture?.({ url, capturedAt: render.renderedAt, mime: 'text/html', status: 200, payloadDigest: sha256Digest(dom), offset: domOffset, length: member.length });
    }
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
    await options.onCapture?.({ url, capturedAt: resource.fetchedAt, mime: mimeOf(resource.headers['content-type']), status: resource.status, payloadDigest, offset, length: member.length });
  }
  return { pages, records, bytes };
}

/** An HTTP head for a stored subresource: its status, the headers kept (but a session's), and the length of the decoded body stored. */
function subresourceHead(status: number, headers: Record<string, string>, length: number): Buffer {
  const lines = [`HTTP/1.1 ${status} ${status >= 200 && status < 300 ? 'OK' : 'Status'}`];
  for (const [name, value] of Object.entries(withoutPrivateHeaderFields(headers))) lines.push(`${name}: ${value}`);
  lines.push(`content-length: ${length}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

/** The metadata record's JSON: Forager's verdicts on the page's latest version, and what was read from it as a document. */
function pageMetadata(page: ExportPage, outlinks: ReturnType<PageFacts['outlinks']>, document: DocumentFacts | null, context: PageContext): Buffer {
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
    document,
  };
  return Buffer.from(JSON.stringify(metadata));
}
