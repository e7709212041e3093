import { memo, useEffect, useMemo, useRef } from 'react';
import { splitPages } from '../../lib/document-text.ts';

/** The text Forager extracted from a document, page by page, each under its "Page N" marker; `page` is scrolled to. */
export const DocumentText = memo(function DocumentText({ text, pageStarts, page }: { text: string; pageStarts: number[]; page: number }) {
  const pages = useMemo(() => splitPages(text, pageStarts), [text, pageStarts]);
  const frame = useRef<HTMLDivElement>(null);

  useEffect(() => {
    frame.current?.querySelector(`[data-page="${page}"]`)?.scrollIntoView({ block: 'start' });
  }, [page]);

  if (text.trim() === '') return <p className="muted">Forager read no text from this document (a scanned PDF holds images of its pages).</p>;
  return (
    <div className="document-text" ref={frame} aria-label="Extracted text" role="region" tabIndex={0}>
      {pages.map((p) => (
        <section key={p.page} data-page={p.page} aria-label={`Page ${p.page}`}>
          {pages.length > 1 && <h3 className="page-marker">page {p.page}</h3>}
          <pre>{p.text}</pre>
        </section>
      ))}
    </div>
  );
});
