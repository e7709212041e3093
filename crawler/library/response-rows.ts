import { storedBodySql, storedPayloadSql } from '../store/stored-body.ts';
import type { ReadonlyDb } from '../store/database.ts';

/*
 * The stored HTTP exchange of one page at a time, as an archive (WARC) writes it: what was
 * sent, what came back and when. Point queries by seq, so a large collection is never held
 * in memory.
 */

export interface StoredResponseRow {
  httpVersion: string | null;
  statusText: string | null;
  /** The response headers as received: JSON of [name, value] pairs, latin1-decoded. */
  headers: string;
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

export class ResponseRows {
  readonly #bySeq;

  constructor(db: ReadonlyDb) {
    this.#bySeq = db.prepare(
      `SELECT http_version AS httpVersion, status_text AS statusText, headers, request_head AS requestHead, ${storedPayloadSql(db, 'pages')} AS payload, ${storedBodySql(db, 'pages')} AS body,
              started_at AS startedAt, remote_address AS remoteAddress, note
       FROM pages WHERE seq = ?`,
    );
  }

  get(seq: number): StoredResponseRow | undefined {
    return this.#bySeq.get(seq) as StoredResponseRow | undefined;
  }
}
