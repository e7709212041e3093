import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getSurt } from 'warcio';
import { cdxjLine, cdxTimestamp, indexMime, sortCdxjLines, surt } from '../../../../../crawler/export/wacz/cdxj.ts';

describe('export: SURT keys', () => {
  it('matches known SURT forms', () => {
    assert.equal(surt('http://www.example.com/a?b=1'), 'com,example)/a?b=1');
    assert.equal(surt('https://example.com/'), 'com,example)/');
    assert.equal(surt('http://www2.example.com/index.html'), 'com,example)/index.html');
    assert.equal(surt('https://docs.python.org/3/library/os.html'), 'org,python,docs)/3/library/os.html');
    assert.equal(surt('http://example.com:8080/Path/To?z=2&a=1'), 'com,example:8080)/path/to?a=1&z=2');
    assert.equal(surt('https://example.com:443/'), 'com,example)/', 'a default port is not part of the key');
    assert.equal(surt('http://127.0.0.1:41601/db/wal-0'), '1,0,0,127:41601)/db/wal-0');
    assert.equal(surt('mailto:someone@example.com'), 'mailto:someone@example.com');
  });

  it('agrees with warcio.js getSurt, which ReplayWeb.page looks URLs up with', () => {
    const urls = [
      'http://www.example.com/a?b=1',
      'https://www.Example.com/A/B?x=%20y&b=2&a=1',
      'https://sub.domain.example.co.uk/path;param?q',
      'http://example.com',
      'https://www3.example.org/~user/page.html?utm=1&id=5',
      'http://[::1]:8080/x',
      'https://xn--bcher-kva.example/b%C3%BCcher',
      'http://wwwexample.com/not-a-www-label',
    ];
    for (const url of urls) assert.equal(surt(url), getSurt(url), url);
  });
});

describe('export: CDXJ lines', () => {
  it('writes the timestamp as 14 UTC digits', () => {
    assert.equal(cdxTimestamp(Date.UTC(2026, 10, 22, 4, 40, 22, 123)), '20261122044022');
  });

  it('writes a line in warcio.js cdx-index form', () => {
    const line = cdxjLine({
      url: 'https://www.example.com/a?b=1',
      date: Date.UTC(2026, 0, 2, 3, 4, 5, 600),
      mime: 'text/html',
      status: 200,
      payloadDigest: 'sha256:0123abcd',
      offset: 1143,
      length: 568,
      filename: 'data.warc.gz',
    });
    assert.equal(
      line,
      'com,example)/a?b=1 20260102030405 {"url":"https://www.example.com/a?b=1","mime":"text/html","status":"200","digest":"0123abcd","length":"568","offset":"1143","filename":"data.warc.gz"}',
    );
  });

  it('writes a revisit without a payload digest with no digest, as warcio.js indexes it', () => {
    const line = cdxjLine({
      url: 'https://example.com/',
      date: Date.UTC(2026, 0, 2, 3, 4, 5),
      mime: 'warc/revisit',
      status: 200,
      payloadDigest: null,
      offset: 10,
      length: 20,
      filename: 'data.warc.gz',
    });
    assert.equal(line, 'com,example)/ 20260102030405 {"url":"https://example.com/","mime":"warc/revisit","status":"200","length":"20","offset":"10","filename":"data.warc.gz"}');
  });

  it('takes the MIME type from a Content-Type value', () => {
    assert.equal(indexMime('text/html; charset=utf-8'), 'text/html');
    assert.equal(indexMime(' application/pdf '), 'application/pdf');
    assert.equal(indexMime(null), null);
  });

  it('sorts by key, then timestamp, byte-wise', () => {
    const lines = [
      'com,example)/b 20260101000000 {}',
      'com,example)/a 20260102000000 {}',
      'com,example)/ 20260101000000 {}',
      'com,example)/a 20260101000000 {}',
      'com,example)/A 20260101000000 {}',
      'com,example)/a?x=1 20250101000000 {}',
    ];
    assert.deepEqual(sortCdxjLines([...lines]), [
      'com,example)/ 20260101000000 {}',
      'com,example)/A 20260101000000 {}',
      'com,example)/a 20260101000000 {}',
      'com,example)/a 20260102000000 {}',
      'com,example)/a?x=1 20250101000000 {}',
      'com,example)/b 20260101000000 {}',
    ]);
  });
});
