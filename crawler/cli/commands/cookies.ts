import type { CookieFacts } from '../../net/cookie-jar.ts';
import { openCollection } from '../../store/database.ts';
import { clearCookies, storedSession } from '../../store/cookie-store.ts';
import { withWriterLockSync } from '../../store/writer-lock.ts';
import { parseCommandArgs, requireOption } from '../args.ts';
import { writeOut } from '../terminal-text.ts';

export const COOKIES_USAGE = 'cookies --db FILE [--clear] [--json]   the collection\'s logged-in session (never the values), or --clear to forget it';

/** `forager cookies`: lists the collection's session cookies without their values, or forgets them all. */
export function cookiesCommand(argv: string[]): number {
  const { values } = parseCommandArgs('cookies', argv, { db: { type: 'string' }, clear: { type: 'boolean' }, json: { type: 'boolean' } });
  const dbPath = requireOption('cookies', 'db', values.db);
  const json = values.json === true;
  if (values.clear === true) {
    const cleared = withWriterLockSync(dbPath, 'forager cookies --clear (command line)', () => {
      const db = openCollection(dbPath, { create: false });
      try {
        return clearCookies(db);
      } finally {
        db.close();
      }
    });
    writeOut(json ? `${JSON.stringify({ cleared })}\n` : `session forgotten: ${cleared} cookie${cleared === 1 ? '' : 's'} removed\n`);
    return 0;
  }
  const db = openCollection(dbPath, { create: false, readonly: true });
  let cookies: CookieFacts[];
  try {
    cookies = storedSession(db).list();
  } finally {
    db.close();
  }
  if (json) writeOut(`${JSON.stringify({ cookies: cookies.length, domains: [...new Set(cookies.map((c) => c.domain))], list: cookies })}\n`);
  else writeOut(describe(cookies));
  return 0;
}

function describe(cookies: readonly CookieFacts[]): string {
  if (cookies.length === 0) return 'no session: the collection holds no cookies\n';
  const domains = new Set(cookies.map((c) => c.domain));
  const lines = [`${cookies.length} cookie${cookies.length === 1 ? '' : 's'} for ${[...domains].join(', ')}`];
  for (const c of cookies) {
    const scope = `${c.hostOnly ? '' : '.'}${c.domain}${c.path}`;
    const flags = [c.secure ? 'secure' : '', c.httpOnly ? 'httponly' : ''].filter((f) => f !== '').join(' ');
    const expiry = c.expiresAt === null ? 'session' : `expires ${new Date(c.expiresAt).toISOString()}`;
    lines.push(`  ${scope}  ${c.name}  ${expiry}${flags === '' ? '' : `  ${flags}`}`);
  }
  return `${lines.join('\n')}\n`;
}
