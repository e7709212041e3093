import { UsageError } from '../errors.ts';
import { documentFactsOf, documentFile, documentReading } from '../library/document-rows.ts';
import { pageLinks, pageRow } from '../library/page-table.ts';
import { pageHistory } from '../library/page-versions.ts';
import { MAX_SHOWN_DOCUMENT_BYTES, type DocumentContent, type DocumentType, type PageDetail, type PageVersions, type PageVersionsInput } from '../protocol/api.ts';
import { viewPath } from '../protocol/wire.ts';
import type { ReadonlyDb } from '../store/database.ts';
import { inflateStoredBody } from '../viewer/page-source.ts';
import { documentFilePath, versionViewPath } from '../viewer/viewer-url.ts';

/*
 * One stored page as the app shows it: its details, its document, its versions, with the
 * viewer's addresses. `page` says where it is read (a collection's connection and the page's
 * number there) and how the app names it (the collection and the number it shows): the same
 * number for a collection, another for a shard set's page (service/shard-set.ts, shardSeq).
 */

export interface PageAt {
  db: ReadonlyDb;
  /** The page's number in `db`. */
  seq: number;
  /** The collection and page number the app shows. */
  collection: string;
  shownSeq: number;
}

/** Whether a stored page can be shown in the viewer: an HTML body or a plain-text document was kept. */
function viewable(hasBody: boolean, contentType: string | null, documentType: DocumentType | null = null): boolean {
  return hasBody && (documentType === 'text' || (documentType === null && /html/i.test(contentType ?? '')));
}

export function pageDetail({ db, seq, collection, shownSeq }: PageAt): PageDetail {
  const row = pageRow(db, seq);
  const links = pageLinks(db, seq);
  const facts = documentFactsOf(db, seq);
  return {
    ...row,
    seq: shownSeq,
    viewPath: viewable(links.hasBody, row.contentType, facts?.type ?? null) ? viewPath(collection, shownSeq) : null,
    outlinks: links.outlinks,
    inCollectionOutlinks: links.inCollection,
    note: links.note,
    checkedAt: new Date(links.checkedAt).toISOString(),
    document: facts === null ? null : { type: facts.type, pageCount: facts.pageCount, pagesRead: facts.pagesRead, metadata: facts.metadata },
    filePath: facts !== null && links.hasBody ? documentFilePath(collection, shownSeq) : null,
  };
}

export function documentContent({ db, seq, collection, shownSeq }: PageAt): DocumentContent {
  const file = documentFile(db, seq);
  const reading = documentReading(db, seq);
  if (file === undefined || reading === undefined) throw new UsageError(`page ${shownSeq} of "${collection}" is no stored document`, { collection, seq: shownSeq });
  const bytes = file.body !== null && file.bodyBytes <= MAX_SHOWN_DOCUMENT_BYTES ? inflateStoredBody(file.body) : null;
  return {
    seq: shownSeq,
    type: file.type,
    data: bytes === null ? null : bytes.toString('base64'),
    bytes: file.bodyBytes,
    text: reading.text,
    pageStarts: reading.facts.pageStarts,
  };
}

export function pageVersions({ db, seq, collection, shownSeq }: PageAt, order: NonNullable<PageVersionsInput['order']>): PageVersions {
  const history = pageHistory(db, seq, order);
  // Only the latest version is read as a document.
  const latestType = documentFactsOf(db, seq)?.type ?? null;
  return {
    seq: shownSeq,
    url: history.url,
    goneAt: history.goneAt,
    versions: history.versions.map(({ hasBody, ...version }) => {
      const where = version.latest ? viewPath(collection, shownSeq) : versionViewPath(collection, shownSeq, version.version);
      return { ...version, viewPath: viewable(hasBody, version.contentType, version.latest ? latestType : null) ? where : null };
    }),
  };
}
