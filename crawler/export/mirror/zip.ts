/**
 * A mirror written as a zip (yazl), streamed to a temporary file that is renamed into place
 * when complete (AtomicFile), with back-pressure from the disk up to the page renderer.
 *
 * Every file is given to yazl before any is written, each with a callback that renders it
 * when yazl gets to it, so only the file being compressed is in memory. Why not add files
 * as they are rendered: yazl keeps each entry's name, a small pooled Buffer, until the zip
 * ends, and names allocated between the compressor's short-lived pooled buffers pin those
 * 64 KB pool slabs too (about 20 KB a page). Allocated in one go, names fill slabs of their
 * own. What stays per page is yazl's entry record (under 1 KB), needed for the central
 * directory anyway.
 *
 * Scale: yazl looks for the next entry to write by scanning its list from the start, so
 * its bookkeeping grows with the square of the page count: negligible at 10,000 pages, some
 * seconds at 100,000.
 */
import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { AtomicFile } from '../atomic-file.ts';
import { ExportError } from '../export-error.ts';
import type { MirrorFile, MirrorSink } from './sink.ts';

/** A stream of one buffer that lets go of it once read (yazl keeps its input streams). */
function releasingStream(content: Buffer): Readable {
  let pending: Buffer | null = content;
  return new Readable({
    read() {
      const chunk = pending;
      pending = null;
      this.push(chunk);
    },
  });
}

export class ZipSink implements MirrorSink {
  readonly #file: AtomicFile;
  readonly #zip = new ZipFile();
  readonly #written: Promise<void>;
  readonly #failed: Promise<never>;
  #fail: (err: unknown) => void = () => {};

  constructor(path: string) {
    this.#file = new AtomicFile(path);
    this.#failed = new Promise<never>((_resolve, reject) => {
      this.#fail = reject;
    });
    // Marked handled here; write() races against it and so still sees the failure.
    this.#failed.catch(() => {});
    this.#zip.on('error', (err: Error) => this.#fail(new ExportError(`cannot write ${path}: ${err.message}`, { path }, { cause: err })));
    this.#written = this.#copyOut();
    this.#written.catch((err: unknown) => this.#fail(err));
  }

  async write(files: Iterable<MirrorFile>): Promise<void> {
    for (const file of files) {
      this.#zip.addReadStreamLazy(file.path, { mtime: file.modified }, (ready) => {
        let content: Buffer | Iterable<string>;
        try {
          content = file.content();
        } catch (err) {
          this.#fail(err);
          ready(err, new Readable());
          return;
        }
        const input = Buffer.isBuffer(content) ? releasingStream(content) : Readable.from(content, { objectMode: false });
        input.on('error', (err) => this.#fail(err));
        ready(null, input);
      });
    }
    this.#zip.end();
    await Promise.race([this.#written, this.#failed]);
  }

  async commit(): Promise<number> {
    await this.#file.commit();
    return this.#file.bytes;
  }

  async discard(): Promise<void> {
    const output = this.#zip.outputStream as Readable;
    // yazl may still write into the stream it no longer has a reader for; that is expected now.
    output.on('error', () => {});
    output.destroy();
    await Promise.allSettled([this.#written]);
    this.#file.discard();
  }

  async #copyOut(): Promise<void> {
    for await (const chunk of this.#zip.outputStream) await this.#file.write(chunk as Buffer);
  }
}
