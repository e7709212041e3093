import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CookiesFileError, parseCookiesTxt } from '../../../../crawler/net/cookies-txt.ts';

const NOW = Date.UTC(2026, 0, 1);
const LATER = Math.floor(NOW / 1000) + 3600;

describe('parseCookiesTxt', () => {
  it('reads the fields, #HttpOnly_, session cookies, comments, blank lines, CRLF and a BOM', () => {
    const text = [
      '\uFEFF# Netscape HTTP Cookie File',
      '',
      `.example.org\tTRUE\t/\tTRUE\t${LATER}\tsid\tsecret-1`,
      `#HttpOnly_members.example.org\tFALSE\t/members\tFALSE\t0\ttoken\tsecret-2`,
      '   ',
      '# a comment\twith\ttabs',
    ].join('\r\n');
    const cookies = parseCookiesTxt(text, 'cookies.txt', NOW);
    assert.deepEqual(cookies, [
      { domain: 'example.org', includeSubdomains: true, path: '/', secure: true, httpOnly: false, expiresAt: LATER * 1000, name: 'sid', value: 'secret-1' },
      { domain: 'members.example.org', includeSubdomains: false, path: '/members', secure: false, httpOnly: true, expiresAt: undefined, name: 'token', value: 'secret-2' },
    ]);
  });

  it('takes the names and values browsers keep, quotes, commas and spaces included', () => {
    const cookies = parseCookiesTxt(`example.org\tFALSE\t/\tFALSE\t0\t_ga:x\t"a b, c"`, 'c.txt', NOW);
    assert.deepEqual(cookies.map((c) => [c.name, c.value]), [['_ga:x', '"a b, c"']]);
  });

  it('refuses a cookie for every site under a public suffix, but not one for that host alone', () => {
    assert.throws(() => parseCookiesTxt(`.co.uk\tTRUE\t/\tFALSE\t0\tsid\tv`, 'c.txt', NOW), /line 1: the domain \(field 1\) is a public suffix/);
    assert.throws(() => parseCookiesTxt(`com\tTRUE\t/\tFALSE\t0\tsid\tv`, 'c.txt', NOW), /line 1: the domain \(field 1\) is a public suffix/);
    const allowed = parseCookiesTxt([`github.io\tFALSE\t/\tFALSE\t0\ta\tv`, `.me.github.io\tTRUE\t/\tFALSE\t0\tb\tv`, `127.0.0.1\tTRUE\t/\tFALSE\t0\tc\tv`].join('\n'), 'c.txt', NOW);
    assert.deepEqual(allowed.map((c) => c.domain), ['github.io', 'me.github.io', '127.0.0.1']);
  });

  it('leaves out cookies that have expired', () => {
    const expired = Math.floor(NOW / 1000) - 1;
    assert.deepEqual(parseCookiesTxt(`example.org\tFALSE\t/\tFALSE\t${expired}\told\tv`, 'c.txt', NOW), []);
  });

  it('names every malformed line by number and what is wrong, never quoting a value', () => {
    const text = [
      '# header',
      `example.org\tFALSE\t/\tFALSE\t0\tok\tfine`,
      `example.org\tFALSE\t/\tFALSE\t0\tsid`,
      `example.org\tMAYBE\t/\tFALSE\t0\tsid\tSECRETVALUE1`,
      `example.org\tFALSE\tmembers\tFALSE\t0\tsid\tSECRETVALUE2`,
      `example.org\tFALSE\t/\tFALSE\tsoon\tsid\tSECRETVALUE3`,
      `exa mple.org\tFALSE\t/\tFALSE\t0\tsid\tSECRETVALUE4`,
      `example.org\tFALSE\t/\tFALSE\t0\tsid\tSECRET;VALUE5`,
      `example.org\tFALSE\t/\tFALSE\t0\ts=d\tSECRETVALUE6`,
    ].join('\n');
    let caught: unknown;
    try {
      parseCookiesTxt(text, 'session.txt', NOW);
    } catch (err) {
      caught = err;
    }
    assert.ok(caught instanceof CookiesFileError);
    assert.equal(caught.code, 'USAGE');
    assert.deepEqual(caught.problems.map((p) => p.line), [3, 4, 5, 6, 7, 8, 9]);
    assert.match(caught.message, /^session\.txt: 7 malformed lines \(line 3: expected 7 TAB-separated fields.*found 6; line 4: the include-subdomains flag/);
    assert.match(caught.message, /line 5: the path \(field 3\)/);
    assert.match(caught.message, /line 6: the expiry \(field 5\)/);
    assert.match(caught.message, /line 7: the domain \(field 1\)/);
    assert.match(caught.message, /line 8: the value \(field 7\)/);
    assert.match(caught.message, /line 9: the name \(field 6\)/);
    assert.doesNotMatch(caught.message, /SECRET|fine/);
    assert.doesNotMatch(JSON.stringify(caught.context), /SECRET/);
  });

  it('lists ten problems and counts the rest', () => {
    const text = Array.from({ length: 15 }, () => 'not a cookie line').join('\n');
    assert.throws(() => parseCookiesTxt(text, 'junk.txt', NOW), (err: unknown) => {
      assert.ok(err instanceof CookiesFileError);
      assert.equal(err.problems.length, 15);
      assert.match(err.message, /^junk\.txt: 15 malformed lines \(line 1: .*; line 10: [^;]*; and 5 more\)$/);
      return true;
    });
  });
});
