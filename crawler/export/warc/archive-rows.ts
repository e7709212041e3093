import { gunzipSync } from 'node:zlib';
import { ResponseRows, type StoredResponseRow } from '../../library/response-rows.ts';
import { VersionRows, type EarlierVersion, type StoredRevisitRow, type StoredVersionRow } from '../../library/version-rows.ts';
import type { ReadonlyDb } from '../../store/database.ts';
import { ExportError } from '../export-error.ts';

/** What a WARC needs of a stored response beyond the export's page facts. */
export interface ArchiveRow extends Omit<StoredResponseRow, 'headers'> {
  /** As received, names and values latin1-decoded (byte-preserving). */
  headers: [string, string][];
}

/** An earlier version of a page, as a WARC writes it. */
export interface ArchiveVersionRow extends ArchiveRow, Pick<StoredVersionRow, 'version' | 'status' | 'contentType'> {}

/** A revisit that stored no new version, as a WARC writes it. */
export interface ArchiveRevisit extends Omit<StoredRevisitRow, 'headers'> {
  headers: [string, string][];
}

/** Reads the archive columns of one page at a time, so a large collection is never held in memory. */
export class ArchiveRows {
  readonly #rows: ResponseRows;
  readonly #versions: VersionRows;

  constructor(db: ReadonlyDb) {
    this.#rows = new ResponseRows(db);
    this.#versions = new VersionRows(db);
  }

  get(seq: number): ArchiveRow {
    const raw = this.#rows.get(seq);
    if (raw === undefined) throw new ExportError(`page ${seq} disappeared during the export`, { seq });
    return { ...raw, headers: parseHeaders(raw.headers, `page ${seq}`, { seq }) };
  }

  earlierVersions(seq: number): EarlierVersion[] {
    return this.#versions.earlier(seq);
  }

  version(seq: number, version: number): ArchiveVersionRow {
    const raw = this.#versions.version(seq, version);
    if (raw === undefined) throw new ExportError(`version ${version} of page ${seq} disappeared during the export`, { seq, version });
    return { ...raw, headers: parseHeaders(raw.headers, `version ${version} of page ${seq}`, { seq, version }) };
  }

  revisits(seq: number): ArchiveRevisit[] {
    return this.#versions.revisits(seq).map((raw) => ({ ...raw, headers: parseHeaders(raw.headers, `revisit ${raw.id} of page ${seq}`, { seq, revisit: raw.id }) }));
  }
}

function parseHeaders(json: string, what: string, context: Record<string, unknown>): [string, string][] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (err) {
    throw new ExportError(`the stored headers of ${what} are corrupt`, context, { cause: err });
  }
  const valid = Array.isArray(parsed) && parsed.every((h) => Array.isArray(h) && h.length === 2 && typeof h[0] === 'string' && typeof h[1] === 'string');
  if (!valid) throw new ExportError(`the stored headers of ${what} are corrupt`, context);
  return parsed as [string, string][];
}

export interface ArchivePayload {
  bytes: Buffer;
  /** The body was not downloaded (the crawler records the types it does not read from their headers). */
  truncated: boolean;
}

/** The payload as received: the stored content-encoded bytes, else the decoded body. `version` names an earlier version of page `seq`. */
export function payloadAsReceived(row: ArchiveRow, seq: number, version?: number): ArchivePayload {
  if (row.payload !== null) return { bytes: row.payload, truncated: false };
  if (row.body === null) return { bytes: Buffer.alloc(0), truncated: bodyWasSkipped(row) };
  try {
    return { bytes: gunzipSync(row.body), truncated: false };
  } catch (err) {
    const what = version === undefined ? `page ${seq}` : `version ${version} of page ${seq}`;
    throw new ExportError(`the stored body of ${what} is corrupt`, { seq, ...(version !== undefined && { version }) }, { cause: err });
  }
}

/**
 * A 2xx response without a stored body either had an empty body or was not downloaded;
 * the crawler skips exactly the bodies it would not read, and notes those as `not-html:`.
 * A document (read, or noted `document:<reason>` when reading it failed) was downloaded:
 * its bytes are in `body`, so its record carries them.
 */
function bodyWasSkipped(row: ArchiveRow): boolean {
  return row.note?.startsWith('not-html:') === true;
}
