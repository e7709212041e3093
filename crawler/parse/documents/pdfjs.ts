/*
 * pdf.js (pdfjs-dist's legacy build, the one for Node) as Forager runs it: on a document's bytes
 * only, with no way for the document to run code or reach the network.
 *  - No scripting and no XFA: pdf.js runs a document's JavaScript only in a viewer's scripting
 *    sandbox, which is never loaded here, and pdf.js 6 compiles nothing with eval at all.
 *  - The only files it may read are its own cMaps (CJK text needs them) and standard font data,
 *    from pdfjs-dist's folders on disk, through LocalDataFactory; no WebAssembly decoders (they
 *    decode images, which text extraction never does) and no system fonts.
 */
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getDocument, VerbosityLevel, type PDFDocumentLoadingTask } from 'pdfjs-dist/legacy/build/pdf.mjs';
// pdf.js's own worker code, run on this thread: loaded with this module rather than at the first
// document, so that a document worker is ready only once it can read, and no reading's time
// counts the loading of a 2 MB module.
import 'pdfjs-dist/legacy/build/pdf.worker.mjs';

const PDFJS_FOLDER = fileURLToPath(new URL('.', import.meta.resolve('pdfjs-dist/package.json')));
const CMAP_FOLDER = join(PDFJS_FOLDER, 'cmaps');
const STANDARD_FONT_FOLDER = join(PDFJS_FOLDER, 'standard_fonts');

/** The folder each kind of data pdf.js asks for is read from; any other kind is refused. */
const FOLDER_OF_KIND: Readonly<Record<string, string>> = { cMapUrl: CMAP_FOLDER, standardFontDataUrl: STANDARD_FONT_FOLDER };

/** pdf.js's BinaryDataFactory contract: it asks for a file by kind and name. */
class LocalDataFactory {
  async fetch({ kind, filename }: { kind: string; filename: string }): Promise<Uint8Array> {
    const folder = FOLDER_OF_KIND[kind];
    // A name with a folder in it could leave pdfjs-dist's folders: the names pdf.js asks for never have one.
    if (folder === undefined || filename !== basename(filename)) throw new Error(`pdf.js asked for ${kind} "${filename}": only its own cMaps and standard fonts are read`);
    return new Uint8Array(await readFile(join(folder, filename)));
  }
}

/**
 * Starts reading a PDF. pdf.js takes the bytes: their buffer is detached once it has them.
 * The caller destroys the task when done.
 */
export function openPdf(bytes: Uint8Array): PDFDocumentLoadingTask {
  return getDocument({
    data: bytes,
    BinaryDataFactory: LocalDataFactory,
    // The trailing slash is pdf.js's rule for these; LocalDataFactory reads by kind and name, not by these paths.
    cMapUrl: `${CMAP_FOLDER}/`,
    cMapPacked: true,
    standardFontDataUrl: `${STANDARD_FONT_FOLDER}/`,
    useWorkerFetch: false,
    useWasm: false,
    useSystemFonts: false,
    disableFontFace: true,
    enableXfa: false,
    isOffscreenCanvasSupported: false,
    isImageDecoderSupported: false,
    stopAtErrors: false,
    verbosity: VerbosityLevel.ERRORS,
  });
}
