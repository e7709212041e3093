import { createHash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { AtomicFile } from '../atomic-file.ts';

export interface SpooledFile {
  path: string;
  /** `sha256:<hex>` of the contents. */
  hash: string;
  bytes: number;
}

/**
 * A temporary file next to an export's target (same disk, so no surprise about space),
 * hashed as it is written, for the parts of a WACZ that are too big to hold in memory.
 * The caller removes it, on success and on failure.
 */
export class SpoolFile {
  readonly path: string;
  readonly #file: AtomicFile;
  readonly #hash = createHash('sha256');

  constructor(target: string, suffix: string) {
    this.path = join(dirname(target), `.${basename(target)}.${randomBytes(4).toString('hex')}.${suffix}`);
    this.#file = new AtomicFile(this.path);
  }

  async write(chunk: Buffer | string): Promise<void> {
    this.#hash.update(chunk);
    await this.#file.write(chunk);
  }

  async finish(): Promise<SpooledFile> {
    await this.#file.commit();
    return { path: this.path, hash: `sha256:${this.#hash.digest('hex')}`, bytes: this.#file.bytes };
  }

  remove(): void {
    this.#file.discard();
    rmSync(this.path, { force: true });
  }
}
