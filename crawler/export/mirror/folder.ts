/**
 * A mirror written as a folder: built under a temporary sibling name and renamed into place
 * at the end, so a failed export leaves nothing under the final name. Up to MAX_IN_FLIGHT
 * files are being written at a time (at most that many pages in memory). An existing target
 * must be an empty folder (it is replaced); anything else is refused before work starts.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, lstatSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ExportError } from '../export-error.ts';
import type { MirrorFile, MirrorSink } from './sink.ts';

/** Files written at once: small files cost a round trip to the thread pool each, so a few overlap. */
const MAX_IN_FLIGHT = 16;

/** What stands at `path`: nothing, an empty folder, or something an export must not replace. */
function existing(path: string): 'none' | 'empty-folder' | 'folder' | 'other' {
  try {
    const stat = lstatSync(path);
    if (!stat.isDirectory()) return 'other';
    return readdirSync(path).length === 0 ? 'empty-folder' : 'folder';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'none';
    throw ExportError.fromWriteError(path, err as Error);
  }
}

export class FolderSink implements MirrorSink {
  readonly #target: string;
  readonly #temp: string;
  readonly #made = new Set<string>();
  readonly #inFlight: Promise<void>[] = [];
  #bytes = 0;

  constructor(target: string) {
    this.#target = target;
    const found = existing(target);
    if (found === 'folder') throw new ExportError(`${target} already exists and is not empty; choose a new or empty folder`, { path: target });
    if (found === 'other') throw new ExportError(`${target} already exists and is not a folder`, { path: target });
    this.#temp = join(dirname(target), `.${basename(target)}.${randomBytes(4).toString('hex')}.part`);
    try {
      mkdirSync(this.#temp);
    } catch (err) {
      throw ExportError.fromWriteError(target, err as Error);
    }
    this.#made.add(this.#temp);
  }

  async write(files: Iterable<MirrorFile>): Promise<void> {
    for (const file of files) {
      const path = join(this.#temp, ...file.path.split('/'));
      try {
        this.#folder(dirname(path));
      } catch (err) {
        throw ExportError.fromWriteError(this.#target, err as Error);
      }
      const written = this.#writeFile(path, file.content()).catch((err: unknown) => {
        throw ExportError.fromWriteError(this.#target, err as Error);
      });
      // Marked handled here; it is awaited below, which throws its failure.
      written.catch(() => {});
      this.#inFlight.push(written);
      while (this.#inFlight.length > MAX_IN_FLIGHT) await this.#inFlight.shift();
    }
    await Promise.all(this.#inFlight.splice(0));
  }

  async commit(): Promise<number> {
    try {
      // An empty folder chosen as the target is replaced; rename cannot do that on every platform.
      if (existing(this.#target) === 'empty-folder') rmdirSync(this.#target);
      renameSync(this.#temp, this.#target);
    } catch (err) {
      throw err instanceof ExportError ? err : ExportError.fromWriteError(this.#target, err as Error);
    }
    return this.#bytes;
  }

  async discard(): Promise<void> {
    // A write still under way could otherwise recreate a file after the folder is gone.
    await Promise.allSettled(this.#inFlight.splice(0));
    rmSync(this.#temp, { recursive: true, force: true });
  }

  async #writeFile(file: string, content: Buffer | Iterable<string>): Promise<void> {
    if (Buffer.isBuffer(content)) {
      await writeFile(file, content, { flag: 'wx' });
      this.#bytes += content.length;
      return;
    }
    const counted = Readable.from(content).map((chunk: string) => {
      this.#bytes += Buffer.byteLength(chunk);
      return chunk;
    });
    await pipeline(counted, createWriteStream(file, { flags: 'wx' }));
  }

  #folder(path: string): void {
    if (this.#made.has(path)) return;
    mkdirSync(path, { recursive: true });
    this.#made.add(path);
  }
}
