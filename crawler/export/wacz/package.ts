/** The files of a WACZ 1.1.1 and the JSON that describes them (docs/archive-format.md). */
import { FORAGER_VERSION } from '../../protocol/settings.ts';
import type { SpooledFile } from './spool.ts';
import type { WrittenResponse } from '../warc/writer.ts';

export const WACZ_VERSION = '1.1.1';
export const WARC_NAME = 'data.warc.gz';
export const WARC_PATH = `archive/${WARC_NAME}`;
export const INDEX_PATH = 'indexes/index.cdxj';
export const PAGES_PATH = 'pages/pages.jsonl';
export const DATAPACKAGE_PATH = 'datapackage.json';
export const DIGEST_PATH = 'datapackage-digest.json';
export const PAGES_FORMAT = 'json-pages-1.0';

export function pagesHeaderLine(title: string): string {
  return `${JSON.stringify({ format: PAGES_FORMAT, id: 'pages', title })}\n`;
}

/** A page entry: the capture's URL and time (RFC 3339), as replay tools list it, plus Forager's verdicts. */
export function pageLine(written: WrittenResponse): string {
  const { page } = written;
  const line = {
    id: written.recordId.replace(/^<urn:uuid:|>$/g, ''),
    url: page.url,
    ts: new Date(written.capturedAt).toISOString(),
    title: page.title ?? '',
    text: page.text ?? '',
    relevance: page.relevance,
    hot: page.hot,
  };
  return `${JSON.stringify(line)}\n`;
}

export interface PackageResource {
  path: string;
  file: SpooledFile;
}

export interface PackageFacts {
  title: string;
  description: string;
  created: Date;
  mainPage: { url: string; capturedAt: number } | undefined;
  resources: PackageResource[];
}

export function datapackageJson(facts: PackageFacts): Buffer {
  const created = facts.created.toISOString();
  const datapackage = {
    profile: 'data-package',
    wacz_version: WACZ_VERSION,
    title: facts.title,
    description: facts.description,
    created,
    modified: created,
    software: `Forager/${FORAGER_VERSION}`,
    ...(facts.mainPage !== undefined && { mainPageUrl: facts.mainPage.url, mainPageDate: new Date(facts.mainPage.capturedAt).toISOString() }),
    resources: facts.resources.map((r) => ({
      name: r.path.slice(r.path.lastIndexOf('/') + 1),
      path: r.path,
      hash: r.file.hash,
      bytes: r.file.bytes,
    })),
  };
  return Buffer.from(`${JSON.stringify(datapackage, null, 2)}\n`);
}

export function digestJson(datapackageHash: string): Buffer {
  return Buffer.from(`${JSON.stringify({ path: DATAPACKAGE_PATH, hash: datapackageHash }, null, 2)}\n`);
}
