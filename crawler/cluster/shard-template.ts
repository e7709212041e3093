import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openCollection } from '../store/database.ts';

/**
 * An empty collection at the current schema, made once per worker in the system's temporary
 * folder: a new shard is a copy of it. Closed before use, so it is one file (no WAL beside it).
 */
export class ShardTemplate {
  readonly path = join(tmpdir(), `forager-shard-template-${process.pid}.forager`);

  constructor() {
    rmSync(this.path, { force: true });
    openCollection(this.path, { create: true }).close();
  }

  remove(): void {
    for (const suffix of ['', '-wal', '-shm']) rmSync(this.path + suffix, { force: true });
  }
}
