/**
 * Forager's canonical URLs against independent vectors: /work/shared/conformance/
 * url-canonicalization.json (see its README and `sources`: WHATWG urltestdata via
 * servo/rust-url, RFC 3986 §5.4, crawler-commons BasicURLNormalizer, Heritrix 3 and
 * webarchive-commons UsableURIFactory, Google Safe Browsing, Internet Archive SURT).
 *
 * The suites mean different things, so each is read by its own rule:
 * - Resolution suites (whatwg-urltestdata, rfc3986-*): `expected` is where the reference
 *   resolves, not a canonical form (it keeps fragments, bare '?', userinfo). A vector
 *   passes when canonicalize(input, base) === canonicalize(expected), and expected null
 *   means canonicalize must reject.
 * - Normaliser suites (crawler-commons-BasicURLNormalizer, heritrix-UsableURIFactory):
 *   `expected` is the normalised URL: canonicalize(input, base) must equal it exactly
 *   (null: must reject). Heritrix's testRFC2396Relative vectors say in their note that
 *   they compare as UURIs, so they compare as resolution vectors do.
 * - heritrix3-canonicalize-rules: each vector applies one rule in isolation (the rest of
 *   the URL is left as is, e.g. an uppercase host), so only rules Forager applies are
 *   selected (note names StripUserinfoRule, or FixupQueryString's bare-'?' case), and
 *   input and expected must have the same canonical form.
 * - safebrowsing-spec and ia-surt-canonicalizers are lossy lookup keys (repeated
 *   unescaping, www stripping, query sorting and lowercasing, SURT syntax): not selected.
 *
 * A vector whose expected URL Forager refuses by policy (a scheme other than http/https,
 * no host, a host DNS cannot resolve, port 0) must be rejected with that reason. The rest of
 * each suite is selected unless it falls in a class where the suite's semantics differ
 * from Forager's by design; every class is listed in EXCLUSIONS with its reason, decided
 * from the vector's own fields.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { canonicalize, tryCanonicalize, type CanonicalizeFailure, type CanonicalizeOptions } from '../../../../crawler/url/canonical.ts';

interface Vector {
  readonly id: string;
  readonly suite: string;
  readonly input: string;
  readonly base?: string;
  readonly expected: string | null;
  readonly note?: string;
}

interface VectorFile {
  readonly counts: Record<string, number>;
  readonly cases: readonly Vector[];
}

const data = JSON.parse(
  readFileSync(new URL('../../../../../shared/conformance/url-canonicalization.json', import.meta.url), 'utf8'),
) as VectorFile;

/** The parts of a URL as written, before any parser touches it (for the exclusion rules). */
interface WrittenParts {
  scheme: string | null;
  authority: string | null;
  path: string;
  query: string | null;
}

function written(url: string): WrittenParts {
  const m = /^[\s\u0000-\u001f]*(?:([a-zA-Z][a-zA-Z0-9+.-]*):)?(?:[\\/]{2}([^/?#\\]*))?([^?#]*)(?:\?([^#]*))?/.exec(url);
  assert.ok(m !== null);
  return { scheme: m[1]?.toLowerCase() ?? null, authority: m[2] ?? null, path: m[3] ?? '', query: m[4] ?? null };
}

function hasEscapedUnreserved(s: string): boolean {
  for (const m of s.matchAll(/%([0-9A-Fa-f]{2})/g)) {
    if (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(parseInt(m[1] as string, 16)))) return true;
  }
  return false;
}

/** crawler-commons rewrites a query that is unsorted or has empty names, values or pairs. */
function queryNeedsRewriting(query: string | null, dropSessionIds: boolean): boolean {
  if (query === null) return false;
  let pairs = query.split('&');
  if (dropSessionIds) pairs = pairs.filter((p) => !/^(?:sid|phpsessid|sessionid|jsessionid)=/i.test(p));
  if (pairs.some((p) => p === '' || p.startsWith('=') || p.endsWith('='))) return true;
  const names = pairs.map((p) => p.split('=')[0] as string);
  return names.some((n, i) => i > 0 && (names[i - 1] as string) > n);
}

const configuresSessionIdRemoval = (v: Vector): boolean => v.note?.includes('queryParamsToRemove') === true;

interface Exclusion {
  readonly suite: string;
  readonly reason: string;
  readonly applies: (v: Vector) => boolean;
}

const EXCLUSIONS: readonly Exclusion[] = [
  {
    suite: 'rfc3986-5.4.2-abnormal',
    reason: "a same-scheme reference without '//' ('http:g'): RFC strict parsing keeps it as is; WHATWG (browsers) resolve it as relative, the RFC's backward-compatible option",
    applies: (v) => v.base !== undefined && written(v.input).scheme === written(v.base).scheme && written(v.input).authority === null,
  },
  {
    suite: 'crawler-commons-BasicURLNormalizer',
    reason: 'no scheme and no base: crawler-commons guesses http://, WHATWG and Heritrix reject (Forager follows them)',
    applies: (v) => v.base === undefined && written(v.input).scheme === null,
  },
  {
    suite: 'crawler-commons-BasicURLNormalizer',
    reason: 'query rewriting (parameter sorting, dropping empty pairs, b= to b): changes meaning on some sites, Forager keeps the query as written',
    applies: (v) => queryNeedsRewriting(written(v.input).query, configuresSessionIdRemoval(v)),
  },
  {
    suite: 'crawler-commons-BasicURLNormalizer',
    reason: "a '%' not followed by two hex digits: crawler-commons escapes it as %25, browsers send it as is (so do WHATWG and Heritrix, and Forager)",
    applies: (v) => v.expected !== null && /%(?![0-9A-Fa-f]{2})/.test(v.input),
  },
  {
    suite: 'crawler-commons-BasicURLNormalizer',
    reason: "duplicate slashes in the path: crawler-commons collapses them, WHATWG and Heritrix keep them (a server may tell them apart)",
    applies: (v) => written(v.input).path.includes('//'),
  },
  {
    suite: 'crawler-commons-BasicURLNormalizer',
    reason: "characters WHATWG's percent-encode sets leave raw ([ ] ^ | in a path; [ ] ^ ` { } | in a query): crawler-commons escapes them, Forager keeps WHATWG's serialisation",
    applies: (v) => /[[\]^|]/.test(written(v.input).path) || /[[\]^`{}|]/.test(written(v.input).query ?? ''),
  },
  {
    suite: 'crawler-commons-BasicURLNormalizer',
    reason: 'an IPv6 literal with an embedded IPv4 address: WHATWG serialises IPv6 in hex only (::ffff:7f00:1)',
    applies: (v) => /\[[^\]]*\.[^\]]*\]/.test(written(v.input).authority ?? ''),
  },
  {
    suite: 'heritrix-UsableURIFactory',
    reason: 'percent-escapes of unreserved characters: UURI keeps them, Forager decodes them (RFC 3986 §6.2.2.2)',
    applies: (v) => hasEscapedUnreserved(v.input),
  },
  {
    suite: 'heritrix-UsableURIFactory',
    reason: 'an escaped space in the host: UURI trims it, WHATWG rejects the host (Forager follows WHATWG)',
    applies: (v) => /%20/.test(written(v.input).authority ?? ''),
  },
  {
    suite: 'heritrix-UsableURIFactory',
    reason: 'U+00A0: UURI treats it as a space (trims it, escapes it as %20), WHATWG as an ordinary character',
    applies: (v) => v.input.includes('\u00a0'),
  },
  {
    suite: 'heritrix-UsableURIFactory',
    reason: 'userinfo: UURI keeps it, Forager strips it (fetch refuses credentials in URLs; no secrets in the collection)',
    applies: (v) => written(v.input).authority?.includes('@') === true,
  },
  {
    suite: 'heritrix-UsableURIFactory',
    reason: 'IDNA deviation characters (ß ς ZWJ ZWNJ) in the host: UURI maps them with IDNA2003, WHATWG uses UTS #46 nontransitional processing',
    applies: (v) => /[\u00df\u03c2\u200c\u200d]/.test(written(v.input).authority ?? ''),
  },
  {
    suite: 'heritrix-UsableURIFactory',
    reason: "a final '/..' segment: UURI leaves it unresolved, WHATWG, RFC 3986 and crawler-commons resolve it",
    applies: (v) => written(v.input).path.endsWith('/..'),
  },
  {
    suite: 'heritrix-UsableURIFactory',
    reason: "characters whose escaping in a query differs between UURI and WHATWG (' \\ and the raw [ ] ^ ` { } | UURI keeps)",
    applies: (v) => /['\\[\]^`{}|]/.test(written(v.input).query ?? ''),
  },
];

const EXCLUDED_SUITES: Record<string, string> = {
  'safebrowsing-spec': 'a lookup key, not a URL to fetch: repeated unescaping, collapsed slashes, guessed schemes',
  'ia-surt-canonicalizers': 'an aggressive dedup key: strips www, sorts and lowercases the query, strips session ids, SURT syntax',
};

const RESOLUTION_SUITES = new Set(['whatwg-urltestdata', 'rfc3986-5.4.1-normal', 'rfc3986-5.4.2-abnormal']);
const NORMALISER_SUITES = new Set(['crawler-commons-BasicURLNormalizer', 'heritrix-UsableURIFactory']);

/** The reason Forager must refuse an expected URL by policy, or null. Independent of canonical.ts. */
function policyRejection(expected: string): CanonicalizeFailure | null {
  const parts = written(expected);
  if (parts.scheme !== 'http' && parts.scheme !== 'https') return 'unsupported-scheme';
  const u = URL.parse(expected);
  if (u === null) return parts.authority === null || parts.authority === '' ? 'empty-host' : null;
  const host = u.hostname.replace(/\.$/, '');
  if (host === '') return 'empty-host';
  if (!host.startsWith('[') && !/^(?:[a-z0-9_-]{1,63}\.)*[a-z0-9_-]{1,63}$/.test(host)) return 'invalid-host';
  if (u.port === '0') return 'invalid-port';
  return null;
}

type Plan =
  | { kind: 'excluded'; reason: string }
  | { kind: 'policy'; reason: CanonicalizeFailure }
  | { kind: 'exact' | 'equivalent'; options: CanonicalizeOptions };

function plan(v: Vector): Plan {
  const suiteExclusion = EXCLUDED_SUITES[v.suite];
  if (suiteExclusion !== undefined) return { kind: 'excluded', reason: suiteExclusion };
  if (v.suite === 'heritrix3-canonicalize-rules') {
    const applied = v.note?.startsWith('StripUserinfoRule') === true || v.note === "FixupQueryString: strip trailing '?'";
    if (!applied) return { kind: 'excluded', reason: `rule not part of Forager's canonical form: ${v.note?.split(' (')[0]}` };
  }
  const exclusion = EXCLUSIONS.find((e) => e.suite === v.suite && e.applies(v));
  if (exclusion !== undefined) return { kind: 'excluded', reason: exclusion.reason };
  if (v.expected !== null) {
    const refused = policyRejection(v.expected);
    if (refused !== null) return { kind: 'policy', reason: refused };
  }
  const options: CanonicalizeOptions = configuresSessionIdRemoval(v) ? { stripSessionIds: true } : {};
  if (NORMALISER_SUITES.has(v.suite) && v.note?.includes('compared as UURIs') !== true) return { kind: 'exact', options };
  if (RESOLUTION_SUITES.has(v.suite) || NORMALISER_SUITES.has(v.suite) || v.suite === 'heritrix3-canonicalize-rules') {
    return { kind: 'equivalent', options };
  }
  return { kind: 'excluded', reason: `unknown suite ${v.suite}` };
}

function canonicalOrNull(input: string, base: string | undefined, options: CanonicalizeOptions): string | null {
  const r = tryCanonicalize(input, base, options);
  return r.ok ? r.url : null;
}

/** A failure message for one vector, or null when it passes. */
function check(v: Vector, p: Plan): string | null {
  if (p.kind === 'excluded') return null;
  const result = tryCanonicalize(v.input, v.base);
  const show = `${v.id} ${JSON.stringify(v.input)}${v.base === undefined ? '' : ` base ${v.base}`}`;
  if (p.kind === 'policy') {
    if (result.ok) return `${show}: expected rejection (${p.reason}), got ${result.url}`;
    return result.reason === p.reason ? null : `${show}: rejected as ${result.reason}, expected ${p.reason}`;
  }
  const got = canonicalOrNull(v.input, v.base, p.options);
  if (v.expected === null) return got === null ? null : `${show}: expected rejection, got ${got}`;
  const want = p.kind === 'exact' ? v.expected : canonicalOrNull(v.expected, undefined, p.options);
  if (want === null) return `${show}: expected URL ${v.expected} does not canonicalise`;
  return got === want ? null : `${show}: got ${String(got)}, expected ${want}`;
}

const suites = [...new Set(data.cases.map((v) => v.suite))];

test('the vector file holds the suites its counts announce', () => {
  assert.equal(data.cases.length, data.counts.total);
  for (const suite of suites) assert.equal(data.cases.filter((v) => v.suite === suite).length, data.counts[suite], suite);
});

for (const suite of suites) {
  test(`conformance: ${suite}`, (t) => {
    const vectors = data.cases.filter((v) => v.suite === suite);
    const failures: string[] = [];
    const excluded = new Map<string, number>();
    let selected = 0;
    let passed = 0;
    let policy = 0;
    for (const v of vectors) {
      const p = plan(v);
      if (p.kind === 'excluded') {
        excluded.set(p.reason, (excluded.get(p.reason) ?? 0) + 1);
        continue;
      }
      if (p.kind === 'policy') policy++;
      selected++;
      const failure = check(v, p);
      if (failure === null) passed++;
      else failures.push(failure);
    }
    const excludedCount = [...excluded.values()].reduce((a, b) => a + b, 0);
    t.diagnostic(`${suite}: ${vectors.length} vectors, ${selected} selected (${policy} of them refused by policy), ${passed} passed, ${excludedCount} excluded`);
    for (const [reason, count] of excluded) t.diagnostic(`  excluded ${count}: ${reason}`);
    assert.equal(selected + excludedCount, vectors.length);
    assert.deepEqual(failures, []);
  });
}

test('canonicalize is idempotent and its output is a fixed point of WHATWG parsing', () => {
  let checked = 0;
  for (const v of data.cases) {
    const once = canonicalOrNull(v.input, v.base, {});
    if (once === null) continue;
    checked++;
    assert.equal(canonicalize(once), once, v.id);
    assert.equal(new URL(once).href, once, v.id);
  }
  assert.ok(checked > 400, `only ${checked} vectors canonicalised`);
});
