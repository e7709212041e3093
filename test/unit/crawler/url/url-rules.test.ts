import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../../../crawler/errors.ts';
import { DEFAULT_SETTINGS } from '../../../../crawler/protocol/settings.ts';
import { validateNewSettings, validateSettings } from '../../../../crawler/settings.ts';
import { describeRuleRefusal, urlPatternProblem, UrlPatternError, UrlRules } from '../../../../crawler/url/url-rules.ts';

const only = (include: string[]) => new UrlRules({ include, exclude: [] });
const never = (exclude: string[]) => new UrlRules({ include: [], exclude });
const matches = (pattern: string, url: string): boolean => only([pattern]).refusal(url) === null;

describe('globs over the canonical URL', () => {
  it('**/*.ext matches a file at any depth, on any host, with or without a query', () => {
    for (const url of ['https://h/a/b.zip', 'https://h/b.zip', 'http://h:8080/a/b/c.zip', 'https://h/a/b.zip?x=1&y=2']) assert.ok(matches('**/*.zip', url), url);
    for (const url of ['https://h/a/b.zipx', 'https://h/a/b.zip/more', 'https://h/a?file=b.zip.old']) assert.ok(!matches('**/*.zip', url), url);
  });

  it('a site folder glob matches the folder and everything under it, and nothing beside it', () => {
    const glob = 'https://example.org/docs/**';
    for (const url of ['https://example.org/docs', 'https://example.org/docs/', 'https://example.org/docs/a/b.html', 'https://example.org/docs/x?page=2']) assert.ok(matches(glob, url), url);
    for (const url of ['https://example.org/docsx/a', 'http://example.org/docs/a', 'https://www.example.org/docs/a', 'https://example.org/blog/docs/']) assert.ok(!matches(glob, url), url);
  });

  it('* stays within a segment, ** crosses segments and the // after the scheme', () => {
    assert.ok(matches('https://example.org/*/index.html', 'https://example.org/a/index.html'));
    assert.ok(!matches('https://example.org/*/index.html', 'https://example.org/a/b/index.html'));
    assert.ok(matches('**/v2/**', 'https://api.example.org/v2/users'));
    assert.ok(matches('**', 'https://h/'));
    assert.ok(!matches('*', 'https://h/x'), 'one * never spans the //');
    assert.ok(matches('https://*.example.org/**', 'https://a.b.example.org/x'));
  });

  it('sees the query when it names one, matches dot folders, braces and classes, and is case-sensitive', () => {
    assert.ok(matches('https://h/search?q=*', 'https://h/search?q=wal'));
    assert.ok(!matches('https://h/search?q=*', 'https://h/search'));
    assert.ok(matches('**/.well-known/**', 'https://h/.well-known/security.txt'));
    assert.ok(matches('**/*.{pdf,ps}', 'https://h/a.ps'));
    assert.ok(matches('**/page-[0-9].html', 'https://h/page-7.html'));
    assert.ok(!matches('**/*.PDF', 'https://h/a.pdf'));
  });
});

describe('regular expressions', () => {
  it('are searched for anywhere in the whole URL, query included, with their flags', () => {
    assert.ok(matches('/\\/v\\d+\\//', 'https://h/api/v12/x'));
    assert.ok(!matches('/\\/v\\d+\\//', 'https://h/api/V12/x'));
    assert.ok(matches('/\\/v\\d+\\//i', 'https://h/api/V12/x'));
    assert.ok(matches('/sort=/', 'https://h/list?sort=asc'));
    assert.ok(!matches('/^https:\\/\\/h\\/$/', 'https://h/a'));
  });

  it('are tested again and again with the same answer (no stateful flags)', () => {
    const rules = never(['/\\.zip$/i']);
    for (let i = 0; i < 3; i++) assert.equal(rules.refusal('https://h/a.ZIP'), 'rule:exclude');
  });
});

describe('admitting by the rules', () => {
  const rules = new UrlRules({ include: ['https://h/docs/**', '/\\/v\\d+\\//'], exclude: ['**/*.zip', '**/*.{pdf,ps}'] });

  it('refuses what an exclude matches, then what no include matches', () => {
    assert.equal(rules.refusal('https://h/docs/guide.html'), null);
    assert.equal(rules.refusal('https://h/api/v2/x'), null);
    assert.equal(rules.refusal('https://h/docs/pack.zip'), 'rule:exclude');
    assert.equal(rules.refusal('https://h/blog/'), 'rule:not-included');
    assert.equal(rules.refusal('https://h/blog/a.zip'), 'rule:exclude', 'an exclude names the refusal before the includes');
  });

  it('names the rule that refused, in the command line words', () => {
    const excluded = rules.judge('https://h/docs/manual.pdf?dl=1');
    assert.deepEqual(excluded, { admitted: false, reason: 'rule:exclude', pattern: '**/*.{pdf,ps}' });
    assert.equal(describeRuleRefusal(excluded as Exclude<typeof excluded, { admitted: true }>), 'excluded by --exclude "**/*.{pdf,ps}"');
    const outside = rules.judge('https://h/blog/');
    assert.equal(describeRuleRefusal(outside as Exclude<typeof outside, { admitted: true }>), 'not included by any --include (2 patterns)');
    assert.deepEqual(rules.judge('https://h/docs/'), { admitted: true });
  });

  it('admits everything without rules', () => {
    const none = new UrlRules({ include: [], exclude: [] });
    assert.ok(none.empty);
    assert.equal(none.refusal('https://anything.example/x.zip'), null);
  });
});

describe('patterns that cannot be used', () => {
  const refused: [string, RegExp][] = [
    ['', /empty/],
    ['   ', /empty/],
    [' **/*.zip', /spaces around it/],
    ['**/a\u0007b', /control character/],
    ['x'.repeat(1001), /longer than 1000 characters/],
    ['/(unclosed/', /not a valid regular expression/],
    ['/a/g', /flag g is not one a rule takes/],
    ['/a/ii', /flag i is given twice/],
    ['/docs/**', /cannot start with \//],
    ['example.org/docs/**', /starts with http:\/\/, https:\/\/ or a wildcard/],
    ['https://Example.org/**', /lower case/],
    ['https://h/a b', /space/],
    ['**/[a', /not a glob/],
    ['**/{a,b', /not a glob/],
    ['**/[z-a]', /not a glob/],
  ];

  it('each is refused with the reason', () => {
    for (const [pattern, why] of refused) assert.match(urlPatternProblem('exclude', pattern) ?? 'accepted', why, JSON.stringify(pattern.slice(0, 30)));
  });

  it('a good pattern has no problem', () => {
    for (const pattern of ['**/*.zip', 'https://example.org/docs/**', '/\\/v\\d+\\//i', 'http*://h/**', '{http,https}://h/**']) assert.equal(urlPatternProblem('include', pattern), null, pattern);
  });

  it('compiling rules throws a UrlPatternError naming the list, the pattern and why', () => {
    assert.throws(
      () => new UrlRules({ include: ['https://h/**'], exclude: ['/[/'] }),
      (err) => err instanceof UrlPatternError && err instanceof UsageError && /^the exclude pattern "\/\[\/" cannot be used: it is not a valid regular expression/.test(err.message) && err.context.setting === 'exclude',
    );
    assert.throws(() => new UrlRules({ include: Array.from({ length: 101 }, (_, i) => `**/${i}`), exclude: [] }), /101 include patterns are too many: at most 100/);
  });

  it('settings from the command line, the service or a stored collection are refused before anything starts', () => {
    const base = { ...DEFAULT_SETTINGS, query: 'write-ahead logging', seeds: ['https://h/'] };
    assert.throws(() => validateNewSettings({ ...base, include: ['example.org/**'] }), /the include pattern "example.org\/\*\*" cannot be used/);
    assert.throws(() => validateSettings({ ...base, exclude: ['/(/'] }), UrlPatternError);
    assert.equal(validateSettings({ ...base, exclude: ['**/*.zip'] }).exclude[0], '**/*.zip');
  });
});
