import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_SEEDS, parseSeedLines } from '../../../../renderer/src/lib/seeds.ts';

describe('parseSeedLines', () => {
  test('keeps http and https addresses, one per line, skipping blanks and repeats', () => {
    const parsed = parseSeedLines('https://www.sqlite.org/docs.html\n\n  http://127.0.0.1:8080/  \r\nhttps://www.sqlite.org/docs.html\n');
    assert.deepEqual(parsed.urls, ['https://www.sqlite.org/docs.html', 'http://127.0.0.1:8080/']);
    assert.deepEqual(parsed.problems, []);
  });

  test('reports each bad line by number, in words', () => {
    const parsed = parseSeedLines('https://ok.example/\nwww.example.org\nftp://files.example/\nhttps://\nhttp://user:pw@example.org/');
    assert.deepEqual(parsed.urls, ['https://ok.example/']);
    assert.equal(parsed.problems.length, 4);
    assert.match(parsed.problems[0] ?? '', /^Line 2: “www\.example\.org” is not a web address: it should start with http:\/\/ or https:\/\/\.$/);
    assert.match(parsed.problems[1] ?? '', /^Line 3: .* uses ftp, but only http and https/);
    assert.match(parsed.problems[2] ?? '', /^Line 4: /);
    assert.match(parsed.problems[3] ?? '', /^Line 5: .*user name or password/);
  });

  test('shortens long bad lines when quoting them', () => {
    const parsed = parseSeedLines(`not a url ${'x'.repeat(100)}`);
    assert.equal(parsed.problems.length, 1);
    assert.ok((parsed.problems[0] ?? '').includes('…”'));
    assert.ok((parsed.problems[0] ?? '').length < 160);
  });

  test('refuses more seeds than the service accepts', () => {
    const lines = Array.from({ length: MAX_SEEDS + 1 }, (_, i) => `https://example.org/${i}`).join('\n');
    const parsed = parseSeedLines(lines);
    assert.equal(parsed.urls.length, MAX_SEEDS + 1);
    assert.match(parsed.problems.at(-1) ?? '', /at most 1000/);
  });
});
