/*
 * The default session serves only the app and stored pages: every permission is denied
 * and no request reaches the network (the crawler fetches from its own process, outside
 * any session), so a stored page cannot beacon out even if a tag slipped through.
 */
import type { Session } from 'electron';

// file: needs no rule: Chromium never lets an app:// or forager-page:// document load it.
const NETWORK_URLS = ['http://*/*', 'https://*/*', 'ws://*/*', 'wss://*/*'];

export function guardSession(session: Session): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.webRequest.onBeforeRequest({ urls: NETWORK_URLS }, (_details, callback) => callback({ cancel: true }));
}
