import type { ServiceEvent } from '../../../crawler/protocol/api.ts';
import { API_PREFIX, EVENTS_PATH, EXPORTS_PREFIX, STORED_PREFIX } from '../../../crawler/protocol/wire.ts';
import { ApiError } from './errors.ts';
import { isApiReply } from './reply.ts';
import type { Transport } from './transport.ts';

/** The app's routes are relative to the page's own secret root (see wire.ts). */
const relative = (path: string): string => `.${path}`;

const UNREACHABLE = 'Cannot reach the Forager service. Is `forager serve` still running?';
const SESSION = 'This browser tab is no longer signed in to Forager. Open the address that `forager serve` printed again.';

async function post(method: string, input: unknown): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${relative(API_PREFIX)}${encodeURIComponent(method)}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(input ?? {}),
    });
  } catch {
    throw new ApiError('UNREACHABLE', UNREACHABLE);
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  // A reply in the API's own shape carries its own words, whatever the HTTP status.
  if (isApiReply(body)) return body;
  if (response.status === 401 || response.status === 403) throw new ApiError('SESSION', SESSION);
  throw new ApiError('BAD_REPLY', `The Forager service answered ${method} with HTTP ${response.status} and no usable reply.`);
}

/** One EventSource shared by every listener, open while anyone listens. */
function eventHub(): Transport['onEvent'] {
  const listeners = new Set<(event: ServiceEvent) => void>();
  let source: EventSource | null = null;

  const dispatch = (message: MessageEvent<string>): void => {
    let event: ServiceEvent;
    try {
      event = JSON.parse(message.data) as ServiceEvent;
    } catch {
      return;
    }
    for (const listener of listeners) listener(event);
  };

  return (listener) => {
    listeners.add(listener);
    if (source === null) {
      source = new EventSource(relative(EVENTS_PATH));
      source.onmessage = dispatch;
    }
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && source !== null) {
        source.close();
        source = null;
      }
    };
  };
}

export function httpTransport(): Transport {
  return {
    kind: 'http',
    call: post,
    onEvent: eventHub(),
    async saveExport(result) {
      const link = document.createElement('a');
      link.href = `${relative(EXPORTS_PREFIX)}${encodeURIComponent(result.exportId)}`;
      link.download = result.fileName;
      link.rel = 'noopener';
      document.body.append(link);
      link.click();
      link.remove();
      return true;
    },
    pageSrc: (viewPath) => `${relative(STORED_PREFIX)}${viewPath}`,
  };
}
