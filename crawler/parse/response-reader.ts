import { documentToRead, type ResponseAnalysis, type ResponseInput } from './analyse-response.ts';
import type { DocumentFacts } from './documents/document-facts.ts';
import { DOCUMENT_NOTES } from './documents/document-notes.ts';
import { DocumentPool } from './documents/document-pool.ts';
import { defaultParseWorkers, ParsePool } from './parse-pool.ts';
import { AnalysisJobError } from './worker-pool.ts';

export interface ResponseReaderOptions {
  /** Parse workers (HTML, plain text, site resources); default defaultParseWorkers(). Unused when `parsePool` is given. */
  parseWorkers?: number;
  /** Document workers (PDF), started at the first PDF; default 1. Unused when `documentPool` is given. */
  documentWorkers?: number;
  /** A pool to use instead of making one (tests, a caller's own); the reader closes it. */
  parsePool?: ParsePool;
  documentPool?: DocumentPool;
}

/** What is known of a PDF its worker could not read: that it is one. */
function unreadPdf(): DocumentFacts {
  return { type: 'pdf', pageCount: 0, pagesRead: 0, pageStarts: [], metadata: {} };
}

/** The note for a reading that ended with its worker. */
function failureNote(err: AnalysisJobError): string {
  if (err.failure === 'time' || err.failure === 'cpu-time') return DOCUMENT_NOTES.timeout;
  if (err.failure === 'out-of-memory') return DOCUMENT_NOTES.outOfMemory;
  return DOCUMENT_NOTES.failed;
}

/**
 * The one way in for analysing a response: PDFs (the `documents` setting naming pdf) go to the
 * document pool, everything else (HTML, plain text, site resources, what is not read) to the
 * parse pool. A PDF whose reading ends with its worker (a cap, the heap, a crash) is still
 * analysed, by the parse pool, as not read: its body is stored and the note says why.
 */
export class ResponseReader {
  readonly #parse: ParsePool;
  readonly #documents: DocumentPool;

  constructor(options: ResponseReaderOptions = {}) {
    this.#parse = options.parsePool ?? new ParsePool(options.parseWorkers ?? defaultParseWorkers());
    this.#documents = options.documentPool ?? new DocumentPool({ size: options.documentWorkers ?? 1 });
  }

  async analyse(input: ResponseInput): Promise<ResponseAnalysis> {
    if (documentToRead(input) !== 'pdf') return this.#parse.analyse(input);
    try {
      return await this.#documents.analyse(input);
    } catch (err) {
      if (!(err instanceof AnalysisJobError)) throw err;
      const unread = await this.#parse.analyse({ ...input, documents: [] });
      return { ...unread, note: failureNote(err), document: unreadPdf() };
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.#parse.close(), this.#documents.close()]);
  }
}
