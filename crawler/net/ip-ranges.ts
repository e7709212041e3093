/**
 * Classifies IP addresses for the SSRF guard. Only 'public' addresses may be fetched by
 * default; every other kind can reach the user's own machine or network, or is not
 * routable on the Internet at all (IANA special-purpose registries, "globally reachable:
 * false"). IPv6 is an allowlist: only global unicast (2000::/3) minus its special blocks
 * is public, so unknown reserved space is refused. Addresses that embed an IPv4 address
 * (IPv4-mapped, NAT64, 6to4) take the kind of the embedded address.
 */

export type AddressKind =
  | 'public'
  | 'unspecified'
  | 'this-network'
  | 'loopback'
  | 'private'
  | 'cgnat'
  | 'link-local'
  | 'ietf-protocol'
  | 'documentation'
  | 'benchmark'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'unique-local'
  | 'site-local'
  | 'discard'
  | 'nat64-local';

interface V4Block {
  readonly base: number;
  readonly mask: number;
  readonly kind: AddressKind;
}

function v4Block(cidr: string, kind: AddressKind): V4Block {
  const [address = '', bits = ''] = cidr.split('/');
  const base = parseIPv4(address);
  const prefix = Number(bits);
  if (base === undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > 32) {
    throw new Error(`bad IPv4 block ${cidr}`);
  }
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return { base: (base & mask) >>> 0, mask, kind };
}

// Most specific first: the first match wins.
const V4_BLOCKS: readonly V4Block[] = [
  v4Block('0.0.0.0/32', 'unspecified'),
  v4Block('255.255.255.255/32', 'broadcast'),
  v4Block('0.0.0.0/8', 'this-network'),
  v4Block('10.0.0.0/8', 'private'),
  v4Block('100.64.0.0/10', 'cgnat'),
  v4Block('127.0.0.0/8', 'loopback'),
  v4Block('169.254.0.0/16', 'link-local'),
  v4Block('172.16.0.0/12', 'private'),
  v4Block('192.0.0.0/24', 'ietf-protocol'),
  v4Block('192.0.2.0/24', 'documentation'),
  v4Block('192.88.99.0/24', 'reserved'),
  v4Block('192.168.0.0/16', 'private'),
  v4Block('198.18.0.0/15', 'benchmark'),
  v4Block('198.51.100.0/24', 'documentation'),
  v4Block('203.0.113.0/24', 'documentation'),
  v4Block('224.0.0.0/4', 'multicast'),
  v4Block('240.0.0.0/4', 'reserved'),
];

/** Strict dotted-quad parse (no leading zeros, no shorthand) to an unsigned 32-bit number. */
export function parseIPv4(text: string): number | undefined {
  let value = 0;
  let part = 0;
  let digits = 0;
  let parts = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 46; // a virtual '.' closes the last part
    if (c === 46) {
      if (digits === 0 || parts === 4) return undefined;
      value = value * 256 + part;
      parts++;
      part = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (digits > 0 && part === 0) return undefined; // leading zero
      part = part * 10 + (c - 48);
      digits++;
      if (part > 255) return undefined;
    } else {
      return undefined;
    }
  }
  return parts === 4 ? value : undefined;
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/** Parses an IPv6 address (optionally with a %zone and an embedded IPv4 tail) to 8 groups. */
export function parseIPv6(text: string): Uint16Array | undefined {
  const zone = text.indexOf('%');
  const body = zone === -1 ? text : text.slice(0, zone);
  const gap = body.indexOf('::');
  if (gap !== -1 && body.indexOf('::', gap + 1) !== -1) return undefined;
  const head = gap === -1 ? body : body.slice(0, gap);
  const tail = gap === -1 ? '' : body.slice(gap + 2);
  const headGroups = parseGroups(head, gap === -1);
  const tailGroups = gap === -1 ? [] : parseGroups(tail, true);
  if (headGroups === undefined || tailGroups === undefined) return undefined;
  const total = headGroups.length + tailGroups.length;
  if (gap === -1 ? total !== 8 : total > 7) return undefined;
  const groups = new Uint16Array(8);
  groups.set(headGroups, 0);
  groups.set(tailGroups, 8 - tailGroups.length);
  return groups;
}

/** Groups of one side of '::'; an IPv4 tail is allowed only at the very end of the address. */
function parseGroups(text: string, mayEndInIPv4: boolean): number[] | undefined {
  if (text === '') return [];
  const pieces = text.split(':');
  const groups: number[] = [];
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i] ?? '';
    if (mayEndInIPv4 && i === pieces.length - 1 && piece.includes('.')) {
      const v4 = parseIPv4(piece);
      if (v4 === undefined) return undefined;
      groups.push(v4 >>> 16, v4 & 0xffff);
      continue;
    }
    if (piece.length === 0 || piece.length > 4) return undefined;
    let value = 0;
    for (let j = 0; j < piece.length; j++) {
      const h = hexValue(piece.charCodeAt(j));
      if (h < 0) return undefined;
      value = value * 16 + h;
    }
    groups.push(value);
  }
  return groups;
}

export function classifyIPv4(address: number): AddressKind {
  for (const block of V4_BLOCKS) {
    if (((address & block.mask) >>> 0) === block.base) return block.kind;
  }
  return 'public';
}

function embeddedIPv4(high: number, low: number): AddressKind {
  return classifyIPv4(((high << 16) | low) >>> 0);
}

export function classifyIPv6(g: Uint16Array): AddressKind {
  const g0 = g[0] ?? 0;
  const g1 = g[1] ?? 0;
  const g2 = g[2] ?? 0;
  const g6 = g[6] ?? 0;
  const g7 = g[7] ?? 0;
  const middleZero = g2 === 0 && g[3] === 0 && g[4] === 0;
  if (g0 === 0 && g1 === 0 && middleZero) {
    const g5 = g[5] ?? 0;
    if (g5 === 0xffff) return embeddedIPv4(g6, g7); // ::ffff:a.b.c.d, IPv4-mapped
    if (g5 === 0 && g6 === 0) {
      if (g7 === 0) return 'unspecified';
      if (g7 === 1) return 'loopback';
    }
    return 'reserved'; // includes deprecated IPv4-compatible ::a.b.c.d
  }
  if (g0 === 0x64 && g1 === 0xff9b) {
    if (middleZero && g[5] === 0) return embeddedIPv4(g6, g7); // 64:ff9b::/96, NAT64
    if (g2 === 1) return 'nat64-local'; // 64:ff9b:1::/48
    return 'reserved';
  }
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g[3] === 0) return 'discard';
  if (g0 === 0x2001) {
    if (g1 === 0x0db8) return 'documentation';
    if (g1 < 0x200) return 'ietf-protocol'; // 2001::/23, includes Teredo and benchmarking
  }
  if (g0 === 0x2002) return embeddedIPv4(g1, g2); // 6to4
  if (g0 === 0x3fff && g1 < 0x1000) return 'documentation'; // 3fff::/20
  if ((g0 & 0xfe00) === 0xfc00) return 'unique-local';
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  if ((g0 & 0xffc0) === 0xfec0) return 'site-local';
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  if ((g0 & 0xe000) === 0x2000) return 'public';
  return 'reserved';
}

/** The kind of an IP address literal (IPv6 without brackets), or undefined if it is not one. */
export function classifyAddress(text: string): AddressKind | undefined {
  if (text.includes(':')) {
    const groups = parseIPv6(text);
    return groups === undefined ? undefined : classifyIPv6(groups);
  }
  const v4 = parseIPv4(text);
  return v4 === undefined ? undefined : classifyIPv4(v4);
}
