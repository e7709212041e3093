/*
 * "Open in the system's viewer" for a stored document: main asks the crawler process for
 * the document's file (the viewer's download, as forager-page:// serves it), writes it to a
 * temporary folder of its own and hands it to the operating system. The file's name, and so
 * the program the system picks, comes from the document's type only (crawler/viewer's
 * document-file.ts): it is checked again here before anything is opened.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { app, shell } from 'electron';
import type { PageRef } from '../../crawler/protocol/api.ts';
import { STORED_PAGE_SCHEME, type ApiReply } from '../../crawler/protocol/wire.ts';
import { documentFilePath } from '../../crawler/viewer/viewer-url.ts';
import type { CrawlerClient } from './crawler-client.ts';

/** A name the system may open: letters, digits, spaces, '_' and '-', then the extension of a type Forager reads. */
const OPENABLE_NAME = /^[\p{L}\p{N}_ -]{1,100}\.(pdf|txt)$/u;

/** The temporary folders of this run, removed when the app quits. */
const copies = new Set<string>();

/** The file name a Content-Disposition gives, when it is one the system may open. */
export function openableName(disposition: string | null): string | undefined {
  const encoded = /filename\*=UTF-8''([^;\s]+)/i.exec(disposition ?? '')?.[1];
  if (encoded === undefined) return undefined;
  let name: string;
  try {
    name = decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
  return OPENABLE_NAME.test(name) ? name : undefined;
}

function failure(code: 'NOT_FOUND' | 'INTERNAL', message: string): ApiReply {
  return { ok: false, error: { code, message } };
}

export async function openDocument(client: CrawlerClient, ref: PageRef): Promise<ApiReply> {
  const url = `${STORED_PAGE_SCHEME}://${documentFilePath(ref.collection, ref.seq)}`;
  const response = await client.view({ url, method: 'GET', headers: [] });
  const disposition = new Headers(response.headers).get('content-disposition');
  const name = openableName(disposition);
  if (response.status !== 200 || response.body === null || name === undefined) {
    return failure('NOT_FOUND', `page ${ref.seq} of "${ref.collection}" is no stored document that can be opened`);
  }
  const folder = await mkdtemp(path.join(app.getPath('temp'), 'forager-document-'));
  copies.add(folder);
  const file = path.join(folder, name);
  await writeFile(file, response.body, { mode: 0o600 });
  const problem = await shell.openPath(file);
  return problem === '' ? { ok: true, value: null } : failure('INTERNAL', `the system could not open ${name}: ${problem}`);
}

/** Removes this run's copies; a viewer that still holds one open keeps it where the system allows. */
export async function removeDocumentCopies(): Promise<void> {
  await Promise.all([...copies].map((folder) => rm(folder, { recursive: true, force: true }).catch(() => undefined)));
  copies.clear();
}
