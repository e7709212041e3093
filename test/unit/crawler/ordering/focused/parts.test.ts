import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { capacityFor, KeyIndex } from '../../../../../crawler/ordering/columns.ts';
import { ExpansionTerms, MAX_TERMS } from '../../../../../crawler/ordering/focused/expansion.ts';
import { looksLikeDownload, looksLikeHub } from '../../../../../crawler/ordering/focused/hubs.ts';
import { OnlineLogistic, sigmoid } from '../../../../../crawler/ordering/focused/online-model.ts';
import { identifierWords, QueryMatcher } from '../../../../../crawler/ordering/focused/query-matcher.ts';
import { TemplateStats, YIELD_STEP } from '../../../../../crawler/ordering/focused/template-stats.ts';
import { COPY, FOLDER, urlTemplates } from '../../../../../crawler/ordering/focused/url-templates.ts';

describe('query matcher', () => {
  it('splits identifiers as code is written', () => {
    assert.deepEqual(identifierWords('getSocketTimeout() create_server_socket xml.etree HTTPServer'), ['get', 'socket', 'timeout', 'create', 'server', 'socket', 'xml', 'etree', 'http', 'server']);
  });

  it('weighs query terms by idf², and credits a long stem inside a word by half', () => {
    const m = new QueryMatcher('sockets');
    assert.equal(m.match('Socket programming').score, 1);
    assert.equal(m.match('websockets').score, 0.5);
    assert.equal(m.match('Weather').score, 0);
    const log = new QueryMatcher('logging');
    assert.equal(log.match('logical decoding').score, 0, 'a three-letter stem counts only as a whole word');
    const two = new QueryMatcher('working with submodules');
    assert.ok(two.match('submodules').score > 0.5, 'the rare term carries the query');
    assert.ok(two.match('working').score < 0.5);
    assert.ok(Math.abs(two.weights().reduce((a, b) => a + b, 0) - 1) < 1e-12);
  });

  it('says which query terms a text names, one bit per term', () => {
    const m = new QueryMatcher('triggers and trigger functions');
    assert.deepEqual(m.queryTerms, ['trigger', 'function']);
    assert.equal(m.match('CREATE TRIGGER').terms, 0b01);
    assert.equal(m.match('Mathematical Functions and Operators').terms, 0b10);
    assert.equal(m.match('Trigger Functions').terms, 0b11);
    assert.equal(m.match('Event triggers').terms, 0b01, 'a stem inside a longer word names its term too');
    assert.equal(m.matchWords(['sql', 'createtrigger']).terms, 0b01);
    assert.equal(m.match('Indexes').terms, 0);
  });

  it('a hyphenated word is a phrase: its parts count only together', () => {
    const m = new QueryMatcher('write-ahead logging and checkpoints');
    assert.equal(m.match('Writing Trigger Functions in C').score, 0, 'write alone is not write-ahead');
    assert.equal(m.match('Write-Ahead Log').terms, 0b0111);
    assert.equal(m.match('Logging').terms, 0b0100, 'logging is a query word outside the phrase too');
    const quoted = new QueryMatcher('"table scan" costs');
    assert.equal(quoted.match('table of contents').score, 0);
    assert.ok(quoted.match('Sequential table scans').score > 0);
  });

  it('an acronym the judge saw defined names its phrase, also inside an identifier', () => {
    const m = new QueryMatcher('write-ahead logging and checkpoints');
    assert.equal(m.match('WAL Configuration').score, 0);
    m.addSynonym('wal', ['write', 'ahead', 'log']);
    assert.equal(m.match('WAL Configuration').terms, 0b0111);
    assert.equal(m.match('pg_resetwal').terms, 0b0111);
    assert.ok(m.match('pg_resetwal').score < m.match('WAL').score, 'inside a word it earns half');
    assert.equal(m.match('unwalled').score, 0, 'only at a word\'s start or end');
  });

  it('matches a search index\'s stems and the feedback terms', () => {
    const m = new QueryMatcher('socket servers');
    assert.ok(Math.abs(m.matchTerms(new Set(['socket', 'server', 'bind'])) - 1) < 1e-12);
    assert.equal(m.matchExpansion('WAL files'), 0, 'no feedback terms yet');
    m.setExpansion(['wal', 'checkpoint']);
    assert.equal(m.matchExpansion('WAL files'), 0.5);
    assert.equal(m.matchExpansion('http://d.test/wal-intro.html'), 0.5, 'a URL is split into its words');
  });
});

describe('URL templates', () => {
  it('wildcard the file name (folder) and each other part (copies), dot-parts included', () => {
    const [folder, ...copies] = urlTemplates('http://d.test/en/howto/sockets.html');
    assert.equal(folder?.kind, FOLDER);
    assert.ok(copies.every((t) => t.kind === COPY) && copies.length >= 2);
    const key = (url: string, i: number): number | undefined => urlTemplates(url)[i]?.key;
    assert.equal(key('http://d.test/en/howto/sockets.html', 1), key('http://d.test/fr/howto/sockets.html', 1), 'language copies share a copy template');
    assert.equal(key('http://d.test/en/howto/a.html', 0), key('http://d.test/en/howto/b.html', 0), 'one folder');
    assert.equal(urlTemplates('http://d.test/ch06.de.html')[1]?.key, urlTemplates('http://d.test/ch06.fr.html')[1]?.key, 'a language in the file name');
    assert.notEqual(key('http://d.test/en/howto/a.html', 0), key('http://e.test/en/howto/a.html', 0), 'hosts differ');
    assert.deepEqual(urlTemplates('not a url'), []);
  });

  it('keep a rounded yield per template and say when it moved', () => {
    const t = new TemplateStats();
    t.ensure(10);
    t.add(1, 'http://d.test/en/a.html');
    t.add(2, 'http://d.test/fr/a.html');
    t.add(3, 'http://d.test/fr/b.html');
    assert.equal(t.copyYield(2, 0.3), 0, 'nothing fetched yet');
    t.record(1, 1);
    const visited: number[] = [];
    t.forEachMoved(1, 0.3, (url) => visited.push(url) > 0);
    assert.deepEqual([...new Set(visited)].sort(), [1, 2], 'the page\'s folder (1) and the URLs of its copy template (1 and its French copy 2), no others');
    const y = t.copyYield(2, 0.3);
    assert.ok(y > 0 && Math.abs(y / YIELD_STEP - Math.round(y / YIELD_STEP)) < 1e-6, `${y} is a multiple of the step`);
    assert.equal(t.copyYield(3, 0.3), 0);
    t.regrade(1, -1);
    assert.ok(t.copyYield(2, 0.3) < 0, 'a label taking the grade back lowers the yield');
  });

  it('drop a URL from their chains once a walk gives it up', () => {
    const t = new TemplateStats();
    t.ensure(10);
    for (const id of [1, 2, 3]) t.add(id, `http://d.test/en/${id}.html`);
    t.record(2, 1);
    const first: number[] = [];
    t.forEachMoved(2, 0.3, (url) => first.push(url) > 0 && url !== 2);
    assert.deepEqual([...new Set(first)].sort(), [1, 2, 3]);
    t.record(3, 0);
    const second: number[] = [];
    t.forEachMoved(3, 0.3, (url) => second.push(url) > 0);
    assert.deepEqual([...new Set(second)].sort(), [1, 3], 'the folder\'s walk no longer visits 2');
  });
});

describe('hubs and downloads', () => {
  it('tell listings by short names and listing anchors, not by any "index"', () => {
    for (const url of ['http://d.test/genindex-A.html', 'http://d.test/py-modindex.html', 'http://d.test/contents.html', 'http://d.test/de/index.html', 'http://d.test/index.de.html', 'http://d.test/docs/']) {
      assert.ok(looksLikeHub(url, ''), url);
    }
    assert.equal(looksLikeHub('http://d.test/git-update-index.html', 'git-update-index(1)'), false);
    assert.equal(looksLikeHub('http://d.test/lang_createindex.html', 'CREATE INDEX'), false);
    assert.ok(looksLikeHub('http://d.test/x.html', 'General Index'));
    assert.ok(looksLikeHub('http://d.test/docs.html', 'Documentation'));
    assert.ok(looksLikeHub('http://d.test/funclist.html', 'List of C-language APIs'));
  });

  it('tell downloads by extension', () => {
    assert.ok(looksLikeDownload('http://d.test/manual.pdf'));
    assert.ok(looksLikeDownload('http://d.test/a/b.tar.gz'));
    assert.equal(looksLikeDownload('http://d.test/manual.html'), false);
    assert.equal(looksLikeDownload('http://d.test/dir/'), false);
  });
});

describe('online logistic model', () => {
  it('starts at its priors and learns soft targets, sparse features too', () => {
    const model = new OnlineLogistic([0, 1]);
    assert.equal(model.score([1, 0.5], []), 0.5);
    for (let i = 0; i < 300; i++) {
      model.learn([1, 1], [7], 0.9);
      model.learn([1, 0], [8], 0.1);
    }
    assert.ok(Math.abs(sigmoid(model.score([1, 1], [7])) - 0.9) < 0.05, `${sigmoid(model.score([1, 1], [7]))}`);
    assert.ok(Math.abs(sigmoid(model.score([1, 0], [8])) - 0.1) < 0.05);
    assert.ok(model.sparseWeights.weight(7) > model.sparseWeights.weight(8));
    assert.equal(model.examples, 600);
  });

  it('a feature never seen keeps its prior weight', () => {
    const model = new OnlineLogistic([0, 3, -2]);
    for (let i = 0; i < 100; i++) model.learn([1, 0, 0], [], 0.2);
    assert.equal(model.weights[1], 3);
    assert.equal(model.weights[2], -2);
  });
});

describe('feedback terms', () => {
  it('keep at most a few terms, each in two hot pages and rare on the site', () => {
    const e = new ExpansionTerms(['checkpoint']);
    for (let i = 0; i < 50; i++) e.observe(['page', `filler${i}`], false);
    const extra = ['fsync', 'flush', 'log', 'segment', 'redo', 'archive'];
    // wal in every hot page; each other term in two of them.
    for (let i = 0; i < 6; i++) e.observe(['checkpoint', 'wal', 'page', `t${i}`, extra[i] as string, extra[(i + 1) % 6] as string], true);
    e.observe(['once'], true);
    e.refresh();
    assert.ok(e.terms.length <= MAX_TERMS);
    assert.equal(e.terms[0], 'wal', 'the term of every hot page ranks first');
    assert.equal(e.terms.length, MAX_TERMS);
    assert.ok(!e.terms.includes('checkpoint'), 'query terms are not feedback');
    assert.ok(!e.terms.includes('page'), 'a term on most pages is not feedback');
    assert.ok(!e.terms.includes('once'), 'a term in one hot page is not feedback');
  });
});

describe('columns', () => {
  it('grow by half and map keys to dense indexes', () => {
    assert.equal(capacityFor(16, 17), 24);
    assert.ok(capacityFor(1000, 5000) >= 5000);
    const index = new KeyIndex();
    const keys = Array.from({ length: 5000 }, (_, i) => (i * 2654435761) & 0x3fffffff);
    const first = keys.map((k) => index.intern(k));
    assert.deepEqual(first, keys.map((_, i) => i));
    assert.deepEqual(keys.map((k) => index.intern(k)), first, 'a known key keeps its index across growth');
    assert.equal(index.size, 5000);
    assert.deepEqual(keys.map((k) => index.indexOf(k)), first, 'a known key is found without being interned again');
    assert.equal(index.indexOf(0x3fffffff - 1), undefined, 'an unknown key has no index');
    assert.equal(index.size, 5000);
  });
});
