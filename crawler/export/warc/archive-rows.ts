import { gunzipSync } from 'node:zlib';
import type { Db } from '../../store/database.ts';
import { ExportError } from '../export-error.ts';

/** What a WARC needs of a stored response beyond the export's page facts. */
export interface ArchiveRow {
  httpVersion: string | null;
  statusText: string | null;
  /** As received, names and values latin1-decoded (byte-preserving). */
  headers: [string, string][];
  /** Request line and header lines as sent, each ending in CRLF; null before schema 2. */
  requestHead: string | null;
  /** The body as received when a Content-Encoding applied. */
  payload: Buffer | null;
  /** gzip of the decoded body; null when there was none. */
  body: Buffer | null;
  startedAt: number;
  remoteAddress: string | null;
  note: string | null;
}

interface RawRow extends Omit<ArchiveRow, 'headers'> {
  headers: string;
}

/** Reads the archive columns of one page at a time, so a large collection is never held in memory. */
export class ArchiveRows {
  readonly #bySeq;

  constructor(db: Db) {
    this.#bySeq = db.prepare(
      `SELECT http_version AS httpVersion, status_text AS statusText, headers, request_head AS requestHead, payload, body,
              started_at AS startedAt, remote_address AS remoteAddress, note
       FROM pages WHERE seq = ?`,
    );
  }

  get(seq: number): ArchiveRow {
    const raw = this.#bySeq.get(seq) as RawRow | undefined;
    if (raw === undefined) throw new ExportError(`page ${seq} disappeared during the export`, { seq });
    return { ...raw, headers: parseHeaders(raw.headers, seq) };
  }
}

function parseHeaders(json: string, seq: number): [string, string][] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (err) {
    throw new ExportError(`the stored headers of page ${seq} are corrupt`, { seq }, { cause: err });
  }
  const valid = Array.isArray(parsed) && parsed.every((h) => Array.isArray(h) && h.length === 2 && typeof h[0] === 'string' && typeof h[1] === 'string');
  if (!valid) throw new ExportError(`the stored headers of page ${seq} are corrupt`, { seq });
  return parsed as [string, string][];
}

export interface ArchivePayload {
  bytes: Buffer;
  /** The body was not downloaded (the crawler records non-HTML types from their headers). */
  truncated: boolean;
}

/** The payload as received: the stored content-encoded bytes, else the decoded body. */
export function payloadAsReceived(row: ArchiveRow, seq: number): ArchivePayload {
  if (row.payload !== null) return { bytes: row.payload, truncated: false };
  if (row.body === null) return { bytes: Buffer.alloc(0), truncated: bodyWasSkipped(row) };
  try {
    return { bytes: gunzipSync(row.body), truncated: false };
  } catch (err) {
    throw new ExportError(`the stored body of page ${seq} is corrupt`, { seq }, { cause: err });
  }
}

/**
 * A 2xx response without a stored body either had an empty body or was not downloaded;
 * the crawler skips exactly the bodies it would not parse, and notes those as `not-html:`.
 */
function bodyWasSkipped(row: ArchiveRow): boolean {
  return row.note?.startsWith('not-html:') === true;
}
