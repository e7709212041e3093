/*
 * The error every API method throws when the service answers { ok: false } or cannot be
 * reached. `message` is a sentence meant for the user; `code` is stable for programs, one of
 * the contract's error codes (the client's own are UNREACHABLE, SESSION and BAD_REPLY).
 */
import type { ErrorCode } from '../../../crawler/protocol/error-codes.ts';

export class ApiError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
  }
}

/** An error in words for the user: never a stack trace. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error && error.message !== '') return `Something went wrong: ${error.message}`;
  return 'Something went wrong, and Forager could not tell what.';
}
