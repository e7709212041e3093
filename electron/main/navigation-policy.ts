/*
 * Where a frame of the app window may navigate. The window itself only ever shows the
 * app, but may follow the Save link of a stored document: its file is always an attachment
 * (crawler/viewer), so Chromium saves it and the window stays on the app. Frames inside it
 * show only stored pages (or a blank document). Links to the web go through window.open and
 * the confirmation dialog instead. No Electron import.
 */
import { STORED_PAGE_SCHEME } from '../../crawler/protocol/wire.ts';
import { parseViewerUrl } from '../../crawler/viewer/viewer-url.ts';
import { isAppUrl } from './app-files.ts';

const BLANK_DOCUMENTS = new Set(['about:blank', 'about:srcdoc']);

/** A stored document's file under forager-page://, which the viewer sends as a download. */
function isDocumentFile(url: string): boolean {
  const parsed = URL.parse(url);
  return parsed !== null && parseViewerUrl(parsed, 'protocol')?.kind === 'file';
}

export function mayNavigate(url: string, isMainFrame: boolean): boolean {
  if (isMainFrame) return isAppUrl(url) || isDocumentFile(url);
  return URL.parse(url)?.protocol === `${STORED_PAGE_SCHEME}:` || BLANK_DOCUMENTS.has(url);
}
