import type { SessionInfo } from '../../../crawler/protocol/api.ts';

/** Domains named before the rest are counted: a session of many sites stays one line. */
const DOMAINS_SHOWN = 5;

/** "Logged-in session: 3 cookies for a.org, b.org": what the collection's jar holds, never a value. */
export function describeSession(session: SessionInfo): string {
  const shown = session.domains.slice(0, DOMAINS_SHOWN).join(', ');
  const more = session.domains.length - DOMAINS_SHOWN;
  const cookies = `${session.cookies} cookie${session.cookies === 1 ? '' : 's'}`;
  return `Logged-in session: ${cookies} for ${shown}${more > 0 ? ` and ${more} more site${more === 1 ? '' : 's'}` : ''}`;
}
