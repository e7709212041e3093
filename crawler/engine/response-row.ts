import type { FetchResult } from '../net/fetch-page.ts';
import type { NewRevisit } from '../store/version-store.ts';

/** What a pages row and a revisits row both keep of a response: its head, its timing and where it came from. */
export type ResponseRow = Pick<
  NewRevisit,
  'status' | 'httpVersion' | 'statusText' | 'headers' | 'requestHead' | 'startedAt' | 'fetchedAt' | 'responseMs' | 'wireBytes' | 'remoteAddress'
>;

/** A fetch result as a response row, the same for a page, a new version and a revisit. */
export function responseRow(result: FetchResult): ResponseRow {
  return {
    status: result.status,
    httpVersion: result.httpVersion ?? null,
    statusText: result.statusText ?? null,
    headers: result.rawHeaders,
    requestHead: result.requestHeaders ?? null,
    startedAt: result.timings.startedAt,
    fetchedAt: result.timings.startedAt + result.timings.totalMs,
    responseMs: result.timings.totalMs,
    wireBytes: result.bytesReceived,
    remoteAddress: result.remoteAddress ?? null,
  };
}
