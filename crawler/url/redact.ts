/*
 * Secrets never reach output. A URL's credentials (a Redis password, and a proxy's user and
 * password) are masked wherever a URL is shown: logs, errors, status and the app.
 */

const MASK = '***';

/**
 * The URL with any password in it masked (`redis://:***@host:6379`), and with the user name
 * kept. Text that is not a URL has whatever sits between `//` and the last `@` of its authority
 * masked, so a mistyped URL's password is not shown either.
 */
export function redactUrl(url: string): string {
  const parsed = URL.parse(url);
  if (parsed !== null && (parsed.username !== '' || parsed.password !== '')) {
    if (parsed.password !== '') parsed.password = MASK;
    return parsed.href;
  }
  if (parsed !== null) return url;
  return url.replace(/\/\/[^/?#\s]*@/, `//${MASK}@`);
}

/** `text` with each of `secrets` (passwords, cookie values) replaced by a mask: for messages built from a library's own words. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join(MASK);
  return out;
}

/** The password (decoded) of a URL, when it has one: what redactSecrets must remove from other messages. */
export function urlPassword(url: string): string | undefined {
  const password = URL.parse(url)?.password;
  if (password === undefined || password === '') return undefined;
  try {
    return decodeURIComponent(password);
  } catch {
    return password;
  }
}
