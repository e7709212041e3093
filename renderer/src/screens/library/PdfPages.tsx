import { useEffect, useRef, useState } from 'react';
import { ErrorNote, LoadingNote } from '../../components/Notes.tsx';
import { decodeBase64 } from '../../lib/document-text.ts';
import { formatCount } from '../../lib/format.ts';
import { isCancellation, openPdf, type PdfDocument } from '../../pdf/pdf-document.ts';

/** How long the width must hold still before the page is drawn again at it. */
const RESIZE_DELAY_MS = 150;

/** The PDF one page at a time, drawn by PDF.js into a canvas the width of the viewer. */
export function PdfPages({ data, page, onPage }: { data: string; page: number; onPage: (page: number) => void }) {
  const [pdf, setPdf] = useState<PdfDocument | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [drawn, setDrawn] = useState(0);
  const [width, setWidth] = useState(0);
  const frame = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);

  useEffect(() => {
    let open: PdfDocument | null = null;
    let gone = false;
    openPdf(decodeBase64(data)).then(
      (document) => {
        if (gone) return void document.close();
        open = document;
        setPdf(document);
      },
      (reason: unknown) => {
        if (!gone) setError(reason instanceof Error ? reason.message : String(reason));
      },
    );
    return () => {
      gone = true;
      void open?.close();
    };
  }, [data]);

  useEffect(() => {
    const element = frame.current;
    if (element === null) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const measure = (): void => setWidth(Math.max(200, element.clientWidth - 24));
    measure();
    const observer = new ResizeObserver(() => {
      clearTimeout(timer);
      timer = setTimeout(measure, RESIZE_DELAY_MS);
    });
    observer.observe(element);
    return () => {
      clearTimeout(timer);
      observer.disconnect();
    };
  }, []);

  const shown = pdf === null ? page : Math.min(Math.max(1, page), pdf.pageCount);
  useEffect(() => {
    if (pdf === null || canvas.current === null || width === 0) return;
    const drawing = pdf.drawPage(shown, canvas.current, width);
    drawing.done.then(
      () => setDrawn(shown),
      (reason: unknown) => {
        if (!isCancellation(reason)) setError(`Page ${shown} could not be drawn (${reason instanceof Error ? reason.message : String(reason)}).`);
      },
    );
    return () => drawing.cancel();
  }, [pdf, shown, width]);

  return (
    <div className="pdf-pages">
      {pdf !== null && (
        <nav className="pdf-nav" aria-label="Pages of the PDF">
          <button type="button" className="button-secondary" disabled={shown <= 1} onClick={() => onPage(shown - 1)}>
            Previous page
          </button>
          <PageNumber page={shown} pageCount={pdf.pageCount} onPage={onPage} />
          <button type="button" className="button-secondary" disabled={shown >= pdf.pageCount} onClick={() => onPage(shown + 1)}>
            Next page
          </button>
        </nav>
      )}
      <ErrorNote error={error} />
      {pdf === null && error === undefined && <LoadingNote>Opening the PDF…</LoadingNote>}
      <div className="pdf-canvas-frame" ref={frame}>
        <canvas ref={canvas} className="pdf-canvas" data-page={drawn} aria-label={pdf === null ? 'PDF page' : `Page ${shown} of ${pdf.pageCount}`} role="img" />
      </div>
    </div>
  );
}

/** "Page [n] of 52": the number can be typed, and is taken on Enter or when the field is left. */
function PageNumber({ page, pageCount, onPage }: { page: number; pageCount: number; onPage: (page: number) => void }) {
  const [typed, setTyped] = useState(String(page));
  useEffect(() => setTyped(String(page)), [page]);
  const take = (): void => {
    const wanted = Number(typed);
    if (Number.isInteger(wanted) && wanted >= 1 && wanted <= pageCount) onPage(wanted);
    else setTyped(String(page));
  };
  return (
    <span className="pdf-page-number">
      <label htmlFor="pdf-page">Page</label>
      <input
        id="pdf-page"
        inputMode="numeric"
        value={typed}
        size={Math.max(2, String(pageCount).length)}
        onChange={(e) => setTyped(e.target.value)}
        onBlur={take}
        onKeyDown={(e) => {
          if (e.key === 'Enter') take();
        }}
      />
      <span data-testid="pdf-page-count">of {formatCount(pageCount)}</span>
    </span>
  );
}
