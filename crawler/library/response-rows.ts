import { storedBodySql, storedPayloadSql } from '../store/stored-body.ts';
import type { ReadonlyDb } from '../store/database.ts';
import type { PageRow } from '../store/page-row.ts';

/*
 * The stored HTTP exchange of one page at a time, as an archive (WARC) writes it: what was
 * sent, what came back and when. Point queries by seq, so a large collection is never held
 * in memory.
 */

/** The body is storedBodySql's: an exact duplicate's is its original's. */
export type StoredResponseRow = Pick<PageRow, 'httpVersion' | 'statusText' | 'headers' | 'requestHead' | 'payload' | 'body' | 'startedAt' | 'remoteAddress' | 'note'>;

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
