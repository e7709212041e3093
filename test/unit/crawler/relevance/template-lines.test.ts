import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MIN_PAGES, TemplateLines } from '../../../../crawler/relevance/template-lines.ts';

const NAVIGATION = 'Interpolation ( scipy.interpolate )\nOptimization ( scipy.optimize )';

function pageText(n: number): string {
  return `${NAVIGATION}\nPage ${n} is about topic${n} alone\n${n % 2 === 0 ? 'An even page line' : `odd line ${n}`}`;
}

test('a line repeated on MIN_PAGES pages of a site becomes template, and its terms are discounted', () => {
  const lines = new TemplateLines();
  for (let n = 0; n < MIN_PAGES; n++) assert.equal(lines.takePage('http://a', pageText(n)).size, 0, `page ${n}: nothing is template yet`);
  const discounted = lines.takePage('http://a', pageText(99));
  assert.equal(discounted.get('interpol'), 2);
  assert.equal(discounted.get('optim'), 2);
  assert.equal(discounted.get('scipi'), 2);
  assert.equal(discounted.has('topic99'), false, 'the page\'s own line is not template');
  assert.equal(discounted.has('even'), false, 'a line on 3 of 6 pages is below MIN_PAGES');
});

test('sites are separate: one site\'s navigation is another site\'s content', () => {
  const lines = new TemplateLines();
  for (let n = 0; n < 2 * MIN_PAGES; n++) lines.takePage('http://a', pageText(n));
  assert.equal(lines.takePage('http://b', pageText(1)).size, 0);
  assert.ok(lines.takePage('http://a', pageText(1)).size > 0);
});

test('on a large site a line must be on a share of its pages, not just on a few', () => {
  const lines = new TemplateLines();
  // 400 pages; "Related: widgets" appears on 10 of them (2.5%, under the 5% share).
  for (let n = 0; n < 400; n++) lines.takePage('http://a', `${NAVIGATION}\nown ${n}${n % 40 === 0 ? '\nRelated: widgets' : ''}`);
  const discounted = lines.takePage('http://a', `${NAVIGATION}\nRelated: widgets`);
  assert.equal(discounted.has('widget'), false);
  assert.equal(discounted.get('interpol'), 2);
});

test('the table stays bounded and keeps the template lines when it forgets', () => {
  const lines = new TemplateLines(1_000);
  for (let n = 0; n < 5_000; n++) lines.takePage('http://a', pageText(n));
  assert.ok(lines.size <= 1_000, `${lines.size} lines held`);
  assert.equal(lines.takePage('http://a', pageText(7)).get('interpol'), 2, 'navigation survived the forgetting');
});
