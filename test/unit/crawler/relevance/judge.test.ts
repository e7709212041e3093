import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addJudgeStatistics, CrawlJudge, type JudgedPage } from '../../../../crawler/relevance/judge.ts';
import { evidenceOfRelevance } from '../../../../crawler/relevance/relevance.ts';
import { termCounts } from '../../../../crawler/relevance/text.ts';

let nextId = 1;
function page(title: string, text: string, site = 'http://docs.test'): JudgedPage {
  return { urlId: nextId++, site, title, text, titleTerms: termCounts(title), bodyTerms: termCounts(text) };
}

const DEFAULTS = { hotPredicate: null, hotThreshold: null };

test('the default judge grades against its moving bar: 0.5 at the bar, towards 1 above', () => {
  const judge = new CrawlJudge({ query: 'socket servers', ...DEFAULTS });
  const strong = judge.judge(page('Socket servers', 'socket server '.repeat(30)));
  assert.equal(strong.hot, true);
  assert.ok(strong.grade > 0.5 && strong.grade < 1);
  const bar = judge.movingBar();
  assert.ok(bar !== null && bar > 0);
  const weak = judge.judge(page('Cooking', 'a recipe that names a server once'));
  assert.equal(weak.hot, (weak.relevance ?? 0) >= (judge.movingBar() ?? 1));
  const s = evidenceOfRelevance(weak.relevance ?? 0);
  const sBar = evidenceOfRelevance(judge.movingBar() ?? 1);
  assert.ok(Math.abs(weak.grade - s / (s + sBar)) < 1e-12, 'grade = S / (S + S_bar)');
  assert.equal(judge.judge(page('Nothing', 'kitchen garden')).grade, 0);
});

test('navigation repeated across a site is not the page\'s own mention', () => {
  const judge = new CrawlJudge({ query: 'interpolation', ...DEFAULTS });
  const nav = 'Interpolation ( scipy.interpolate )\nSignal processing';
  for (let n = 0; n < 6; n++) judge.judge(page(`Page ${n}`, `${nav}\nsomething else ${n}`));
  const onlyNavigation = judge.judge(page('Erf', `${nav}\nThe error function`));
  assert.equal(onlyNavigation.relevance, 0);
  const otherSite = judge.judge(page('Erf', `${nav}\nThe error function`, 'http://other.test'));
  assert.ok((otherSite.relevance ?? 0) > 0, 'on another site the same line is content');
});

test('a label decides the verdict and the grade; the others follow the rule', () => {
  const judge = new CrawlJudge({ query: 'socket servers', ...DEFAULTS });
  const relevant = page('Cooking', 'kitchen');
  const irrelevant = page('Socket servers', 'socket server '.repeat(30));
  judge.useLabels([
    { urlId: relevant.urlId, relevant: true, text: 'kitchen' },
    { urlId: irrelevant.urlId, relevant: false, text: 'socket server' },
  ]);
  assert.deepEqual([judge.judge(relevant).hot, judge.judge(relevant).grade], [true, 1]);
  assert.deepEqual([judge.judge(irrelevant).hot, judge.judge(irrelevant).grade], [false, 0]);
  assert.equal(judge.judge(page('Socket servers', 'socket server '.repeat(30))).hot, true);
});

test('a predicate or a chosen threshold is not a moving bar; a predicate grades 1 or 0', () => {
  const predicate = new CrawlJudge({ query: 'xml', hotPredicate: 'title:xml', hotThreshold: null });
  assert.equal(predicate.movingBar(), null);
  assert.deepEqual([predicate.judge(page('XML parsing', '')).grade, predicate.judge(page('HTML', 'xml xml')).grade], [1, 0]);
  const fixed = new CrawlJudge({ query: 'xml', hotPredicate: null, hotThreshold: 0.5 });
  assert.equal(fixed.movingBar(), null);
  const verdict = fixed.judge(page('XML', 'xml '.repeat(20)));
  assert.equal(verdict.hot, (verdict.relevance ?? 0) >= 0.5);
});

test('wouldBeHot gives the verdict judge would give, template lines included, and learns nothing', () => {
  const pages = (): JudgedPage[] => [
    ...Array.from({ length: 6 }, (_, n) => page(`Page ${n}`, `Interpolation ( scipy.interpolate )\nsomething else ${n}`)),
    page('Interpolation', 'interpolation of splines, interpolation in one dimension'),
    page('Erf', 'Interpolation ( scipy.interpolate )\nThe error function'),
  ];
  const previewed = new CrawlJudge({ query: 'interpolation', ...DEFAULTS });
  const plain = new CrawlJudge({ query: 'interpolation', ...DEFAULTS });
  for (const p of pages()) {
    for (let i = 0; i < 3; i++) previewed.wouldBeHot(p);
    assert.deepEqual(previewed.judge(p), plain.judge(p), 'previews change nothing the judge does after them');
  }
  const erf = page('Erf', 'Interpolation ( scipy.interpolate )\nThe error function');
  assert.equal(previewed.wouldBeHot(erf), false, 'a line the site repeats is navigation in a preview too');
  assert.equal(previewed.wouldBeHot(page('Interpolation', 'interpolation of splines, interpolation in one dimension')), true);
});

test('judges of a split crawl judge by the whole crawl\'s statistics once they share them', () => {
  const query = 'socket servers';
  const here = new CrawlJudge({ query, ...DEFAULTS });
  const elsewhere = new CrawlJudge({ query, ...DEFAULTS });
  // Here a weak shard: "server" is rare. Elsewhere every page says "server", and some pages are strong.
  for (let n = 0; n < 5; n++) here.judge(page(`Kitchen ${n}`, `a recipe ${n} with a socket wrench`));
  for (let n = 0; n < 40; n++) elsewhere.judge(page(`Server ${n}`, `server ${'socket server '.repeat(n % 8 === 0 ? 25 : 1)}`));
  const barAlone = here.movingBar() ?? 0;
  const gradeAlone = here.gradeOf(0.3);

  here.useShared(elsewhere.statistics());
  const barShared = here.movingBar() ?? 0;
  assert.ok(barShared > barAlone, `the crawl's best pages set the bar: ${barShared} > ${barAlone}`);
  assert.ok(here.gradeOf(0.3) < gradeAlone, 'a page of another shard is graded against the crawl\'s bar');

  // The shared figures replace the earlier ones: sharing nothing restores the shard's own judgement.
  here.useShared({ terms: { documents: 0, df: [0, 0], pagesMentioning: [0, 0], mentions: [0, 0] }, best: [] });
  assert.equal(here.movingBar(), barAlone);
});

test('statistics add up as one judge would count them', () => {
  const a = { terms: { documents: 3, df: [1, 2], pagesMentioning: [1, 2], mentions: [4, 5] }, best: [1, 5] };
  const b = { terms: { documents: 4, df: [2, 0], pagesMentioning: [2, 0], mentions: [1, 0] }, best: [2, 3, 9, 9, 9, 9, 9, 9, 9, 9] };
  const sum = addJudgeStatistics(a, b);
  assert.deepEqual(sum.terms, { documents: 7, df: [3, 2], pagesMentioning: [3, 2], mentions: [5, 5] });
  assert.deepEqual(sum.best, [3, 5, 9, 9, 9, 9, 9, 9, 9, 9]);
});
