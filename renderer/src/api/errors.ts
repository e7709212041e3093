/*
 * The error every API method throws when the service answers { ok: false } or cannot be
 * reached. `message` is a sentence meant for the user; `code` is stable for programs.
 */
export class ApiError extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
  }
}

/** Codes the client itself produces (the service has its own). */
export const CLIENT_ERROR_CODES = {
  unreachable: 'UNREACHABLE',
  session: 'SESSION',
  badReply: 'BAD_REPLY',
} as const;

/** An error in words for the user: never a stack trace. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error && error.message !== '') return `Something went wrong: ${error.message}`;
  return 'Something went wrong, and Forager could not tell what.';
}
