import { spawn, type ChildProcess } from 'node:child_process';

/*
 * A process stopped inside a write transaction of a SQLite file: what a worker paused
 * (SIGSTOP, a paused VM) in the middle of storing a page leaves behind. It holds the file's
 * write lock until it is killed.
 */

const HOLD_LOCK = `
const Database = require('better-sqlite3');
for (const path of process.argv.slice(1)) {
  const db = new Database(path);
  db.pragma('busy_timeout = 0');
  try {
    db.exec('BEGIN IMMEDIATE');
    db.exec('UPDATE cluster_fence SET epoch = epoch');
  } catch {
    db.close();
    continue;
  }
  process.stdout.write(path + '\\n');
  setInterval(() => undefined, 1000);
  break;
}
`;

/**
 * Takes the write lock of the first of `paths` whose lock is free (a shard: it must hold a
 * cluster_fence row), then is stopped. Kill it with SIGKILL.
 */
export async function stoppedLockHolder(paths: readonly string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', HOLD_LOCK, ...paths], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the lock holder exited (${code}) without taking a lock`)));
    child.stdout.once('data', () => resolve());
  });
  child.kill('SIGSTOP');
  return child;
}
