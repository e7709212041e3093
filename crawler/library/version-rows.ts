import type { ReadonlyDb, ReadStatement } from '../store/database.ts';
import type { PageRow } from '../store/page-row.ts';
import { hasVersions, versionBodySql, versionPayloadSql } from '../store/stored-body.ts';
import type { RevisitOutcome } from '../store/version-store.ts';
import type { StoredResponseRow } from './response-rows.ts';

/*
 * A page's history as an archive writes it: its earlier versions (page_versions, the latest
 * being the pages row) and the revisits that stored no new version. Point queries by page,
 * and a version's body only when asked for, so one page's history is in memory at a time.
 * A collection older than schema 8 (read as it is) has no history.
 */

/** An earlier version, as listed: enough to place it in time. */
export interface EarlierVersion {
  version: number;
  startedAt: number;
}

/** An earlier version's stored HTTP exchange. */
export interface StoredVersionRow extends StoredResponseRow, Pick<PageRow, 'status' | 'contentType'> {
  version: number;
}

/** A revisit that stored no new version ('changed' ones are the next version's own response). */
export interface StoredRevisitRow {
  id: number;
  /** The version it confirmed (not-modified, identical), or the one the page still held (gone). */
  version: number;
  outcome: Exclude<RevisitOutcome, 'changed'>;
  status: number;
  httpVersion: string | null;
  statusText: string | null;
  /** The response headers as received: JSON of [name, value] pairs, latin1-decoded. */
  headers: string;
  requestHead: string | null;
  startedAt: number;
  /** Bytes of body the server sent (none is stored). */
  wireBytes: number;
  remoteAddress: string | null;
}

export class VersionRows {
  readonly #earlier: ReadStatement | undefined;
  readonly #version: ReadStatement | undefined;
  readonly #revisits: ReadStatement | undefined;

  constructor(db: ReadonlyDb) {
    if (!hasVersions(db)) return;
    this.#earlier = db.prepare('SELECT version, started_at AS startedAt FROM page_versions WHERE page_seq = ? ORDER BY version');
    this.#version = db.prepare(
      `SELECT v.version, v.status, v.content_type AS contentType, v.http_version AS httpVersion, v.status_text AS statusText, v.headers,
              v.request_head AS requestHead, ${versionPayloadSql(db, 'v')} AS payload, ${versionBodySql(db, 'v')} AS body,
              v.started_at AS startedAt, v.remote_address AS remoteAddress, v.note
       FROM page_versions v WHERE v.page_seq = ? AND v.version = ?`,
    );
    this.#revisits = db.prepare(
      `SELECT id, version, outcome, status, http_version AS httpVersion, status_text AS statusText, headers, request_head AS requestHead,
              started_at AS startedAt, wire_bytes AS wireBytes, remote_address AS remoteAddress
       FROM revisits WHERE page_seq = ? AND outcome <> 'changed' ORDER BY started_at, id`,
    );
  }

  /** The page's earlier versions, oldest first. */
  earlier(seq: number): EarlierVersion[] {
    return (this.#earlier?.all(seq) as EarlierVersion[] | undefined) ?? [];
  }

  /** One earlier version, body and all. */
  version(seq: number, version: number): StoredVersionRow | undefined {
    return this.#version?.get(seq, version) as StoredVersionRow | undefined;
  }

  /** The revisits that stored no new version, in time order. */
  revisits(seq: number): StoredRevisitRow[] {
    return (this.#revisits?.all(seq) as StoredRevisitRow[] | undefined) ?? [];
  }
}
