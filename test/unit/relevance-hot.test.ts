import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError } from '../../crawler/errors.ts';
import { backgroundIdf } from '../../crawler/relevance/background-idf.ts';
import { createHotRule, parseHotPredicate, type HotPage } from '../../crawler/relevance/hot.ts';
import { RelevanceModel } from '../../crawler/relevance/relevance.ts';
import { termCounts } from '../../crawler/relevance/text.ts';

function page(title: string, text: string, relevance = 0): HotPage {
  return { title, text, relevance, titleTerms: termCounts(title), bodyTerms: termCounts(text) };
}

function rejects(spec: string, clause: string): void {
  assert.throws(
    () => parseHotPredicate(spec),
    (e: unknown) => e instanceof UsageError && e.message.includes(clause) && (e.context.clause === undefined || e.context.clause === clause),
    `${spec} should be refused, naming ${clause}`,
  );
}

test('malformed predicates are usage errors that name the bad part', () => {
  rejects('title:', 'title:');
  rejects('title:xml|body>=x:lock', 'body>=x:lock');
  rejects('body>=0:lock', 'body>=0:lock');
  rejects('relevance>=2', 'relevance>=2');
  rejects('relevance>=abc', 'relevance>=abc');
  rejects('heading:xml', 'heading:xml');
  rejects('title:the', 'title:the');
  rejects('title:event loop', 'title:event loop');
  rejects('title:xml||body:xml', 'empty clause');
  rejects('title:"event loop', 'unclosed');
  rejects('   ', 'empty');
});

test('clauses match on stems: "checkpoints" finds "Checkpoint"', () => {
  const rule = parseHotPredicate('title:checkpoints');
  assert.equal(rule.isHot(page('Checkpoint tuning', 'nothing here')), true);
  assert.equal(rule.isHot(page('Check points', 'checkpoint checkpoint')), false, 'the title clause looks at the title only');
  assert.equal(rule.isHot(page('WAL', 'checkpoints')), false);
});

test('body>=N counts occurrences of the stem in the body', () => {
  const rule = parseHotPredicate('body>=3:socket');
  assert.equal(rule.isHot(page('x', 'Sockets open; a socket closes; the SOCKET module')), true);
  assert.equal(rule.isHot(page('socket socket socket', 'a socket and another socket')), false);
  assert.equal(parseHotPredicate('body:socket').isHot(page('', 'one socket')), true);
  assert.equal(parseHotPredicate('title>=2:socket').isHot(page('Socket to socket', '')), true);
});

test('clauses are ORed, and relevance>=X reads the page relevance', () => {
  const rule = parseHotPredicate(' title:xml | body>=10:xml | relevance>=0.3 ');
  assert.equal(rule.isHot(page('XML parsing', '')), true);
  assert.equal(rule.isHot(page('Parsing', 'xml '.repeat(10))), true);
  assert.equal(rule.isHot(page('Parsing', 'xml '.repeat(9))), false);
  assert.equal(rule.isHot(page('Parsing', '', 0.3)), true);
  assert.equal(rule.isHot(page('Parsing', '', 0.29)), false);
  assert.match(rule.describe(), /title:xml or body>=10:xml or relevance>=0\.3/);
});

test('quoted phrases match consecutive content words, stop words ignored', () => {
  const rule = parseHotPredicate('body:"event loop"|title:"state of the art"');
  assert.equal(rule.isHot(page('', 'The event loop runs callbacks.')), true);
  assert.equal(rule.isHot(page('', 'Loop over the events of an event source.')), false, 'both words, not as a phrase');
  assert.equal(rule.isHot(page('State-of-the-art crawling', '')), true);
  const twice = parseHotPredicate('body>=2:"event loops"');
  assert.equal(twice.isHot(page('', 'An event loop; another event loop.')), true);
  assert.equal(twice.isHot(page('', 'An event loop; loop events.')), false);
  // A bar inside quotes is part of the phrase, not a separator.
  assert.equal(parseHotPredicate('body:"pipe|line"').isHot(page('', 'pipe line')), true);
});

test('createHotRule: explicit threshold, predicate, or both', () => {
  const threshold = createHotRule(undefined, 0.2);
  assert.equal(threshold.isHot(page('', '', 0.2)), true);
  assert.equal(threshold.isHot(page('', '', 0.19)), false);
  const both = createHotRule('title:xml', 0.5);
  assert.equal(both.isHot(page('XML', '', 0)), true);
  assert.equal(both.isHot(page('HTML', '', 0.6)), true);
  assert.equal(both.isHot(page('HTML', '', 0.4)), false);
  const predicateOnly = createHotRule('title:xml', undefined);
  assert.equal(predicateOnly.isHot(page('HTML', '', 0.99)), false, 'a predicate alone sets no relevance bar');
  assert.throws(() => createHotRule(undefined, 1.5), UsageError);
  assert.throws(() => createHotRule(undefined, Number.NaN), UsageError);
  assert.throws(() => createHotRule(undefined, undefined), UsageError, 'the default needs the query');
});

test('default threshold: relative to the query and to the size of the pages seen', () => {
  const model = new RelevanceModel('socket server');
  const rule = createHotRule(undefined, undefined, model);
  const bar = model.referenceSimilarity();
  assert.equal(rule.isHot(page('', '', bar)), true);
  assert.equal(rule.isHot(page('', '', bar * 0.999)), false);
  assert.match(rule.describe(), /2 query terms/);

  // A longer query sets a higher bar for the same pages.
  assert.ok(new RelevanceModel('socket server client protocol').referenceSimilarity() > bar);

  // A site of long pages lowers the bar: long pages spread their weight over more terms.
  const filler = (n: number, offset: number): string => Array.from({ length: n }, (_, i) => `w${offset + i}q`).join(' ');
  for (let i = 0; i < 100; i++) model.observe(page('', filler(1_500, i * 1_500)));
  const typical = (100 * 1_500 + 100 * backgroundIdf().distinctTermsPerDocument) / 200;
  assert.ok(Math.abs(model.referenceSimilarity() - Math.sqrt(2 / typical)) < 1e-12);
  assert.ok(model.referenceSimilarity() < bar, `${model.referenceSimilarity()} after long pages, ${bar} before`);

  // On that site, a page about the query is hot; one that mentions a query word in passing is not.
  const about = page('Socket server', `socket server socket server socket ${filler(1_000, 1e6)}`);
  const passing = page('Weather', `server ${filler(1_000, 2e6)}`);
  assert.equal(rule.isHot({ ...about, relevance: model.score(about) }), true);
  assert.equal(rule.isHot({ ...passing, relevance: model.score(passing) }), false);
});
