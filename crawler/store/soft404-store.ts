import type { Db } from './database.ts';

/** A folder's answer to a name that cannot exist: the simhash of its 200 page, or null for a real 404. */
export interface FolderProbe {
  hostId: number;
  folder: string;
  simhash: bigint | null;
}

/** The soft-404 probes of folders below hosts' roots (a host's root probe is in hosts). */
export class Soft404Store {
  readonly #all;
  readonly #save;

  constructor(db: Db) {
    this.#all = db.prepare('SELECT host_id AS hostId, folder, simhash FROM soft404_folders').safeIntegers(true);
    this.#save = db.prepare('INSERT OR REPLACE INTO soft404_folders (host_id, folder, simhash, probed_at) VALUES (?, ?, ?, ?)');
  }

  all(): FolderProbe[] {
    return (this.#all.all() as { hostId: bigint; folder: string; simhash: bigint | null }[]).map((row) => ({ ...row, hostId: Number(row.hostId) }));
  }

  save(hostId: number, folder: string, simhash: bigint | null, probedAt: number): void {
    this.#save.run(hostId, folder, simhash, probedAt);
  }
}
