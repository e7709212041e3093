/*
 * Where a frame of the app window may navigate. The window itself only ever shows the
 * app; frames inside it only stored pages (or a blank document). Links to the web go
 * through window.open and the confirmation dialog instead. No Electron import.
 */
import { STORED_PAGE_SCHEME } from '../../crawler/protocol/wire.ts';
import { isAppUrl } from './app-files.ts';

const BLANK_DOCUMENTS = new Set(['about:blank', 'about:srcdoc']);

export function mayNavigate(url: string, isMainFrame: boolean): boolean {
  if (isMainFrame) return isAppUrl(url);
  return URL.parse(url)?.protocol === `${STORED_PAGE_SCHEME}:` || BLANK_DOCUMENTS.has(url);
}
