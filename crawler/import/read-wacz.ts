import { statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { WARCParser } from 'warcio';
import yauzl from 'yauzl';
import { WARC_PATH } from '../export/wacz/package.ts';
import { verifyWacz } from '../export/wacz/verify.ts';
import { ImportError } from './import-error.ts';

/** One record is held in memory at a time; a page's payload is bounded by the crawl's body limit (10 MiB by default). */
const MAX_RECORD_BYTES = 256 * 1024 * 1024;
/** The record types import reads (a revisit only to be counted: its block is a head); the others are skipped without reading their blocks. */
const WANTED_TYPES: ReadonlySet<string> = new Set(['warcinfo', 'request', 'response', 'metadata', 'revisit']);

/** One WARC record: the headers import uses and the content block. */
export interface WarcRecordData {
  type: string;
  id: string;
  targetUri: string | null;
  date: string | null;
  concurrentTo: string[];
  refersTo: string | null;
  ipAddress: string | null;
  truncated: string | null;
  block: Buffer;
}

/** An opened, verified WACZ. */
export interface WaczArchive {
  /** The WARC's records of the types import uses, in file order, streamed one at a time. */
  records(): AsyncGenerator<WarcRecordData>;
  close(): void;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The file is there and is a file: said plainly, before the zip reader's own words. */
function checkFile(path: string): void {
  let stats;
  try {
    stats = statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new ImportError(`no file at ${path}`, { path }, { cause: err });
    throw new ImportError(`cannot read ${path}: ${describe(err)}`, { path }, { cause: err });
  }
  if (stats.isDirectory()) throw new ImportError(`${path} is a folder, not a WACZ file`, { path });
}

/** One line: the verifier's first finding, and how many more there are. */
function refusal(path: string, errors: readonly string[]): ImportError {
  const first = errors[0] ?? 'it could not be verified';
  const what = first.startsWith(path) ? first : `${path} is not a valid WACZ: ${first}`;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more ${errors.length === 2 ? 'problem' : 'problems'})` : '';
  return new ImportError(`${what}${more}`, { path, errors });
}

/**
 * Opens a WACZ after the exporter's own verifier has read all of it back (zip CRCs, the
 * data package's digest, every resource's size and sha256, every WARC record's digests, the
 * index and the page list): a file that fails any of it is refused before anything is
 * imported, with the verifier's finding as a one-line ImportError.
 */
export async function openWacz(path: string): Promise<WaczArchive> {
  checkFile(path);
  const check = await verifyWacz(path);
  if (!check.ok) throw refusal(path, check.errors);
  if (!check.entries.includes(WARC_PATH)) throw new ImportError(`${path} is a WACZ but not Forager's: it has no ${WARC_PATH}`, { path });
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false });
  } catch (err) {
    throw new ImportError(`cannot read ${path}: ${describe(err)}`, { path }, { cause: err });
  }
  try {
    const warc = await findEntry(zip, WARC_PATH);
    if (warc === undefined) throw new ImportError(`${path} changed while it was read: it no longer has ${WARC_PATH}`, { path });
    return {
      records: async function* () {
        let stream: Readable;
        try {
          stream = await zip.openReadStreamPromise(warc);
        } catch (err) {
          throw new ImportError(`cannot read ${WARC_PATH} in ${path}: ${describe(err)}`, { path }, { cause: err });
        }
        yield* readRecords(stream, path);
      },
      close: () => zip.close(),
    };
  } catch (err) {
    zip.close();
    throw err;
  }
}

async function findEntry(zip: yauzl.ZipFile, name: string): Promise<yauzl.Entry | undefined> {
  for await (const entry of zip.eachEntry()) if (entry.fileName === name) return entry;
  return undefined;
}

/**
 * Streams the WARC's records. Node's gunzip reads the member-per-record file as one stream
 * and fails on a cut-off member, which warcio's own inflater would pass over in silence;
 * a record whose block is shorter than its Content-Length is refused for the same reason.
 */
async function* readRecords(compressed: Readable, path: string): AsyncGenerator<WarcRecordData> {
  const plain = compressed.pipe(createGunzip());
  compressed.once('error', (err) => plain.destroy(err));
  const truncated = (detail: string, cause?: unknown): ImportError =>
    new ImportError(`the WARC in ${path} is truncated or damaged: ${detail}`, { path, entry: WARC_PATH }, { cause });
  try {
    for await (const record of new WARCParser(plain, { parseHttp: false })) {
      const type = record.warcType;
      if (!WANTED_TYPES.has(type)) continue;
      const length = record.warcContentLength;
      if (!Number.isSafeInteger(length) || length < 0) throw truncated(`a ${type} record has no valid Content-Length`);
      if (length > MAX_RECORD_BYTES) throw new ImportError(`the WARC in ${path} has a ${type} record of ${length} bytes, more than import reads`, { path, length });
      const block = Buffer.from(await record.readFully(false));
      if (block.length !== length) throw truncated(`a ${type} record ends after ${block.length} of its ${length} bytes`);
      yield {
        type,
        id: record.warcHeader('WARC-Record-ID') ?? '',
        targetUri: record.warcTargetURI ?? null,
        date: record.warcDate ?? null,
        concurrentTo: record.warcConcurrentTo ?? [],
        refersTo: record.warcHeader('WARC-Refers-To') ?? null,
        ipAddress: record.warcHeader('WARC-IP-Address') ?? null,
        truncated: record.warcHeader('WARC-Truncated') ?? null,
        block,
      };
    }
  } catch (err) {
    if (err instanceof ImportError) throw err;
    throw truncated(describe(err), err);
  } finally {
    plain.destroy();
    compressed.destroy();
  }
}
