import { Fragment, useState } from 'react';
import type { LabelInput, PageDetail, PageRow, PageVersions } from '../../../../crawler/protocol/api.ts';
import { ErrorNote, LoadingNote } from '../../components/Notes.tsx';
import { useLoad } from '../../hooks/use-load.ts';
import { formatBytes, formatCount, formatDateTime, formatScore } from '../../lib/format.ts';
import { documentSummary, typeName } from '../../lib/page-types.ts';
import { routeHash } from '../../lib/route.ts';
import { useClient } from '../../state/contexts.ts';
import { HotBadge, LabelBadge } from './badges.tsx';
import { DocumentActions } from './DocumentActions.tsx';
import { DocumentView } from './DocumentView.tsx';
import { VersionCompare } from './VersionCompare.tsx';
import { VersionHistory } from './VersionHistory.tsx';

/** The scripts-free stored copy can only open links in a new window, outside the sandbox. */
const SANDBOX = 'allow-popups allow-popups-to-escape-sandbox';

interface PageViewerProps {
  collection: string;
  seq: number;
  /** The version to show; null for the latest. */
  version: number | null;
  /** The page of a PDF to open at; null for its first. */
  documentPage: number | null;
  onLabelled: (row: PageRow) => void;
}

export function PageViewer({ collection, seq, version, documentPage, onLabelled }: PageViewerProps) {
  const client = useClient();
  const page = useLoad<PageDetail>(() => client.api.getPage({ collection, seq }), [client, collection, seq]);
  const history = useLoad<PageVersions>(() => client.api.pageVersions({ collection, seq }), [client, collection, seq]);
  const [comparing, setComparing] = useState(false);
  const [labelling, setLabelling] = useState(false);
  const [actionError, setActionError] = useState<unknown>(undefined);

  const label = async (value: LabelInput['label']): Promise<void> => {
    if (page.data === undefined) return;
    setLabelling(true);
    setActionError(undefined);
    try {
      const row = await client.api.labelPage({ collection, seq, label: value });
      page.set({ ...page.data, ...row });
      onLabelled(row);
    } catch (error) {
      setActionError(error);
    } finally {
      setLabelling(false);
    }
  };

  const close = routeHash({ screen: 'library', collection });
  if (page.data === undefined) {
    return (
      <aside className="viewer" aria-label="Stored page">
        <a className="button button-secondary" href={close}>
          Close
        </a>
        {page.error !== undefined ? <ErrorNote error={page.error} onRetry={page.reload} /> : <LoadingNote>Opening the stored page…</LoadingNote>}
      </aside>
    );
  }

  const detail = page.data;
  const versions = history.data?.versions ?? [];
  const shown = version === null ? versions.find((v) => v.latest) : versions.find((v) => v.version === version);
  const shownNumber = shown?.version ?? detail.version;
  // The latest version's frame needs no wait for the list of versions.
  const framePath = version === null ? detail.viewPath : (shown?.viewPath ?? null);
  const hasHistory = versions.length > 1 || versions.some((v) => v.revisits.length > 0);
  const summary = documentSummary(detail);
  // Only the latest version is read as a document: an earlier one is shown as any stored response.
  const drawsPdf = detail.document?.type === 'pdf' && (shown?.latest ?? version === null);
  // The stored page takes the window's height: what Forager knows of it folds away above it.
  return (
    <aside className="viewer" aria-labelledby="viewer-title">
      <div className="viewer-head">
        <h2 id="viewer-title">{detail.title !== null && detail.title.trim() !== '' ? detail.title : detail.document === null ? 'Untitled page' : 'Untitled document'}</h2>
        <span className="button-row">
          {detail.filePath !== null && <DocumentActions collection={collection} seq={seq} filePath={detail.filePath} onError={setActionError} />}
          <a className="button button-secondary" href={detail.url} target="_blank" rel="noopener noreferrer" title="The original, on the live web">
            Live page
          </a>
          <a className="button button-secondary" href={close}>
            Close
          </a>
        </span>
      </div>
      <div className="viewer-bar">
        <span className="viewer-facts">
          {summary !== null && <span className="badge badge-type">{summary}</span>}
          relevance {formatScore(detail.relevance)}
          {detail.hot && <HotBadge hot />}
          {detail.label !== null && <LabelBadge label={detail.label} />}
        </span>
        <button type="button" onClick={() => void label('relevant')} disabled={labelling || detail.label === 'relevant'}>
          Mark relevant
        </button>
        <button type="button" className="button-secondary" onClick={() => void label('irrelevant')} disabled={labelling || detail.label === 'irrelevant'}>
          Mark not relevant
        </button>
        {detail.label !== null && (
          <button type="button" className="button-secondary" onClick={() => void label(null)} disabled={labelling} title="Take the label back: the judge's own verdict stands again">
            Clear label
          </button>
        )}
      </div>
      <ErrorNote error={actionError} />
      <ErrorNote error={history.error} onRetry={history.reload} />
      {history.data !== undefined && hasHistory && (
        <VersionHistory collection={collection} history={history.data} shown={shownNumber} comparing={comparing} onCompare={setComparing} />
      )}
      {detail.note !== null && <p className="note">{detail.note}</p>}
      <details className="viewer-details">
        <summary>Page details</summary>
        <dl className="details">
          <dt>URL</dt>
          <dd className="url-cell" title={detail.url}>
            {detail.url}
          </dd>
          <dt>Relevance</dt>
          <dd>{formatScore(detail.relevance)}</dd>
          <dt>Hot</dt>
          <dd>{detail.hot ? <HotBadge hot /> : 'no'}</dd>
          <dt>Label</dt>
          <dd>{detail.label === null ? 'none' : <LabelBadge label={detail.label} />}</dd>
          {detail.duplicate !== null && (
            <>
              <dt>{detail.duplicate.kind === 'exact' ? 'Duplicate of' : 'Near-duplicate of'}</dt>
              <dd className="url-cell" title={detail.duplicate.of}>
                {detail.duplicate.of}
              </dd>
            </>
          )}
          {detail.soft404 && (
            <>
              <dt>Soft 404</dt>
              <dd>the site answers this way for pages that do not exist, so it is never hot</dd>
            </>
          )}
          {detail.document !== null && (
            <>
              <dt>Document</dt>
              <dd>
                {typeName(detail.document.type)} · {formatBytes(detail.bodyBytes)}
                {detail.document.type === 'pdf' && (
                  <>
                    {' '}· {formatCount(detail.document.pageCount)} pages
                    {detail.document.pagesRead < detail.document.pageCount && <>, the text of the first {formatCount(detail.document.pagesRead)} read</>}
                  </>
                )}
              </dd>
              {Object.entries(detail.document.metadata).map(([name, value]) => (
                <Fragment key={name}>
                  <dt className="metadata-name">{name}</dt>
                  <dd>{value}</dd>
                </Fragment>
              ))}
            </>
          )}
          <dt>Fetched</dt>
          <dd>
            {formatDateTime(detail.fetchedAt)} · HTTP {detail.status} · depth {detail.depth} · {detail.outlinks} links ({detail.inCollectionOutlinks} stored)
          </dd>
          <dt>Versions</dt>
          <dd>
            {detail.version === 1 ? 'one' : detail.version}
            {detail.version > 1 && <> · first fetched {formatDateTime(detail.firstFetchedAt)}</>} · last checked {formatDateTime(detail.checkedAt)}
          </dd>
          {detail.goneAt !== null && (
            <>
              <dt>Gone</dt>
              <dd>a revisit on {formatDateTime(detail.goneAt)} found the page no longer there; the last version stored is shown</dd>
            </>
          )}
        </dl>
        {drawsPdf ? (
          <p className="hint">
            The app draws this PDF from the file Forager stored: the document&rsquo;s own scripts never run and it reaches
            nothing on the web. Save the file to keep it, or to read it in another viewer.
          </p>
        ) : (
          <p className="hint">
            This is the copy Forager stored, shown without scripts or remote resources. Links to pages of this collection open
            here; other links first ask before they open on the live web.
          </p>
        )}
      </details>
      {comparing && history.data !== undefined ? (
        <VersionCompare collection={collection} seq={seq} versions={history.data.versions} />
      ) : drawsPdf ? (
        <DocumentView collection={collection} detail={detail} initialPage={documentPage} />
      ) : version !== null && shown === undefined ? (
        history.data === undefined ? (
          history.error === undefined && <LoadingNote>Opening the version…</LoadingNote>
        ) : (
          <p className="note">This page has no version {version}.</p>
        )
      ) : framePath !== null ? (
        <iframe
          key={framePath}
          className="stored-page"
          title={`Stored copy of ${detail.url}${shown !== undefined && !shown.latest ? `, version ${shown.version} of ${formatDateTime(shown.fetchedAt)}` : ''}`}
          src={client.pageSrc(framePath)}
          sandbox={SANDBOX}
          referrerPolicy="no-referrer"
        />
      ) : (
        <p className="muted">Forager kept no viewable copy of this {version === null ? 'page' : 'version'} (it is not HTML).</p>
      )}
    </aside>
  );
}
