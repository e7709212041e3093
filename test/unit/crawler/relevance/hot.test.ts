import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError } from '../../../../crawler/errors.ts';
import { BEST_PAGES, createHotRule, parseHotPredicate, PRIOR_BEST_EVIDENCE, RelativeToBestRule, SHARE_OF_BEST, type HotPage } from '../../../../crawler/relevance/hot.ts';
import { evidenceOfRelevance, relevanceOfEvidence } from '../../../../crawler/relevance/relevance.ts';
import { termCounts } from '../../../../crawler/relevance/text.ts';

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
  assert.equal(createHotRule(undefined, 0.2).threshold?.(), 0.2, 'a chosen threshold is a bar');
  assert.equal(createHotRule('title:xml', undefined).threshold, undefined, 'a predicate is not a bar');
});

test('default rule: a bar relative to the best pages judged so far', () => {
  const rule = createHotRule(undefined, undefined) as RelativeToBestRule;
  assert.ok(rule instanceof RelativeToBestRule);
  const bar = (): number => evidenceOfRelevance(rule.threshold());
  // Before any page: the prior best pages.
  assert.ok(Math.abs(bar() - SHARE_OF_BEST * PRIOR_BEST_EVIDENCE) < 1e-12);
  // Pages without evidence change nothing; a page with evidence takes one prior slot.
  rule.observe(0);
  assert.ok(Math.abs(bar() - SHARE_OF_BEST * PRIOR_BEST_EVIDENCE) < 1e-12);
  rule.observe(relevanceOfEvidence(5));
  const afterFive = bar();
  assert.ok(Math.abs(afterFive - (SHARE_OF_BEST * (5 + (BEST_PAGES - 1) * PRIOR_BEST_EVIDENCE)) / BEST_PAGES) < 1e-12);
  // Only the best BEST_PAGES count: twenty pages of evidence 1..20 leave 11..20.
  const before: number[] = [];
  for (let e = 1; e <= 20; e++) {
    rule.observe(relevanceOfEvidence(e));
    before.push(bar());
  }
  const best = Array.from({ length: BEST_PAGES }, (_, i) => 20 - i).reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(bar() - (SHARE_OF_BEST * best) / BEST_PAGES) < 1e-9, `${bar()}`);
  // A weak early page takes a prior slot and lowers the bar; once BEST_PAGES pages have evidence it only rises.
  assert.ok(before[0]! < afterFive, 'a page weaker than the prior lowered the bar');
  for (let i = BEST_PAGES; i < before.length; i++) assert.ok(before[i]! >= before[i - 1]!, 'the bar never falls once the best pages are real');
  // A page is hot at the bar and not below it.
  assert.equal(rule.isHot(page('', '', rule.threshold())), true);
  assert.equal(rule.isHot(page('', '', rule.threshold() * 0.999)), false);
  assert.match(rule.describe(), /best pages/);
});
