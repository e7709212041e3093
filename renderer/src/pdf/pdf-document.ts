/*
 * PDF.js as the library's viewer uses it: the app's own code draws a stored PDF's pages to
 * canvases. A stored document is content from outside, so:
 *   - none of its scripts run: no scripting sandbox is loaded, no annotation or form layer
 *     is built (annotations are only painted), XFA is off; PDF.js 6 has no eval path at all,
 *     and the app's CSP (script-src 'self') would refuse one;
 *   - nothing leaves the app: the bytes come from the API, and the only files PDF.js fetches
 *     are the app's own (its worker, and the standard fonts and CMaps the build copies into
 *     pdfjs/); WebAssembly is off, as the CSP allows none;
 *   - the work is bounded: images over MAX_IMAGE_PIXELS are not drawn, and a canvas holds
 *     at most MAX_CANVAS_PIXELS whatever the page size and screen density.
 * pdfjs-dist itself is loaded on the first PDF shown, so the app starts without it.
 */
import type { PDFDocumentLoadingTask, PDFDocumentProxy } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';

const MAX_IMAGE_PIXELS = 50_000_000;
const MAX_CANVAS_PIXELS = 16_000_000;

/** An open PDF: its pages drawn on demand, closed when the viewer is done with it. */
export interface PdfDocument {
  pageCount: number;
  /** Draws page `page` (from 1) into `canvas`, `cssWidth` CSS pixels wide at the screen's density. */
  drawPage(page: number, canvas: HTMLCanvasElement, cssWidth: number): PageDrawing;
  close(): Promise<void>;
}

export interface PageDrawing {
  /** Settles when the page is drawn; rejects with a RenderingCancelledException once cancelled. */
  done: Promise<void>;
  cancel(): void;
}

/** Why a PDF cannot be shown, in words; the document may still be saved or opened elsewhere. */
export class PdfOpenError extends Error {
  override readonly name = 'PdfOpenError';
}

/** The app's own copy of a folder of pdfjs-dist (vite.config.ts puts it there), as an absolute URL the worker can fetch. */
function appAsset(folder: string): string {
  return new URL(`./pdfjs/${folder}/`, document.baseURI).href;
}

async function loadPdfjs(): Promise<typeof import('pdfjs-dist')> {
  const pdfjs = await import('pdfjs-dist');
  pdfjs.GlobalWorkerOptions.workerSrc = workerUrl;
  return pdfjs;
}

export async function openPdf(data: Uint8Array): Promise<PdfDocument> {
  const pdfjs = await loadPdfjs();
  const task: PDFDocumentLoadingTask = pdfjs.getDocument({
    data,
    enableXfa: false,
    useWasm: false,
    standardFontDataUrl: appAsset('standard_fonts'),
    cMapUrl: appAsset('cmaps'),
    disableWorkerRendering: true,
    maxImageSize: MAX_IMAGE_PIXELS,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
  });
  let proxy: PDFDocumentProxy;
  try {
    proxy = await task.promise;
  } catch (error) {
    await task.destroy();
    throw new PdfOpenError(error instanceof pdfjs.PasswordException ? 'The PDF is locked with a password.' : `PDF.js could not read the file (${error instanceof Error ? error.message : String(error)}).`);
  }
  return {
    pageCount: proxy.numPages,
    drawPage: (page, canvas, cssWidth) => drawPage(pdfjs, proxy, page, canvas, cssWidth),
    close: () => task.destroy(),
  };
}

function drawPage(pdfjs: typeof import('pdfjs-dist'), proxy: PDFDocumentProxy, pageNumber: number, canvas: HTMLCanvasElement, cssWidth: number): PageDrawing {
  let cancelled = false;
  let cancelTask = (): void => undefined;
  const done = (async () => {
    const page = await proxy.getPage(pageNumber);
    if (cancelled) throw new pdfjs.RenderingCancelledException('cancelled before drawing');
    const viewport = page.getViewport({ scale: cssWidth / page.getViewport({ scale: 1 }).width });
    const density = Math.min(window.devicePixelRatio || 1, Math.sqrt(MAX_CANVAS_PIXELS / (viewport.width * viewport.height)));
    canvas.width = Math.floor(viewport.width * density);
    canvas.height = Math.floor(viewport.height * density);
    canvas.style.width = `${Math.floor(viewport.width)}px`;
    canvas.style.height = `${Math.floor(viewport.height)}px`;
    const task = page.render({
      canvas,
      viewport,
      transform: density === 1 ? undefined : [density, 0, 0, density, 0, 0],
      annotationMode: pdfjs.AnnotationMode.ENABLE,
    });
    cancelTask = () => task.cancel();
    await task.promise;
  })();
  return {
    done,
    cancel: () => {
      cancelled = true;
      cancelTask();
    },
  };
}

/** Whether a drawing's failure is only its cancellation (a newer drawing replaced it). */
export function isCancellation(error: unknown): boolean {
  return error instanceof Error && error.name === 'RenderingCancelledException';
}
