/** Where a mirror's files go: a folder or a zip, both appearing under their name only when complete. */

export interface MirrorFile {
  /** Mirror-relative, '/'-separated. */
  path: string;
  modified: Date;
  /**
   * The file's content, asked for only when the sink is ready to write it: the whole file,
   * or chunks pulled as they are written. May throw to stop the export.
   */
  content(): Buffer | Iterable<string>;
}

export interface MirrorSink {
  /** Writes every file, in order; resolves once all are written (not yet under the final name). */
  write(files: Iterable<MirrorFile>): Promise<void>;
  /** Moves the result under its final name; resolves to the bytes written. */
  commit(): Promise<number>;
  /** Removes everything written so far, once writes under way have stopped. Safe after a failure or twice. */
  discard(): Promise<void>;
}
