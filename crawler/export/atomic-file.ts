import { randomBytes } from 'node:crypto';
import { createWriteStream, openSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ExportError } from './export-error.ts';

/**
 * Writes a file under a temporary name in the same directory and renames it into place
 * only when every byte is on disk, so a failed export never leaves a half-written file
 * under the final name.
 */
export class AtomicFile {
  readonly path: string;
  readonly #partPath: string;
  readonly #stream;
  #bytes = 0;
  #failed: Error | undefined;

  constructor(path: string) {
    this.path = path;
    this.#partPath = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.part`);
    let fd: number;
    try {
      // Opened here, not lazily by the stream, so a bad destination fails at once and in words.
      fd = openSync(this.#partPath, 'wx');
    } catch (err) {
      throw ExportError.fromWriteError(path, err as Error);
    }
    this.#stream = createWriteStream('', { fd });
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
      renameSync(this.#partPath, this.path);
    } catch (err) {
      throw ExportError.fromWriteError(this.path, err as Error);
    }
  }

  /** Removes the partial file. Safe to call after a failure or twice. */
  discard(): void {
    this.#stream.destroy();
    rmSync(this.#partPath, { force: true });
  }

  #check(): void {
    if (this.#failed !== undefined) throw ExportError.fromWriteError(this.path, this.#failed);
  }
}
