import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { sessionCookieName } from '../protocol/wire.ts';

/*
 * Who may talk to `forager serve`. The server listens on 127.0.0.1 only, but any web page
 * the user visits can still make the browser send requests to loopback, and DNS rebinding
 * can give such a page a loopback address under its own name. So every request must:
 *   - name this server in Host (127.0.0.1:PORT or localhost:PORT), which a rebound name cannot;
 *   - carry no foreign Origin, and no Sec-Fetch-Site other than same-origin or none;
 *   - carry the session token, in the cookie set from the printed URL or as a Bearer header.
 * The app lives under a secret path (appRootFor), so its cookie goes to no other local port.
 */

export interface GuardConfig {
  port: number;
  token: string;
  /** The secret path the app lives under, `/s/<key>/`; the cookie is sent only there. */
  appRoot: string;
}

export type GuardVerdict = { ok: true } | { ok: false; status: number; reason: string };

function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
}

function allowedOrigins(port: number): Set<string> {
  return new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
}

/** The Host header names this server: a DNS-rebound name cannot. */
export function hostIsOurs(headers: IncomingMessage['headers'], port: number): boolean {
  const host = headers.host?.toLowerCase();
  return host !== undefined && allowedHosts(port).has(host);
}

/** Host and Origin checks, before any authentication: refuses requests made by other sites. */
export function checkRequestSource(headers: IncomingMessage['headers'], port: number): GuardVerdict {
  if (!hostIsOurs(headers, port)) return { ok: false, status: 421, reason: 'this server answers only to 127.0.0.1 and localhost on its own port' };
  const origin = headers.origin;
  if (origin !== undefined && !allowedOrigins(port).has(origin.toLowerCase())) return { ok: false, status: 403, reason: 'requests from other web sites are refused' };
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return { ok: false, status: 403, reason: 'requests from other web sites are refused' };
  return { ok: true };
}

function sameSecret(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The session cookie or an Authorization: Bearer header must carry the token. */
export function isAuthenticated(headers: IncomingMessage['headers'], config: GuardConfig): boolean {
  const auth = headers.authorization;
  if (auth !== undefined && auth.startsWith('Bearer ') && sameSecret(auth.slice(7).trim(), config.token)) return true;
  const name = sessionCookieName(config.port);
  for (const part of (headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name && sameSecret(part.slice(eq + 1).trim(), config.token)) return true;
  }
  return false;
}

export function tokenMatches(given: string | null, token: string): boolean {
  return given !== null && sameSecret(given, token);
}

/**
 * Set from the printed URL: HttpOnly so page scripts cannot read it, Strict so no other
 * site's request carries it. Cookies ignore ports, so a server on another port of 127.0.0.1
 * would receive a cookie with Path=/; scoped to the app's secret path, it reaches only
 * requests for that path, which only this server's pages know.
 */
export function sessionCookie(config: GuardConfig): string {
  return `${sessionCookieName(config.port)}=${config.token}; HttpOnly; SameSite=Strict; Path=${config.appRoot}`;
}

/** The app's secret root path, derived from the token so that it needs no storage. */
export function appRootFor(token: string): string {
  return `/s/${createHmac('sha256', token).update('app-root').digest('base64url').slice(0, 32)}/`;
}
