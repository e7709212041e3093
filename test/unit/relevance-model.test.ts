import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BackgroundIdf } from '../../crawler/relevance/background-idf.ts';
import { RelevanceModel, type PageTerms } from '../../crawler/relevance/relevance.ts';
import { termCounts } from '../../crawler/relevance/text.ts';
import { UsageError } from '../../crawler/errors.ts';

function flatBackground(rate: number, distinctTermsPerDocument = 300): BackgroundIdf {
  return { logDocumentRate: () => Math.log(rate), distinctTermsPerDocument };
}

function page(title: string, body: string): PageTerms & { title: string; text: string } {
  return { title, text: body, titleTerms: termCounts(title), bodyTerms: termCounts(body) };
}

const FILLER = 'kitchen garden weather holiday travel music football painting recipe orchestra';

test('a page made of exactly the query scores 1; a page sharing no term scores 0', () => {
  const model = new RelevanceModel('TCP sockets and network servers');
  assert.deepEqual(model.queryTerms, ['tcp', 'socket', 'network', 'server']);
  const identical = model.score(page('', 'tcp socket network server'));
  assert.ok(Math.abs(identical - 1) < 1e-12, `identical: ${identical}`);
  // Same terms, other surface forms: stems make them the same vector.
  assert.ok(Math.abs(model.score(page('', 'Servers: the network of TCP sockets')) - 1) < 1e-12);
  assert.equal(model.score(page('Holiday recipes', FILLER)), 0);
  assert.equal(model.score(page('', '')), 0);
});

test('scores lie in [0, 1] and grow with the share of the page the query takes', () => {
  const model = new RelevanceModel('sockets');
  const once = model.score(page('', `socket ${FILLER}`));
  const often = model.score(page('', `socket socket socket socket ${FILLER}`));
  const diluted = model.score(page('', `socket ${FILLER} ${FILLER.split(' ').map((w) => `${w}s extra${w}`).join(' ')}`));
  for (const s of [once, often, diluted]) assert.ok(s > 0 && s < 1, String(s));
  assert.ok(often > once, 'repetition raises the score');
  assert.ok(diluted < once, 'more unrelated vocabulary lowers it');
});

test('a query word in the title outweighs the same word in the body', () => {
  const model = new RelevanceModel('checkpoint tuning');
  // The same words on both pages; only which one is in the title differs.
  const inTitle = page('Checkpoint', `lighthouse ${FILLER}`);
  const inBody = page('Lighthouse', `checkpoint ${FILLER}`);
  assert.ok(model.score(inTitle) > model.score(inBody), `title ${model.score(inTitle)} > body ${model.score(inBody)}`);
  const plain = new RelevanceModel('checkpoint tuning', { titleWeight: 1 });
  assert.ok(Math.abs(plain.score(inTitle) - plain.score(inBody)) < 1e-12, 'with weight 1 a title word is a body word');
});

test('the score uses the current idf: a query term every page has loses weight', () => {
  const model = new RelevanceModel('alpha beta', { background: flatBackground(0.01) });
  const alphaPage = page('', `alpha alpha alpha ${FILLER}`);
  const betaPage = page('', `beta beta beta ${FILLER}`);
  assert.ok(Math.abs(model.score(alphaPage) - model.score(betaPage)) < 1e-12, 'equal before any page');
  for (let n = 0; n < 300; n++) model.observe(page('', `alpha page${n} ${FILLER}`));
  assert.equal(model.idf.documents, 300);
  assert.ok(model.score(betaPage) > model.score(alphaPage) * 1.5, 'the rare query term now carries the query');
});

test('similarityToText: words as written or term counts, same idf as pages', () => {
  const model = new RelevanceModel('socket programming');
  const anchor = model.similarityToText(['Socket', 'Programming', 'HOWTO']);
  assert.ok(anchor > 0.5 && anchor < 1, String(anchor));
  assert.equal(model.similarityToText(['Sockets', 'the', 'programming']), model.similarityToText(['socket', 'programming']), 'stop words dropped, words stemmed');
  assert.ok(Math.abs(model.similarityToText(['socket', 'programming']) - 1) < 1e-12);
  assert.equal(model.similarityToText(termCounts('socket programming howto')), anchor);
  assert.equal(model.similarityToText(['index', 'next', 'previous']), 0);
  assert.equal(model.similarityToText([]), 0);
  assert.ok(model.similarityToText(['socket']) > model.similarityToText(['socket', 'module', 'index']));
});

test('similarityToTerms takes terms as text.ts makes them, without stemming them again', () => {
  const model = new RelevanceModel('parsing messages');
  const terms = [...termCounts('Parsing email messages').keys()];
  assert.deepEqual(terms, ['pars', 'email', 'messag']);
  assert.equal(model.similarityToTerms(terms), model.similarityToText(['Parsing', 'email', 'messages']));
  assert.ok(model.similarityToTerms(['pars', 'messag']) > 0.999);
  assert.equal(model.similarityToTerms(['email']), 0);
});

test('a query with no content words is a usage error', () => {
  assert.throws(() => new RelevanceModel('the of and 42'), (e: unknown) => e instanceof UsageError && e.code === 'USAGE');
});

test('reference similarity is the score of a typical page that uses each query term as an average term', () => {
  // Flat background, no page seen: every term has the same idf, a typical page has 200 terms.
  const model = new RelevanceModel('alpha beta gamma', { background: flatBackground(0.01, 200) });
  const words = ['alpha', 'beta', 'gamma', ...Array.from({ length: 197 }, (_, i) => `word${i}x`)];
  const reference = page('', words.join(' '));
  assert.equal(reference.bodyTerms.size, 200);
  assert.ok(Math.abs(model.referenceSimilarity() - Math.sqrt(3 / 200)) < 1e-12);
  assert.ok(Math.abs(model.score(reference) - model.referenceSimilarity()) < 1e-12);
});

test('scoring a 5,000-term page takes well under a millisecond', (t) => {
  const model = new RelevanceModel('socket server');
  const body = new Map<string, number>();
  for (let i = 0; i < 5_000; i++) body.set(`term${i}`, 1 + (i % 7));
  body.set('socket', 12);
  const big = { titleTerms: termCounts('socket server howto'), bodyTerms: body };
  for (let n = 0; n < 200; n++) model.observe({ titleTerms: new Map(), bodyTerms: new Map([...body].slice(n * 20, n * 20 + 400)) });
  for (let i = 0; i < 50; i++) model.score(big);
  // The best of a few batches: a loaded test machine should not fail a speed claim.
  let perPage = Infinity;
  for (let batch = 0; batch < 5; batch++) {
    const start = performance.now();
    for (let i = 0; i < 100; i++) model.score(big);
    perPage = Math.min(perPage, (performance.now() - start) / 100);
  }
  assert.ok(perPage < 1, `${perPage.toFixed(3)} ms per page`);
  t.diagnostic(`score, 5,000-term page: ${(perPage * 1000).toFixed(0)} µs`);
});
