import type { ApiMethod } from '../protocol/api.ts';
import { checkInput, isApiMethod } from './schema.ts';
import { errorBody, type ForagerService } from './service.ts';
import type { ApiReply } from '../protocol/wire.ts';

/**
 * One API call from any transport: the method name and input are checked against the
 * schema, the service is called, and whatever happens becomes an ApiReply.
 */
export async function dispatchCall(service: ForagerService, method: unknown, input: unknown): Promise<ApiReply> {
  if (!isApiMethod(method)) return { ok: false, error: { code: 'UNKNOWN_METHOD', message: `there is no API method "${String(method).slice(0, 60)}"` } };
  const checked = checkInput(method, input);
  if (!checked.ok) return { ok: false, error: { code: 'INVALID_INPUT', message: checked.message } };
  try {
    const call = service[method as ApiMethod] as (this: ForagerService, input: unknown) => Promise<unknown>;
    const value = await call.call(service, checked.value);
    return { ok: true, value: value ?? null };
  } catch (err) {
    return { ok: false, error: errorBody(err) };
  }
}
