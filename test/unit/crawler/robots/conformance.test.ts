/**
 * Forager's robots.txt matcher against independent vectors (see ../shared/conformance/README.md):
 * - robotstxt-google.json: every IsUserAgentAllowed assertion of google/robotstxt
 *   robots_test.cc (Apache-2.0), commit 22b355ff8554;
 * - robotstxt-spec-test.json: Google's robotstxt-spec-test suite (Apache-2.0), commit 552ade54b9ce.
 * Cases marked Google-specific test leniencies beyond RFC 9309; all others must pass.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { explainMatch, isAllowed, parseRobots } from '../../../../crawler/robots/index.ts';

const repoRoot = path.resolve(import.meta.dirname, '../../../..');
const conformanceDir = path.resolve(repoRoot, '../shared/conformance');

interface Vector {
  readonly name: string;
  readonly robotstxt: string | null;
  readonly robotstxt_base64?: string;
  readonly useragent: string;
  readonly url: string;
  readonly allowed: boolean;
  readonly google_specific?: boolean;
  readonly test_type?: string;
}

interface Outcome {
  readonly vector: Vector;
  readonly googleSpecific: boolean;
  readonly pass: boolean;
  readonly allowed: boolean;
  readonly allowedByRules: boolean;
  readonly fastPathAllowed: boolean;
  readonly pathAsWritten: string;
}

function loadVectors(file: string): Vector[] {
  const parsed: unknown = JSON.parse(readFileSync(path.join(conformanceDir, file), 'utf8'));
  assert.ok(Array.isArray(parsed), `${file} holds an array`);
  for (const v of parsed as Vector[]) {
    assert.equal(typeof v.name, 'string');
    assert.equal(typeof v.useragent, 'string', v.name);
    assert.equal(typeof v.url, 'string', v.name);
    assert.equal(typeof v.allowed, 'boolean', v.name);
    assert.ok(typeof v.robotstxt === 'string' || typeof v.robotstxt_base64 === 'string', `${v.name} has a body`);
  }
  return parsed as Vector[];
}

/**
 * The path and query exactly as the vector writes them. The vectors follow Google's
 * contract that the caller percent-encodes the URL: "/foo/bar/ツ" must NOT match a rule
 * for "/foo/bar/%E3%83%84" while "/foo/bar/%E3%83%84" must. WHATWG URL serialisation
 * encodes both to the same string, so it cannot be used to feed these vectors.
 */
function pathAndQueryAsWritten(url: string): string {
  const hash = url.indexOf('#');
  const withoutFragment = hash === -1 ? url : url.slice(0, hash);
  const schemeEnd = withoutFragment.indexOf('://');
  let start = schemeEnd === -1 ? 0 : schemeEnd + 3;
  while (start < withoutFragment.length && withoutFragment[start] !== '/' && withoutFragment[start] !== '?') start++;
  return withoutFragment.slice(start) || '/';
}

function run(vectors: readonly Vector[]): Outcome[] {
  return vectors.map((vector) => {
    const body = vector.robotstxt ?? new Uint8Array(Buffer.from(vector.robotstxt_base64 ?? '', 'base64'));
    const robots = parseRobots(body);
    const pathAsWritten = pathAndQueryAsWritten(vector.url);
    const explanation = explainMatch(robots, vector.useragent, pathAsWritten);
    return {
      vector,
      googleSpecific: vector.google_specific === true || vector.test_type === 'GOOGLE_SPECIFIC',
      // The vectors come from a matcher without RFC 9309's implicit allowance of
      // /robots.txt, so they are checked against the rules' own verdict.
      pass: explanation.allowedByRules === vector.allowed,
      allowed: explanation.allowed,
      allowedByRules: explanation.allowedByRules,
      fastPathAllowed: isAllowed(robots, vector.useragent, pathAsWritten),
      pathAsWritten,
    };
  });
}

function describeFailures(outcomes: readonly Outcome[]): string {
  return outcomes
    .filter((o) => !o.pass)
    .map((o) => `${o.vector.name} (${o.vector.useragent} ${o.vector.url.slice(0, 80)}: expected ${o.vector.allowed})`)
    .join('\n');
}

const google = run(loadVectors('robotstxt-google.json'));
const spec = run(loadVectors('robotstxt-spec-test.json'));
const all = [...google, ...spec];

test('the vector files hold the cases the README describes', () => {
  assert.equal(google.length, 145);
  assert.equal(google.filter((o) => o.googleSpecific).length, 73);
  assert.equal(spec.length, 400);
  assert.equal(spec.filter((o) => o.vector.robotstxt === null).length, 3, 'three bodies are given only as base64');
});

test('google/robotstxt vectors: every case not marked google_specific passes', (t) => {
  const rfc = google.filter((o) => !o.googleSpecific);
  t.diagnostic(`google/robotstxt: ${google.filter((o) => o.pass).length}/${google.length} pass; RFC cases ${rfc.filter((o) => o.pass).length}/${rfc.length}`);
  assert.equal(describeFailures(rfc), '');
});

test('robotstxt-spec-test vectors: every case not marked GOOGLE_SPECIFIC passes', (t) => {
  const rfc = spec.filter((o) => !o.googleSpecific);
  t.diagnostic(`robotstxt-spec-test: ${spec.filter((o) => o.pass).length}/${spec.length} pass; RFC cases ${rfc.filter((o) => o.pass).length}/${rfc.length}`);
  assert.equal(describeFailures(rfc), '');
});

test('at least 95% of all 545 vectors pass, Google-specific ones included', (t) => {
  const passed = all.filter((o) => o.pass).length;
  t.diagnostic(`all vectors: ${passed}/${all.length} pass (${((100 * passed) / all.length).toFixed(1)}%)`);
  const failures = describeFailures(all);
  if (failures !== '') t.diagnostic(`failing:\n${failures}`);
  assert.ok(passed / all.length >= 0.95, `pass rate ${passed}/${all.length}`);
});

test('isAllowed gives the same verdict as explainMatch on every vector', () => {
  for (const o of all) assert.equal(o.fastPathAllowed, o.allowed, o.vector.name);
});

test('the final verdict departs from the rules only for /robots.txt, which RFC 9309 always allows', (t) => {
  const departures = all.filter((o) => o.allowed !== o.allowedByRules);
  t.diagnostic(`${departures.length} vectors expect /robots.txt itself to be disallowed; isAllowed allows it`);
  for (const o of departures) {
    assert.equal(o.pathAsWritten, '/robots.txt', o.vector.name);
    assert.equal(o.allowed, true, o.vector.name);
  }
});

test('WHATWG-serialised paths change the verdict only for vectors that pass unencoded non-ASCII', (t) => {
  let changed = 0;
  for (const o of all) {
    const url = URL.parse(o.vector.url);
    if (url === null) continue;
    const whatwgPath = url.pathname + url.search;
    const body = o.vector.robotstxt ?? new Uint8Array(Buffer.from(o.vector.robotstxt_base64 ?? '', 'base64'));
    const verdict = explainMatch(parseRobots(body), o.vector.useragent, whatwgPath).allowedByRules;
    if (verdict === o.allowedByRules) continue;
    changed++;
    assert.match(o.pathAsWritten, /[^\x00-\x7f]/, `${o.vector.name} differs under WHATWG serialisation`);
  }
  t.diagnostic(`${changed} vectors give another verdict when the URL is WHATWG-serialised first`);
});
