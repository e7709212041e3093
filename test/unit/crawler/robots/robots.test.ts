import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pseudoRandomBytes } from '../../../support/random.ts';
import { UsageError } from '../../../../crawler/errors.ts';
import {
  crawlDelaySeconds,
  explainMatch,
  isAllowed,
  parseRobots,
  productToken,
  robotsPolicy,
  robotsPolicyFromStatus,
  ROBOTS_MAX_BYTES,
  sitemaps,
} from '../../../../crawler/robots/index.ts';

const AGENT = 'Forager';


describe('parseRobots: lines', () => {
  test('CR, LF and CRLF all end lines, mixed in one file', () => {
    const robots = parseRobots('User-agent: a\rDisallow: /cr\nDisallow: /lf\r\nDisallow: /crlf\r\n\r\nDisallow: /last');
    assert.deepEqual(robots.groups[0]?.rules.map((r) => [r.pattern, r.line]), [
      ['/cr', 2],
      ['/lf', 3],
      ['/crlf', 4],
      ['/last', 6],
    ]);
  });

  test('comments, surrounding whitespace and case of keys do not matter', () => {
    const robots = parseRobots('# header\n  \tUSER-AGENT :\tForager  # us\n\tdisAllow:   /a b   # trailing\n#Disallow: /commented\n');
    assert.deepEqual(robots.groups[0]?.agents, ['forager']);
    assert.deepEqual(robots.groups[0]?.rules.map((r) => r.value), ['/a b']);
    assert.equal(isAllowed(robots, AGENT, '/commented'), true);
  });

  test('a missing colon is accepted only between exactly two words', () => {
    const robots = parseRobots('user-agent Forager\ndisallow /x\ndisallow /y extra\n');
    assert.deepEqual(robots.groups[0]?.rules.map((r) => r.pattern), ['/x']);
  });

  test('unknown keys and lines without a key are ignored', () => {
    const robots = parseRobots('User-agent: *\nNoindex: /a\n: /b\nDisallow-ish: /c\nrandom text\nDisallow: /d\n');
    assert.deepEqual(robots.groups.map((g) => g.rules.map((r) => r.pattern)), [['/d']]);
  });

  test('rules before the first user-agent line are ignored', () => {
    const robots = parseRobots('Disallow: /\nCrawl-delay: 9\nUser-agent: *\nDisallow: /private\n');
    assert.equal(isAllowed(robots, AGENT, '/public'), true);
    assert.equal(isAllowed(robots, AGENT, '/private/x'), false);
    assert.equal(crawlDelaySeconds(robots, AGENT), undefined);
  });

  test('a UTF-8 byte-order mark is skipped, whole or truncated, but only at the start', () => {
    const rules = 'User-agent: *\nDisallow: /x\n';
    assert.equal(isAllowed(parseRobots('\uFEFF' + rules), AGENT, '/x'), false);
    const text = new TextEncoder().encode(rules);
    for (const bom of [[0xef, 0xbb, 0xbf], [0xef, 0xbb], [0xef]]) {
      assert.equal(isAllowed(parseRobots(new Uint8Array([...bom, ...text])), AGENT, '/x'), false, `BOM ${bom}`);
    }
    assert.equal(isAllowed(parseRobots(new Uint8Array([0xef, 0x11, 0xbf, ...text])), AGENT, '/x'), true);
    assert.equal(isAllowed(parseRobots('User-agent: *\n\uFEFFDisallow: /x\n'), AGENT, '/x'), true);
  });

  test('invalid UTF-8 does not throw; rule octets are kept exactly, in percent-encoded form', () => {
    const head = new TextEncoder().encode('User-agent: *\nDisallow: /a');
    const robots = parseRobots(new Uint8Array([...head, 0xff, 0xc3, 0x0a]));
    const rule = robots.groups[0]?.rules[0];
    assert.equal(rule?.pattern, '/a%FF%C3');
    assert.equal(rule?.value, '/a\uFFFD\uFFFD');
    assert.equal(isAllowed(robots, AGENT, '/a%ff%c3/page'), false);
    assert.equal(isAllowed(robots, AGENT, '/a'), true);
  });

  test('1 MiB of random octets parses quickly into no rules', () => {
    const garbage = pseudoRandomBytes(1024 * 1024, 0x9e3779b9);
    const started = performance.now();
    const robots = parseRobots(garbage);
    const elapsed = performance.now() - started;
    assert.deepEqual(robots.groups, []);
    assert.equal(robots.truncated, true);
    assert.equal(isAllowed(robots, AGENT, '/anything'), true);
    assert.ok(elapsed < 1000, `took ${elapsed} ms`);
  });

  test('1 MiB of random text parses without throwing', () => {
    const octets = pseudoRandomBytes(1024 * 1024, 12345);
    let text = '';
    for (let i = 0; i < octets.length; i += 2) text += String.fromCharCode((octets[i]! << 8) | octets[i + 1]!);
    assert.doesNotThrow(() => parseRobots(text));
  });

  test(`only the first ${ROBOTS_MAX_BYTES} octets are read, and a line cut by the limit is dropped`, () => {
    const head = 'User-agent: *\nDisallow: /early\n';
    const filler = '#'.repeat(ROBOTS_MAX_BYTES - head.length - 'Disallow: /cu'.length) + '\n';
    // "Disallow: /cut-here" straddles the limit; a prefix of it would disallow far too much.
    const body = head + filler + 'Disallow: /cut-here\nDisallow: /late\n';
    assert.ok(body.length > ROBOTS_MAX_BYTES);
    for (const input of [body, new TextEncoder().encode(body)]) {
      const robots = parseRobots(input);
      assert.equal(robots.truncated, true);
      assert.equal(isAllowed(robots, AGENT, '/early'), false);
      assert.equal(isAllowed(robots, AGENT, '/cu'), true);
      assert.equal(isAllowed(robots, AGENT, '/late'), true);
    }
  });

  test('500 KiB of rules are all read', () => {
    let body = 'User-agent: *\n';
    let n = 0;
    while (body.length < 500 * 1024) body += `Disallow: /dir${n++}/\n`;
    const robots = parseRobots(body);
    assert.equal(robots.truncated, false);
    assert.equal(robots.groups[0]?.rules.length, n);
    assert.equal(isAllowed(robots, AGENT, `/dir${n - 1}/x`), false);
    assert.equal(isAllowed(robots, AGENT, `/dir${n}/x`), true);
  });
});

describe('parseRobots and isAllowed: groups', () => {
  test('consecutive user-agent lines share one group; a rule ends the list', () => {
    const robots = parseRobots('User-agent: a\nUser-agent: b\nDisallow: /x\nUser-agent: c\nDisallow: /y\n');
    assert.deepEqual(robots.groups.map((g) => g.agents), [['a', 'b'], ['c']]);
  });

  test('sitemap, unknown and blank lines do not end the user-agent list', () => {
    const robots = parseRobots('User-agent: a\nSitemap: https://e.example/s.xml\n\nFoo: bar\nUser-agent: b\nDisallow: /x\n');
    assert.deepEqual(robots.groups.map((g) => g.agents), [['a', 'b']]);
    assert.equal(isAllowed(robots, 'a', '/x'), false);
  });

  test('crawl-delay is a group member: it ends the user-agent list like a rule', () => {
    const robots = parseRobots('User-agent: *\nCrawl-delay: 5\n\nUser-agent: BadBot\nDisallow: /\n');
    assert.deepEqual(robots.groups.map((g) => g.agents), [['*'], ['badbot']]);
    assert.equal(isAllowed(robots, AGENT, '/x'), true);
    assert.equal(isAllowed(robots, 'BadBot', '/x'), false);
    assert.equal(crawlDelaySeconds(robots, AGENT), 5);
  });

  test('groups for the same agent are merged, wherever they are', () => {
    const robots = parseRobots('User-agent: Forager\nDisallow: /foo\n\nUser-agent: other\nDisallow: /bar\n\nUser-agent: forager\nDisallow: /baz\n');
    assert.equal(isAllowed(robots, AGENT, '/foo'), false);
    assert.equal(isAllowed(robots, AGENT, '/baz'), false);
    assert.equal(isAllowed(robots, AGENT, '/bar'), true);
  });

  test('merged groups compete on specificity, not on order', () => {
    const robots = parseRobots('User-agent: forager\nDisallow: /a\n\nUser-agent: FORAGER\nAllow: /a/b\n');
    assert.equal(isAllowed(robots, AGENT, '/a/b/c'), true);
    assert.equal(isAllowed(robots, AGENT, '/a/c'), false);
  });

  test('the product token is matched case-insensitively, both ways', () => {
    const robots = parseRobots('User-agent: fOrAgEr\nDisallow: /\n');
    for (const token of ['Forager', 'forager', 'FORAGER']) assert.equal(isAllowed(robots, token, '/x'), false, token);
    assert.equal(isAllowed(robots, 'Foragers', '/x'), true);
  });

  test('a user-agent value is read up to the end of its product token', () => {
    const robots = parseRobots('User-agent: Forager/1.0\nDisallow: /a\nUser-agent: Other Forager\nDisallow: /b\n');
    assert.equal(isAllowed(robots, AGENT, '/a'), false);
    assert.equal(isAllowed(robots, AGENT, '/b'), true);
    assert.equal(isAllowed(robots, 'other', '/b'), false);
  });

  test('the * group applies only when no group names the agent', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /\n\nUser-agent: Forager\nDisallow: /private\n');
    assert.equal(isAllowed(robots, AGENT, '/public'), true);
    assert.equal(isAllowed(robots, AGENT, '/private'), false);
    assert.equal(isAllowed(robots, 'OtherBot', '/public'), false);
  });

  test('a group naming the agent with no rules allows everything, even under a strict * group', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /\n\nUser-agent: Forager\n');
    assert.equal(isAllowed(robots, AGENT, '/x'), true);
    assert.equal(explainMatch(robots, AGENT, '/x').scope, 'agent');
  });

  test('no group at all means no restrictions', () => {
    assert.equal(isAllowed(parseRobots(''), AGENT, '/x'), true);
    assert.equal(explainMatch(parseRobots('User-agent: other\nDisallow: /\n'), AGENT, '/x').scope, 'none');
  });
});

describe('isAllowed: rules', () => {
  test('the longest pattern wins, whatever the order', () => {
    const robots = parseRobots('User-agent: *\nAllow: /a/b\nDisallow: /a\nDisallow: /a/b/c\n');
    assert.equal(isAllowed(robots, AGENT, '/a/x'), false);
    assert.equal(isAllowed(robots, AGENT, '/a/b/x'), true);
    assert.equal(isAllowed(robots, AGENT, '/a/b/c'), false);
  });

  test('allow wins a tie in length', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /page\nAllow: /page\nDisallow: /*.gif\nAllow: /x*gif\n');
    assert.equal(isAllowed(robots, AGENT, '/page'), true);
    assert.equal(isAllowed(robots, AGENT, '/x.gif'), true);
  });

  test('an empty Disallow disallows nothing', () => {
    assert.equal(isAllowed(parseRobots('User-agent: *\nDisallow:\n'), AGENT, '/x'), true);
    assert.equal(isAllowed(parseRobots('User-agent: *\nDisallow:   # nothing\nDisallow: /y\n'), AGENT, '/y'), false);
  });

  test('* matches any run of characters, including none', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /a*b*c\n');
    assert.equal(isAllowed(robots, AGENT, '/abc'), false);
    assert.equal(isAllowed(robots, AGENT, '/a/x/b/y/c/z'), false);
    assert.equal(isAllowed(robots, AGENT, '/a/c/b'), true);
  });

  test('$ anchors the end only as the last character; elsewhere it is literal', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /*.pdf$\nDisallow: /cost$x\n');
    assert.equal(isAllowed(robots, AGENT, '/doc.pdf'), false);
    assert.equal(isAllowed(robots, AGENT, '/doc.pdf?download=1'), true);
    assert.equal(isAllowed(robots, AGENT, '/cost$x/more'), false);
    assert.equal(isAllowed(robots, AGENT, '/cost'), true);
  });

  test('paths are matched case-sensitively, and queries take part', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /Private\nDisallow: /search?q=\n');
    assert.equal(isAllowed(robots, AGENT, '/private'), true);
    assert.equal(isAllowed(robots, AGENT, '/Private'), false);
    assert.equal(isAllowed(robots, AGENT, '/search?q=x'), false);
    assert.equal(isAllowed(robots, AGENT, '/search'), true);
  });

  test('/robots.txt is always allowed, and explainMatch says why', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /\n');
    assert.equal(isAllowed(robots, AGENT, '/robots.txt'), true);
    assert.equal(isAllowed(robots, AGENT, '/robots.txt.bak'), false);
    const explanation = explainMatch(robots, AGENT, '/robots.txt');
    assert.equal(explanation.allowed, true);
    assert.equal(explanation.allowedByRules, false);
    assert.equal(explanation.decidedBy, 'implicit-robots-txt');
  });

  test('explainMatch names the deciding line', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /\n\nUser-agent: Forager\nDisallow: /a\nAllow: /a/ok # fine\n');
    const denied = explainMatch(robots, AGENT, '/a/no');
    assert.deepEqual(
      { allowed: denied.allowed, decidedBy: denied.decidedBy, scope: denied.scope, line: denied.rule?.line, value: denied.rule?.value },
      { allowed: false, decidedBy: 'rule', scope: 'agent', line: 5, value: '/a' },
    );
    assert.equal(explainMatch(robots, AGENT, '/a/ok').rule?.line, 6);
    const unmatched = explainMatch(robots, AGENT, '/b');
    assert.equal(unmatched.decidedBy, 'no-matching-rule');
    assert.equal(unmatched.allowed, true);
    assert.equal(explainMatch(robots, 'OtherBot', '/b').rule?.line, 2);
  });
});

describe('isAllowed: percent-encoding (RFC 9309 §2.2.2)', () => {
  test('non-ASCII in a rule matches its percent-encoded UTF-8 in the path', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /café\n');
    assert.equal(robots.groups[0]?.rules[0]?.pattern, '/caf%C3%A9');
    assert.equal(isAllowed(robots, AGENT, new URL('https://e.example/café/menu').pathname), false);
    assert.equal(isAllowed(robots, AGENT, '/cafe'), true);
  });

  test('hex digits compare case-insensitively', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /%e3%83%84\n');
    assert.equal(isAllowed(robots, AGENT, '/%E3%83%84'), false);
    assert.equal(isAllowed(robots, AGENT, '/%e3%83%84x'), false);
  });

  test('an encoded reserved character is not the character: %2F is not /', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /a%2Fb\n');
    assert.equal(isAllowed(robots, AGENT, '/a/b'), true);
    assert.equal(isAllowed(robots, AGENT, '/a%2fb'), false);
  });

  test('%2A and %24 in a rule stand for a literal * and $ (RFC 9309 §2.2.3)', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /file-with-a-%2A.html\nDisallow: /foo-%24\n');
    assert.equal(isAllowed(robots, AGENT, '/file-with-a-*.html'), false);
    assert.equal(isAllowed(robots, AGENT, '/file-with-a-%2A.html'), false);
    assert.equal(isAllowed(robots, AGENT, '/file-with-a-b.html'), true);
    assert.equal(isAllowed(robots, AGENT, '/foo-$'), false);
    assert.equal(isAllowed(robots, AGENT, '/foo-'), true);
  });

  test('characters never valid in a URI compare equal to their escapes', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /a b{c}\n');
    assert.equal(isAllowed(robots, AGENT, '/a%20b%7Bc%7D'), false);
    assert.equal(isAllowed(robots, AGENT, '/a b{c}'), false);
    assert.equal(isAllowed(robots, AGENT, '/a%20b'), true);
  });

  test('an encoded unreserved character is compared as written, as the conformance vectors require', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /%62az\n');
    assert.equal(isAllowed(robots, AGENT, '/%62az'), false);
    assert.equal(isAllowed(robots, AGENT, '/baz'), true);
  });
});

describe('isAllowed: speed', () => {
  test('many * against a long path take linear time, not exponential', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /a*a*a*a*a*a*a*a*a*b\nDisallow: /*x*x*x*x*x*x*x*x*x*x*x*x*x*x$\n');
    const longPath = '/' + 'a'.repeat(200_000);
    const started = performance.now();
    assert.equal(isAllowed(robots, AGENT, longPath), true);
    assert.equal(isAllowed(robots, AGENT, longPath + 'b'), false);
    assert.equal(isAllowed(robots, AGENT, '/' + 'x'.repeat(200_000) + 'y'), true);
    assert.equal(isAllowed(robots, AGENT, '/' + 'x'.repeat(200_000)), false);
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 250, `took ${elapsed} ms`);
  });
});

describe('crawlDelaySeconds', () => {
  test('integer and fractional values are read; invalid ones ignored', () => {
    const cases: Array<[string, number | undefined]> = [
      ['10', 10],
      ['0.5', 0.5],
      ['.25', 0.25],
      ['2.', 2],
      ['0', 0],
      ['-1', undefined],
      ['abc', undefined],
      ['10s', undefined],
      ['1e3', undefined],
      ['', undefined],
      ['Infinity', undefined],
    ];
    for (const [value, expected] of cases) {
      assert.equal(crawlDelaySeconds(parseRobots(`User-agent: *\nCrawl-delay: ${value}\n`), AGENT), expected, JSON.stringify(value));
    }
  });

  test('belongs to its group: the agent group, else the * group', () => {
    const robots = parseRobots('User-agent: *\nCrawl-delay: 5\n\nUser-agent: Forager\nCrawl-delay: 1.5\nDisallow: /x\n\nUser-agent: quiet\nDisallow: /y\n');
    assert.equal(crawlDelaySeconds(robots, AGENT), 1.5);
    assert.equal(crawlDelaySeconds(robots, 'OtherBot'), 5);
    assert.equal(crawlDelaySeconds(robots, 'quiet'), undefined);
  });

  test('merged groups give the largest delay', () => {
    const robots = parseRobots('User-agent: Forager\nCrawl-delay: 2\nDisallow: /a\nUser-agent: forager\nCrawl-delay: 7\nCrawl-delay: 3\n');
    assert.equal(crawlDelaySeconds(robots, AGENT), 7);
  });
});

describe('sitemaps', () => {
  test('absolute http(s) sitemap lines are collected from anywhere, once each', () => {
    const robots = parseRobots(
      'Sitemap: https://e.example/a.xml\nUser-agent: *\nsitemap:http://e.example/b.xml # c\nDisallow: /\n' +
        'Sitemap: /relative.xml\nSitemap: ftp://e.example/c.xml\nSITEMAP: https://e.example/a.xml\n',
    );
    assert.deepEqual(sitemaps(robots), ['https://e.example/a.xml', 'http://e.example/b.xml']);
  });

  test('sitemaps() returns a copy', () => {
    const robots = parseRobots('Sitemap: https://e.example/a.xml\n');
    sitemaps(robots).push('https://evil.example/');
    assert.deepEqual(sitemaps(robots), ['https://e.example/a.xml']);
  });
});

describe('robotsPolicy', () => {
  test('2xx: the file is parsed and its rules apply', () => {
    const policy = robotsPolicyFromStatus(200, new TextEncoder().encode('User-agent: *\nDisallow: /x\n'));
    assert.equal(policy.kind, 'rules');
    assert.ok(policy.kind === 'rules');
    assert.equal(isAllowed(policy.robots, AGENT, '/x'), false);
    const empty = robotsPolicy({ status: 204 });
    assert.ok(empty.kind === 'rules');
    assert.deepEqual(empty.robots.groups, []);
  });

  test('4xx, including 401 and 403: no restrictions', () => {
    for (const status of [400, 401, 403, 404, 410, 451]) {
      assert.deepEqual(robotsPolicy({ status }), { kind: 'allow-all', reason: 'unavailable' }, String(status));
    }
  });

  test('429 is a request to back off, not a permission', () => {
    assert.deepEqual(robotsPolicyFromStatus(429), { kind: 'disallow-all', retry: true, reason: 'rate-limited' });
  });

  test('5xx and failed fetches: complete disallow, retried later', () => {
    for (const status of [500, 502, 503, 599]) {
      assert.deepEqual(robotsPolicy({ status }), { kind: 'disallow-all', retry: true, reason: 'server-error' }, String(status));
    }
    assert.deepEqual(robotsPolicy({ error: 'unreachable' }), { kind: 'disallow-all', retry: true, reason: 'unreachable' });
    assert.deepEqual(robotsPolicy({ error: 'timeout' }), { kind: 'disallow-all', retry: true, reason: 'timeout' });
    assert.deepEqual(robotsPolicy({ status: 0 }), { kind: 'disallow-all', retry: true, reason: 'unreachable' });
  });

  test('redirects that never reach a file: treated as unavailable', () => {
    assert.deepEqual(robotsPolicy({ error: 'too-many-redirects' }), { kind: 'allow-all', reason: 'too-many-redirects' });
    assert.deepEqual(robotsPolicy({ status: 302 }), { kind: 'allow-all', reason: 'unavailable' });
  });
});

describe('productToken', () => {
  test('takes the first product of a User-Agent header', () => {
    assert.equal(productToken('Forager/0.1 (+https://example.org/forager)'), 'Forager');
    assert.equal(productToken('Forager'), 'Forager');
    assert.equal(productToken('  Forager_Bot-X/2.0 extra'), 'Forager_Bot-X');
    assert.equal(productToken('Forager (+https://example.org/forager)'), 'Forager');
  });

  test('rejects a header that does not start with a valid product token', () => {
    for (const header of ['', '   ', 'Forager2/1.0', '/0.1', '(compatible)']) {
      assert.throws(() => productToken(header), UsageError, JSON.stringify(header));
    }
  });

  test('the extracted token finds its group', () => {
    const robots = parseRobots('User-agent: forager\nDisallow: /\n');
    assert.equal(isAllowed(robots, productToken('Forager/0.1 (+https://example.org/forager)'), '/x'), false);
  });
});

describe('cost on hostile files', () => {
  /**
   * The fastest of seven rounds of `lookups` isAllowed calls on a parsed file, after the first
   * call (which compiles the rules): the least-disturbed round is the cost itself, where a
   * median still moves with whatever else the machine runs (npm test runs two files at once).
   */
  function lookupMs(robots: ReturnType<typeof parseRobots>, lookups: number): number {
    isAllowed(robots, 'forager', '/');
    let fastest = Number.POSITIVE_INFINITY;
    for (let round = 0; round < 7; round++) {
      const started = performance.now();
      for (let i = 0; i < lookups; i++) isAllowed(robots, 'forager', `/dir${i % 977}/a/page${i}`);
      fastest = Math.min(fastest, performance.now() - started);
    }
    return fastest;
  }

  test('26,000 rules cost a lookup about what 10 rules do', () => {
    const rules = (n: number): string => `User-agent: *\n${Array.from({ length: n }, (_, i) => `Disallow: /dir${i}/*/page${i}$\n`).join('')}`;
    const many = parseRobots(rules(26_000));
    const few = parseRobots(rules(10));
    assert.equal(isAllowed(many, 'forager', '/dir5/x/page5'), false);
    assert.equal(isAllowed(many, 'forager', '/dir5/x/page6'), true);
    const manyMs = lookupMs(many, 2000);
    const fewMs = lookupMs(few, 2000);
    // Scanning every rule made each lookup cost about 1 ms, some 200 times the few-rule cost.
    assert.ok(manyMs < 20 * fewMs + 5, `26,000 rules: ${manyMs.toFixed(1)} ms, 10 rules: ${fewMs.toFixed(1)} ms for 2,000 lookups`);
  });

  test('29,000 user-agent lines parse in time linear in the file', () => {
    // Product tokens are letters, so each agent is its number written in the letters a to z.
    const name = (i: number): string => i.toString(26).replace(/./g, (d) => String.fromCharCode(97 + parseInt(d, 26)));
    const agents = (n: number): string => `${Array.from({ length: n }, (_, i) => `User-agent: ${name(i)}\n`).join('')}Disallow: /x\n`;
    const time = (text: string): number => {
      const started = performance.now();
      parseRobots(text);
      return performance.now() - started;
    };
    time(agents(1000));
    const small = Math.min(time(agents(2900)), time(agents(2900)));
    const large = Math.min(time(agents(29_000)), time(agents(29_000)));
    assert.ok(large < 30 * small + 20, `29,000 agents: ${large.toFixed(1)} ms; 2,900: ${small.toFixed(1)} ms`);
    assert.equal(isAllowed(parseRobots(agents(29_000)), name(28_999), '/x'), false);
    assert.equal(isAllowed(parseRobots(agents(29_000)), 'zz-forager', '/x'), true);
  });
});
