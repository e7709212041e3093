import { existsSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openCollection } from '../store/database.ts';
import { SCHEMA_VERSION } from '../store/migrations.ts';

/**
 * An empty collection at the current schema in the system's temporary folder: a new shard is
 * a copy of it. One file per schema version, shared by every worker of the machine and kept
 * (a killed worker leaves nothing behind); made under a name of its own and renamed, so no
 * worker ever copies half of one.
 */
export function shardTemplate(): string {
  const path = join(tmpdir(), `forager-shard-template-v${SCHEMA_VERSION}.forager`);
  if (existsSync(path)) return path;
  const making = `${path}.${process.pid}.tmp`;
  openCollection(making, { create: true }).close();
  for (const suffix of ['-wal', '-shm']) rmSync(making + suffix, { force: true });
  renameSync(making, path);
  return path;
}
