/*
 * The app's own origin, app://forager: main serves the renderer's files there and checks
 * IPC senders against it; the crawler process builds the viewer's links on the same scheme.
 */
export const APP_SCHEME = 'app';
export const APP_HOST = 'forager';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;
