import type { ForagerApi } from '../../../crawler/protocol/api.ts';
import { unwrapReply } from './reply.ts';
import type { Transport } from './transport.ts';

/**
 * The API as a proxy over the transport (the shape of VS Code's ProxyChannel.toService):
 * every method of ForagerApi is a call of the same name, so a new method is written in the
 * contract and in the service, never here. The service validates inputs and shapes outputs;
 * the types trust it for the output.
 */
export function apiOver(transport: Pick<Transport, 'call'>): ForagerApi {
  const methods = new Map<string, (input?: unknown) => Promise<unknown>>();
  return new Proxy({} as ForagerApi, {
    get(_target, name) {
      // 'then' stays undefined so that the API object is never mistaken for a promise.
      if (typeof name !== 'string' || name === 'then') return undefined;
      let method = methods.get(name);
      if (method === undefined) {
        method = (input?: unknown) => transport.call(name, input ?? {}).then((reply) => unwrapReply(name, reply));
        methods.set(name, method);
      }
      return method;
    },
  });
}
