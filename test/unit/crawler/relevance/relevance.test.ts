import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BackgroundIdf } from '../../../../crawler/relevance/background-idf.ts';
import { evidenceOfRelevance, RelevanceModel, relevanceOfEvidence, type PageTerms } from '../../../../crawler/relevance/relevance.ts';
import { termCounts } from '../../../../crawler/relevance/text.ts';
import { UsageError } from '../../../../crawler/errors.ts';

function flatBackground(rate: number): BackgroundIdf {
  return { logDocumentRate: () => Math.log(rate) };
}

function page(title: string, body: string): PageTerms {
  return { titleTerms: termCounts(title), bodyTerms: termCounts(body) };
}

const FILLER = 'kitchen garden weather holiday travel music football painting recipe orchestra';

test('evidence is the weighted mean of ln(1 + mentions) of the query terms', () => {
  // Flat background, no page seen: every query term weighs the same.
  const model = new RelevanceModel('sockets and servers', { background: flatBackground(0.01) });
  assert.deepEqual(model.queryTerms, ['socket', 'server']);
  assert.equal(model.evidence(page('Holiday recipes', FILLER)), 0, 'no query term: no evidence');
  assert.equal(model.score(page('', '')), 0);
  const s = model.evidence(page('', `socket socket socket server ${FILLER}`));
  assert.ok(Math.abs(s - (Math.log(4) + Math.log(2)) / 2) < 1e-12, `S = ${s}`);
  assert.ok(Math.abs(model.score(page('', `socket socket socket server ${FILLER}`)) - s / (1 + s)) < 1e-12, 'relevance = S / (1 + S)');
});

test('more mentions mean more relevance, and a long page is not punished for its length', () => {
  const model = new RelevanceModel('sockets');
  const once = model.score(page('', `socket ${FILLER}`));
  const often = model.score(page('', `socket socket socket socket ${FILLER}`));
  const long = model.score(page('', `socket ${FILLER} ${FILLER.split(' ').map((w) => `${w}s extra${w}`).join(' ')}`));
  for (const r of [once, often, long]) assert.ok(r > 0 && r < 1, String(r));
  assert.ok(often > once, 'repetition raises the score');
  assert.equal(long, once, 'unrelated words neither add nor take away');
});

test('a query word in the title counts as TITLE_WEIGHT mentions in the body', () => {
  const model = new RelevanceModel('checkpoint tuning', { background: flatBackground(0.01) });
  assert.ok(Math.abs(model.evidence(page('Checkpoint', FILLER)) - model.evidence(page('', `checkpoint checkpoint checkpoint ${FILLER}`))) < 1e-12);
  const plain = new RelevanceModel('checkpoint tuning', { background: flatBackground(0.01), titleWeight: 1 });
  assert.equal(plain.evidence(page('Checkpoint', FILLER)), plain.evidence(page('', `checkpoint ${FILLER}`)));
});

test('discounted mentions (a site\'s navigation) do not count', () => {
  const model = new RelevanceModel('interpolation');
  const withNavigation = page('', `interpolation interpolation ${FILLER}`);
  const navigation = termCounts('Interpolation');
  assert.ok(model.evidence(withNavigation, navigation) < model.evidence(withNavigation));
  assert.equal(model.evidence(withNavigation, navigation), model.evidence(page('', `interpolation ${FILLER}`)));
  assert.equal(model.evidence(page('', 'interpolation'), termCounts('interpolation interpolation')), 0, 'never below zero');
});

test('idf: a query term every page has loses weight', () => {
  const model = new RelevanceModel('alpha beta', { background: flatBackground(0.01) });
  const alphaPage = page('', `alpha alpha alpha ${FILLER}`);
  const betaPage = page('', `beta beta beta ${FILLER}`);
  assert.ok(Math.abs(model.evidence(alphaPage) - model.evidence(betaPage)) < 1e-12, 'equal before any page');
  for (let n = 0; n < 300; n++) model.observe(page('', `alpha page${n} ${FILLER}`));
  assert.equal(model.idf.documents, 300);
  assert.ok(model.evidence(betaPage) > model.evidence(alphaPage) * 1.5, 'the rare query term now carries the query');
});

test('burstiness: a term that comes once per page weighs less than one that comes in bursts', () => {
  const model = new RelevanceModel('alpha beta', { background: flatBackground(0.01) });
  // Both terms on the same number of pages (same idf); alpha once each, beta eight times each.
  for (let n = 0; n < 50; n++) {
    model.observe(page('', `alpha page${n}`));
    model.observe(page('', `${'beta '.repeat(8)} other${n}`));
  }
  assert.ok(Math.abs(model.idf.idf('alpha') - model.idf.idf('beta')) < 1e-12);
  assert.ok(model.evidence(page('', 'beta beta')) > model.evidence(page('', 'alpha alpha')));
});

test('relevance and evidence convert both ways', () => {
  for (const s of [0, 0.3, 1, 4.5]) assert.ok(Math.abs(evidenceOfRelevance(relevanceOfEvidence(s)) - s) < 1e-12);
  assert.equal(evidenceOfRelevance(1), Number.POSITIVE_INFINITY);
});

test('a query with no content words is a usage error', () => {
  assert.throws(() => new RelevanceModel('the of and 42'), (e: unknown) => e instanceof UsageError && e.code === 'USAGE');
});
