import { checkCall } from './schema.ts';
import { errorBody } from './service.ts';
import type { ForagerApi } from '../protocol/api.ts';
import type { ApiReply } from '../protocol/wire.ts';

/**
 * One API call from any transport: the method name and input are checked against the
 * schema, the service is called, and whatever happens becomes an ApiReply.
 */
export async function dispatchCall(service: ForagerApi, method: unknown, input: unknown): Promise<ApiReply> {
  const checked = checkCall(method, input);
  if (!checked.ok) return checked;
  try {
    const call = service[checked.method] as (this: ForagerApi, input: unknown) => Promise<unknown>;
    const value = await call.call(service, checked.input);
    return { ok: true, value: value ?? null };
  } catch (err) {
    return { ok: false, error: errorBody(err) };
  }
}
