import { ForagerError } from '../errors.ts';

/** A WACZ that cannot be imported: missing, not a zip, failing its digests, truncated, or not Forager's. */
export class ImportError extends ForagerError {
  constructor(message: string, context: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super('IMPORT', message, context, options);
  }
}
