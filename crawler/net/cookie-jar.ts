/**
 * A collection's cookie jar: tough-cookie's RFC 6265 rules (domain and host-only matching, path
 * prefixes, Secure, expiry, public suffixes) behind the two calls a request needs, the Cookie
 * header for a URL and the Set-Cookie headers of its answer. Every change is handed to a
 * CookieJarSink as it happens, so the collection holds it before the page that set it is stored.
 */
import { Cookie, CookieJar, MemoryCookieStore, type ErrorCallback } from 'tough-cookie';
import type { ImportedCookie } from './cookies-txt.ts';

/** Where a jar's changes go (the collection's cookies table): one cookie by its domain, path and name. */
export interface CookieJarSink {
  /** `serialized` is the cookie as JSON, its value included: it never leaves the collection. */
  put(domain: string, path: string, name: string, serialized: string): void;
  remove(domain: string, path: string, name: string): void;
}

/** A cookie as listed to the user: everything but its value. */
export interface CookieFacts {
  domain: string;
  /** True when it is sent to the domain alone, not its subdomains. */
  hostOnly: boolean;
  path: string;
  name: string;
  secure: boolean;
  httpOnly: boolean;
  /** Epoch ms; null for a session cookie (kept until the jar is cleared). */
  expiresAt: number | null;
}

/** How a collection's session is summed up: how many cookies, for which domains. */
export interface SessionSummary {
  cookies: number;
  domains: string[];
}

const SET_COOKIE = 'set-cookie';

/** tough-cookie's in-memory store, telling a sink about every cookie put or removed. */
class RecordingStore extends MemoryCookieStore {
  /** Unset while the stored cookies are loaded: they are not written back. */
  sink: CookieJarSink | undefined;
  /** Cookies held: with none, a request costs no lookup. */
  count = 0;

  override putCookie(cookie: Cookie): Promise<void>;
  override putCookie(cookie: Cookie, callback: ErrorCallback): void;
  override putCookie(cookie: Cookie, callback?: ErrorCallback): Promise<void> | void {
    const { domain, path, key } = cookie;
    if (domain !== null && path !== null && this.idx[domain]?.[path]?.[key] === undefined) this.count++;
    if (domain !== null && path !== null) this.sink?.put(domain, path, key, JSON.stringify(cookie.toJSON()));
    return callback === undefined ? super.putCookie(cookie) : super.putCookie(cookie, callback);
  }

  override removeCookie(domain: string, path: string, key: string): Promise<void>;
  override removeCookie(domain: string, path: string, key: string, callback: ErrorCallback): void;
  override removeCookie(domain: string, path: string, key: string, callback?: ErrorCallback): Promise<void> | void {
    if (this.idx[domain]?.[path]?.[key] !== undefined) this.count--;
    this.sink?.remove(domain, path, key);
    return callback === undefined ? super.removeCookie(domain, path, key) : super.removeCookie(domain, path, key, callback);
  }
}

/** The jar of one crawl: loaded from the collection, written back through its sink. */
export class SessionJar {
  readonly #store: RecordingStore;
  readonly #jar: CookieJar;

  /** `stored` are cookies as the sink was given them (loaded back without being written again). */
  constructor(stored: readonly string[] = [], sink?: CookieJarSink) {
    this.#store = new RecordingStore();
    for (const serialized of stored) {
      const cookie = Cookie.fromJSON(serialized);
      if (cookie !== undefined) this.#store.putCookie(cookie, noError);
    }
    this.#store.sink = sink;
    this.#jar = new CookieJar(this.#store, { looseMode: true });
  }

  /** The Cookie header's value for a request to `url`, or undefined when no cookie matches. */
  cookieHeader(url: string): string | undefined {
    if (this.#store.count === 0) return undefined;
    const header = this.#jar.getCookieStringSync(url);
    return header === '' ? undefined : header;
  }

  /** Keeps the cookies an answer from `url` sets (its raw header pairs); those the rules refuse are ignored, as a browser does. */
  storeSetCookies(url: string, rawHeaders: readonly (readonly [string, string])[]): void {
    for (const [name, value] of rawHeaders) {
      if (name.length === SET_COOKIE.length && name.toLowerCase() === SET_COOKIE) this.#jar.setCookieSync(value, url, { ignoreError: true });
    }
  }

  /** Adds a cookies.txt's cookies (a cookie already in the jar under the same domain, path and name is replaced). */
  addImported(cookies: readonly ImportedCookie[]): void {
    for (const imported of cookies) this.#store.putCookie(toCookie(imported), noError);
  }

  /** Every live cookie but its value, by domain, path and name. */
  list(now: number = Date.now()): CookieFacts[] {
    const facts: CookieFacts[] = [];
    this.#store.getAllCookies((_error, cookies) => {
      for (const cookie of cookies ?? []) {
        // A session cookie's expiry time is Infinity (or none).
        const expiry = cookie.expiryTime();
        if (expiry !== undefined && expiry <= now) continue;
        facts.push({
          domain: cookie.domain ?? '',
          hostOnly: cookie.hostOnly === true,
          path: cookie.path ?? '/',
          name: cookie.key,
          secure: cookie.secure,
          httpOnly: cookie.httpOnly,
          expiresAt: expiry === undefined || expiry === Number.POSITIVE_INFINITY ? null : expiry,
        });
      }
    });
    return facts.sort((a, b) => a.domain.localeCompare(b.domain) || a.path.localeCompare(b.path) || a.name.localeCompare(b.name));
  }

  /** How many live cookies, for which domains. */
  summary(now: number = Date.now()): SessionSummary {
    const cookies = this.list(now);
    return { cookies: cookies.length, domains: [...new Set(cookies.map((c) => c.domain))] };
  }
}

function noError(): void {}

function toCookie(imported: ImportedCookie): Cookie {
  return new Cookie({
    key: imported.name,
    value: imported.value,
    domain: imported.domain,
    hostOnly: !imported.includeSubdomains,
    path: imported.path,
    secure: imported.secure,
    httpOnly: imported.httpOnly,
    expires: imported.expiresAt === undefined ? 'Infinity' : new Date(imported.expiresAt),
    creation: new Date(),
  });
}
