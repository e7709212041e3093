/**
 * Site resources as the crawler reads them: a sitemap or a documentation site's search
 * index becomes a list of URLs to admit, each with what the resource says about it. Pure
 * CPU work on a body already downloaded: it runs in a parse worker during a crawl, and
 * again when a replay (resume, explain, the lab) re-reads a stored resource, so both see
 * the same entries.
 */
import { constants, gunzipSync } from 'node:zlib';
import type { ResourceContents, ResourceKind } from './resource-entries.ts';
import { readSearchIndex } from './search-index.ts';
import { readSitemap } from './sitemap.ts';

export interface ResourceAnalysis extends ResourceContents {
  kind: ResourceKind;
}

export interface ResourceLimits {
  /** Most bytes a gzipped body may inflate to, and the largest body read as JSON. */
  maxDecodedBytes: number;
}

const GZIP_MAGIC_0 = 0x1f;
const GZIP_MAGIC_1 = 0x8b;

/** Reads a resource's body (as received, content coding already undone). Never throws. */
export function analyseSiteResource(kind: ResourceKind, body: Uint8Array, url: string, limits: ResourceLimits): ResourceAnalysis {
  const decoded = gunzipIfGzipped(body, limits.maxDecodedBytes);
  if ('note' in decoded) return { kind, note: decoded.note, entries: [] };
  // A search index is parsed whole (JSON): its size is bounded before it is decoded.
  if (kind === 'search-index' && decoded.bytes.length > limits.maxDecodedBytes) return { kind, note: 'search-index:too-large', entries: [] };
  const text = new TextDecoder('utf-8').decode(decoded.bytes);
  const contents = kind === 'sitemap' ? readSitemap(text) : readSearchIndex(text, url);
  return { kind, ...contents };
}

/** A body that starts with the gzip magic (a sitemap.xml.gz served without a Content-Encoding) is inflated, up to the limit. */
function gunzipIfGzipped(body: Uint8Array, maxDecodedBytes: number): { bytes: Uint8Array } | { note: string } {
  if (body.length < 2 || body[0] !== GZIP_MAGIC_0 || body[1] !== GZIP_MAGIC_1) return { bytes: body };
  try {
    // A sync flush at the end reads what a cut-off stream holds instead of failing on it.
    return { bytes: gunzipSync(body, { maxOutputLength: maxDecodedBytes, finishFlush: constants.Z_SYNC_FLUSH }) };
  } catch (err) {
    return { note: err instanceof RangeError ? 'gzip:too-large' : 'gzip:corrupt' };
  }
}
