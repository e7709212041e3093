import { STORED_PAGE_SCHEME, type ForagerBridge } from '../../../crawler/protocol/wire.ts';
import { ApiError } from './errors.ts';
import type { Transport } from './transport.ts';

export function bridgeTransport(bridge: ForagerBridge): Transport {
  return {
    kind: 'electron',
    async call(method, input) {
      try {
        return await bridge.call(method, input);
      } catch {
        throw new ApiError('UNREACHABLE', 'Forager’s crawler process is not answering. Restart Forager if this goes on.');
      }
    },
    onEvent: (listener) => bridge.onEvent(listener),
    saveExport: (result) => bridge.saveExport(result.exportId),
    pageSrc: (viewPath) => `${STORED_PAGE_SCHEME}://${viewPath}`,
  };
}
