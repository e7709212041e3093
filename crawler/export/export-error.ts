import { ForagerError } from '../errors.ts';

/** An export that could not be written: a bad destination, a full disk, nothing selected. */
export class ExportError extends ForagerError {
  constructor(message: string, context: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super('EXPORT', message, context, options);
  }

  static fromWriteError(path: string, err: Error): ExportError {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOSPC' ? 'the disk is full'
      : code === 'EACCES' || code === 'EPERM' ? 'permission denied'
      : code === 'ENOENT' ? 'the folder does not exist'
      : code === 'EROFS' ? 'the file system is read-only'
      : code === 'EISDIR' ? 'that path is a folder'
      : err.message;
    return new ExportError(`cannot write ${path}: ${why}`, { path, errno: code }, { cause: err });
  }
}
