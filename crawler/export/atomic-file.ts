import { randomBytes } from 'node:crypto';
import { closeSync, createWriteStream, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ExportError } from './export-error.ts';

/**
 * Writes a file under a temporary name in the same directory and renames it into place
 * only when every byte is on disk, so a failed export never leaves a half-written file
 * under the final name. The bytes are synced to the disk before the rename, and the rename
 * itself after it, so a power cut cannot leave a complete-looking file of zeros.
 */
export class AtomicFile {
  readonly path: string;
  readonly #partPath: string;
  readonly #stream;
  readonly #fd: number;
  readonly #sync: (fd: number) => void;
  #bytes = 0;
  #failed: Error | undefined;
  /** Closed once only: a descriptor number closed twice may by then belong to another file. */
  #fdOpen = true;

  /** `sync` flushes a file descriptor to the disk; tests watch it. */
  constructor(path: string, sync: (fd: number) => void = fsyncSync) {
    this.#sync = sync;
    this.path = path;
    this.#partPath = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.part`);
    let fd: number;
    try {
      // Opened here, not lazily by the stream, so a bad destination fails at once and in words.
      fd = openSync(this.#partPath, 'wx');
    } catch (err) {
      throw ExportError.fromWriteError(path, err as Error);
    }
    this.#fd = fd;
    // The descriptor stays open after the stream ends, to be synced before the rename.
    this.#stream = createWriteStream('', { fd, autoClose: false });
    this.#stream.on('error', (err) => {
      this.#failed ??= err;
    });
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** Writes a chunk, waiting when the stream's buffer is full so memory stays flat. */
  async write(chunk: string | Buffer): Promise<void> {
    this.#check();
    this.#bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (!this.#stream.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          this.#stream.off('drain', done);
          this.#stream.off('error', done);
          resolve();
        };
        this.#stream.on('drain', done);
        this.#stream.on('error', done);
      });
      this.#check();
    }
  }

  /** Flushes, syncs and renames into place. */
  async commit(): Promise<void> {
    this.#check();
    await new Promise<void>((resolve, reject) => {
      this.#stream.once('error', reject);
      this.#stream.end(() => resolve());
    }).catch((err: Error) => {
      this.#failed ??= err;
    });
    this.#check();
    try {
      this.#sync(this.#fd);
      this.#closeFd();
      renameSync(this.#partPath, this.path);
    } catch (err) {
      throw ExportError.fromWriteError(this.path, err as Error);
    }
    syncDirectory(dirname(this.path), this.#sync);
  }

  /** Removes the partial file. Safe to call after a failure or twice. */
  discard(): void {
    // Destroying the stream closes its descriptor (whatever autoClose says): only while it is still ours.
    if (this.#fdOpen) {
      this.#fdOpen = false;
      this.#stream.destroy();
    }
    rmSync(this.#partPath, { force: true });
  }

  #closeFd(): void {
    if (!this.#fdOpen) return;
    this.#fdOpen = false;
    closeSync(this.#fd);
  }

  #check(): void {
    if (this.#failed !== undefined) throw ExportError.fromWriteError(this.path, this.#failed);
  }
}

/** Makes a rename in `dir` durable. Not every platform lets a directory be opened or synced; the file itself is safe then. */
function syncDirectory(dir: string, sync: (fd: number) => void): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    sync(fd);
  } catch {
    // Best effort, as above.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
