import { gunzipSync } from 'node:zlib';
import { ResponseRows, type StoredResponseRow } from '../../library/response-rows.ts';
import type { ReadonlyDb } from '../../store/database.ts';
import { ExportError } from '../export-error.ts';

/** What a WARC needs of a stored response beyond the export's page facts. */
export interface ArchiveRow extends Omit<StoredResponseRow, 'headers'> {
  /** As received, names and values latin1-decoded (byte-preserving). */
  headers: [string, string][];
}

/** Reads the archive columns of one page at a time, so a large collection is never held in memory. */
export class ArchiveRows {
  readonly #rows: ResponseRows;

  constructor(db: ReadonlyDb) {
    this.#rows = new ResponseRows(db);
  }

  get(seq: number): ArchiveRow {
    const raw = this.#rows.get(seq);
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
