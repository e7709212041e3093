import { useEffect, useState } from 'react';
import type { DocumentContent, PageDetail } from '../../../../crawler/protocol/api.ts';
import { MAX_SHOWN_DOCUMENT_BYTES } from '../../../../crawler/protocol/api.ts';
import { ErrorNote, LoadingNote } from '../../components/Notes.tsx';
import { useLoad } from '../../hooks/use-load.ts';
import { formatBytes } from '../../lib/format.ts';
import { useClient } from '../../state/contexts.ts';
import { DocumentText } from './DocumentText.tsx';
import { PdfPages } from './PdfPages.tsx';

type Showing = 'pages' | 'text';

/** A stored PDF: its pages as PDF.js draws them here, or the text Forager read from it. */
export function DocumentView({ collection, detail, initialPage }: { collection: string; detail: PageDetail; initialPage: number | null }) {
  const client = useClient();
  const content = useLoad<DocumentContent>(() => client.api.readDocument({ collection, seq: detail.seq }), [client, collection, detail.seq]);
  const [showing, setShowing] = useState<Showing>('pages');
  const [page, setPage] = useState(initialPage ?? 1);
  // Another search hit in the same document moves to its page.
  useEffect(() => {
    if (initialPage !== null) setPage(initialPage);
  }, [initialPage]);

  if (content.data === undefined) {
    return content.error !== undefined ? <ErrorNote error={content.error} onRetry={content.reload} /> : <LoadingNote>Opening the document…</LoadingNote>;
  }
  const { data, text, pageStarts, bytes } = content.data;
  return (
    <div className="document-view">
      <div className="segmented" role="group" aria-label="Show the document as">
        <button type="button" aria-pressed={showing === 'pages'} onClick={() => setShowing('pages')}>
          Pages
        </button>
        <button type="button" aria-pressed={showing === 'text'} onClick={() => setShowing('text')}>
          Extracted text
        </button>
      </div>
      {showing === 'text' ? (
        <DocumentText text={text} pageStarts={pageStarts} page={page} />
      ) : data === null ? (
        <p className="note">
          This PDF is {formatBytes(bytes)}, more than the {formatBytes(MAX_SHOWN_DOCUMENT_BYTES)} the app draws itself: save it, or read its extracted text here.
        </p>
      ) : (
        <PdfPages data={data} page={page} onPage={setPage} />
      )}
    </div>
  );
}
