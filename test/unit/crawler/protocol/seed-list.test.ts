import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSeedList } from '../../../../crawler/protocol/seed-list.ts';

describe('parseSeedList', () => {
  it('reads one URL a line, skipping blank lines, # comments and a comment after the URL', () => {
    const list = parseSeedList('# the docs\n\nhttps://a.example/docs/  # start here\r\n   \n\thttp://b.example:8080/\n#https://c.example/\n', 4096);
    assert.deepEqual(list.seeds, [{ line: 3, url: 'https://a.example/docs/' }, { line: 5, url: 'http://b.example:8080/' }]);
    assert.deepEqual(list.problems, []);
  });

  it("keeps a URL's own #fragment, which no space precedes", () => {
    assert.deepEqual(parseSeedList('https://a.example/page#part', 4096).seeds, [{ line: 1, url: 'https://a.example/page#part' }]);
  });

  it('keeps a URL given twice once, at its first line', () => {
    assert.deepEqual(parseSeedList('https://a.example/\nhttps://b.example/\nhttps://a.example/', 4096).seeds.map((s) => s.line), [1, 2]);
  });

  it('reports each bad line with its number and why', () => {
    const list = parseSeedList('https://ok.example/\nwww.example.org\nftp://files.example/\nhttps://a.example/ https://b.example/\nhttp://user:pw@example.org/\nhttps://x.example/' + 'y'.repeat(100), 64);
    assert.deepEqual(list.problems.map((p) => p.line), [2, 3, 4, 5, 6]);
    assert.match(list.problems[0]?.message ?? '', /“www\.example\.org” is not a web address: it should start with http:\/\/ or https:\/\//);
    assert.match(list.problems[1]?.message ?? '', /uses ftp/);
    assert.match(list.problems[2]?.message ?? '', /holds a space: give one URL a line/);
    assert.match(list.problems[3]?.message ?? '', /user name or password/);
    assert.match(list.problems[4]?.message ?? '', /longer than 64 characters/);
    assert.deepEqual(list.seeds.map((s) => s.url), ['https://ok.example/']);
  });
});
