import type { ApiReply } from '../../../crawler/protocol/wire.ts';
import { ApiError } from './errors.ts';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks that a value crossing a transport has the ApiReply shape. */
export function isApiReply(value: unknown): value is ApiReply {
  if (!isRecord(value)) return false;
  if (value.ok === true) return 'value' in value;
  if (value.ok !== false || !isRecord(value.error)) return false;
  return typeof value.error.code === 'string' && typeof value.error.message === 'string';
}

/** The value of a successful reply; an ApiError for a failed or malformed one. */
export function unwrapReply(method: string, reply: unknown): unknown {
  if (!isApiReply(reply)) {
    throw new ApiError('BAD_REPLY', `The Forager service gave an answer this window does not understand (to ${method}).`);
  }
  if (reply.ok) return reply.value;
  throw new ApiError(reply.error.code, reply.error.message);
}
