import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeNoType, documentSummary, TYPE_CHOICES, typeMatches, typeQuery } from '../../../../renderer/src/lib/page-types.ts';

describe('page types in the library', () => {
  test('a choice becomes the listPages filter; all asks for none', () => {
    assert.deepEqual(typeQuery('all'), {});
    assert.deepEqual(typeQuery('pdf'), { type: 'pdf' });
    assert.deepEqual(typeQuery('document'), { type: 'document' });
    assert.deepEqual(TYPE_CHOICES.map((c) => c.value), ['all', 'html', 'document', 'pdf', 'text']);
  });

  test('search hits pass the choice as the list would', () => {
    assert.ok(typeMatches('all', 'html'));
    assert.ok(typeMatches('document', 'pdf') && typeMatches('document', 'text'));
    assert.ok(!typeMatches('document', 'html'));
    assert.ok(typeMatches('pdf', 'pdf') && !typeMatches('pdf', 'text'));
    assert.ok(typeMatches('html', 'html') && !typeMatches('html', 'pdf'));
  });

  test('a document is summed up by its type, pages and size; a web page is not', () => {
    assert.equal(documentSummary({ type: 'pdf', pageCount: 52, bodyBytes: 370_123 }), 'PDF · 52 pages · 370 kB');
    assert.equal(documentSummary({ type: 'pdf', pageCount: 1, bodyBytes: 1_500 }), 'PDF · 1 page · 1.5 kB');
    assert.equal(documentSummary({ type: 'pdf', pageCount: 12_345, bodyBytes: 45_000_000 }), 'PDF · 12,345 pages · 45 MB');
    assert.equal(documentSummary({ type: 'text', pageCount: 1, bodyBytes: 122 }), 'plain text · 122 B');
    assert.equal(documentSummary({ type: 'html', pageCount: null, bodyBytes: 9_000 }), null);
  });

  test('an empty filtered list says why in words', () => {
    assert.match(describeNoType('document'), /no PDF or plain-text file/);
    assert.equal(describeNoType('pdf'), 'No PDF matches.');
  });
});
