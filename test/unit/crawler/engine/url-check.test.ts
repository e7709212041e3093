import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkUrlRules } from '../../../../crawler/engine/url-check.ts';
import type { UrlRulesCheckInput } from '../../../../crawler/protocol/api.ts';
import { checkInput } from '../../../../crawler/service/schema.ts';

const FORM: UrlRulesCheckInput = {
  seeds: ['https://docs.example/', 'not yet a url'],
  scope: 'hosts',
  include: ['https://docs.example/manual/**', '/\\/v\\d+\\//'],
  exclude: ['**/*.zip'],
  url: '',
};
const verdict = (url: string, over: Partial<UrlRulesCheckInput> = {}) => checkUrlRules({ ...FORM, ...over, url }).verdict;

describe('the New crawl form live check of the rules', () => {
  it('answers as the crawl would: seeds, then scope, then excludes, then includes', () => {
    assert.deepEqual(verdict('https://DOCS.example/manual/wal.html#top'), { crawled: true, url: 'https://docs.example/manual/wal.html', why: 'admitted' });
    assert.deepEqual(verdict('https://docs.example/'), { crawled: true, url: 'https://docs.example/', why: 'seed' });
    assert.deepEqual(verdict('https://docs.example/manual/all.zip'), { crawled: false, url: 'https://docs.example/manual/all.zip', why: 'rule:exclude', pattern: '**/*.zip' });
    assert.deepEqual(verdict('https://docs.example/blog/'), { crawled: false, url: 'https://docs.example/blog/', why: 'rule:not-included', includes: 2 });
    const outside = verdict('https://other.example/api/v2/x');
    assert.equal(outside?.why, 'scope');
    assert.match(outside?.why === 'scope' ? outside.detail : '', /other\.example is not a seed host/);
    assert.equal(verdict('https://other.example/api/v2/x', { scope: 'any' })?.why, 'admitted');
  });

  it('says why it cannot answer: no URL, a URL it cannot crawl, no seeds yet', () => {
    assert.equal(verdict(''), null);
    assert.equal(verdict('mailto:someone@example.org')?.why, 'invalid-url');
    assert.equal(verdict('https://docs.example/manual/', { seeds: [] })?.why, 'no-seeds');
  });

  it('names each pattern the crawl would refuse, and gives no verdict while one is there', () => {
    const check = checkUrlRules({ ...FORM, include: ['**/[a'], exclude: ['/(/', '**/*.zip'], url: 'https://docs.example/manual/' });
    assert.deepEqual(check.problems.map((p) => [p.list, p.pattern]), [['include', '**/[a'], ['exclude', '/(/']]);
    assert.equal(check.verdict, null);
  });

  it('is an API call whose input is bounded like the form', () => {
    assert.equal(checkInput('checkUrlRules', FORM).ok, true);
    assert.equal(checkInput('checkUrlRules', { ...FORM, exclude: ['x'.repeat(1001)] }).ok, false);
    assert.equal(checkInput('checkUrlRules', { ...FORM, include: Array.from({ length: 101 }, () => '**') }).ok, false);
    assert.equal(checkInput('checkUrlRules', { ...FORM, extra: true }).ok, false);
  });
});
