import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_URL_LENGTH } from '../../../../crawler/url/canonical.ts';
import { detectTrap, TRAP_DEFAULTS, type TrapOptions } from '../../../../crawler/url/traps.ts';

// A fixed present, so the calendar rule does not drift with the clock.
const NOW = Date.UTC(2026, 5, 15);
const trap = (url: string, opts: TrapOptions = {}): string | null => detectTrap(new URL(url), { now: NOW, ...opts });

function assertNoTrap(urls: readonly string[], opts?: TrapOptions): void {
  for (const url of urls) assert.equal(trap(url, opts), null, url);
}

describe('ordinary URLs are not traps', () => {
  test('typical pages', () => {
    assertNoTrap([
      'https://example.com/',
      'https://en.wikipedia.org/wiki/Web_crawler',
      'https://example.com/blog/2019/05/14/my-post',
      'https://example.com/2024/07/summer-sale',
      'https://news.example.com/2026/06/15/today',
      'https://shop.example.com/products/2100/12',
      'https://forum.example.com/topic/2345/12',
      'https://example.com/search?q=crawler&page=3&lang=en',
      'https://example.com/docs/v1/api/v2/guide',
      'https://example.com/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p',
      'https://example.com/item?id=20310714',
      'https://example.com/cars?year=2019',
      'https://example.com/events?date=2025-09-01',
      'https://example.com/calendar/2026/07/',
      'https://example.com/a?sid=12',
    ]);
  });
});

describe('url-too-long', () => {
  test('flags hrefs longer than the limit', () => {
    const long = `https://example.com/${'a'.repeat(MAX_URL_LENGTH)}`;
    assert.equal(trap(long), 'url-too-long');
    assert.equal(trap(long, { maxUrlLength: 10_000 }), null);
    assert.equal(trap('https://example.com/abcdef', { maxUrlLength: 20 }), 'url-too-long');
  });
});

describe('trap:deep-path', () => {
  test(`flags more than ${TRAP_DEFAULTS.maxPathDepth} segments`, () => {
    const segments = (n: number) => Array.from({ length: n }, (_, i) => `s${i}`).join('/');
    assert.equal(trap(`https://example.com/${segments(16)}`), null);
    assert.equal(trap(`https://example.com/${segments(16)}/`), null, 'a trailing slash adds no segment');
    assert.equal(trap(`https://example.com/${segments(17)}`), 'trap:deep-path');
    assert.equal(trap(`https://example.com/${segments(17)}`, { maxPathDepth: 20 }), null);
  });

  test('counts empty segments, so runs of slashes are caught', () => {
    assert.equal(trap(`https://example.com/a${'/'.repeat(20)}b`), 'trap:deep-path');
  });
});

describe('trap:repeated-segments', () => {
  test('flags a segment that occurs three times or more', () => {
    for (const url of [
      'https://example.com/a/b/a/b/a/b',
      'https://example.com/x/x/x',
      'https://example.com/a/1/a/2/a/3',
      'https://example.com/docs/img/docs/img/docs/img/logo.png',
      'https://example.com/A/a/a',
      'https://example.com/p;v=1/p;v=2/p;v=3',
    ]) {
      assert.equal(trap(url), 'trap:repeated-segments', url);
    }
  });

  test('allows a segment twice, and the threshold is an option', () => {
    assert.equal(trap('https://example.com/a/b/a/b'), null);
    assert.equal(trap('https://example.com/a/b/a/b', { maxSegmentRepeats: 1 }), 'trap:repeated-segments');
    assert.equal(trap('https://example.com/x/x/x', { maxSegmentRepeats: 3 }), null);
  });
});

describe('trap:query-explosion', () => {
  test('flags more than 10 parameters', () => {
    const params = (n: number) => Array.from({ length: n }, (_, i) => `p${i}=v`).join('&');
    assert.equal(trap(`https://example.com/s?${params(10)}`), null);
    assert.equal(trap(`https://example.com/s?${params(11)}`), 'trap:query-explosion');
    assert.equal(trap(`https://example.com/s?${params(11)}`, { maxQueryParams: 11 }), null);
    assert.equal(trap(`https://example.com/s?${params(10)}&&&&&&&&`), null, 'empty pairs are not parameters');
  });

  test('flags a query longer than 512 characters', () => {
    assert.equal(trap(`https://example.com/s?q=${'x'.repeat(510)}`), null);
    assert.equal(trap(`https://example.com/s?q=${'x'.repeat(511)}`), 'trap:query-explosion');
    assert.equal(trap(`https://example.com/s?q=${'x'.repeat(511)}`, { maxQueryLength: 1000 }), null);
  });
});

describe('trap:repeated-params', () => {
  test('flags a parameter name more than twice', () => {
    assert.equal(trap('https://example.com/list?page=2&page=3&page=4'), 'trap:repeated-params');
    assert.equal(trap('https://example.com/list?tag=a&x=1&tag=b&tag=c'), 'trap:repeated-params');
    assert.equal(trap('https://example.com/list?tag=a&tag=b'), null);
    assert.equal(trap('https://example.com/list?page=2&page=3&page=4', { maxParamRepeats: 3 }), null);
  });
});

describe('trap:session-id', () => {
  test('flags session ids in the query and in path parameters', () => {
    assert.equal(trap('https://example.com/a?PHPSESSID=9f8e7d6c5b4a39281706&x=1'), 'trap:session-id');
    assert.equal(trap('https://example.com/a;jsessionid=A1B2C3D4E5F6A7B8C9/b'), 'trap:session-id');
    assert.equal(trap('https://example.com/a?sid=9682993c8daa2c5497996114facdc805'), 'trap:session-id');
  });

  test('leaves short or non-opaque values and other names alone, and can be turned off', () => {
    assertNoTrap(['https://example.com/a?sid=12', 'https://example.com/a?sessionid=abc', 'https://example.com/a?token=9f8e7d6c5b4a39281706']);
    assert.equal(trap('https://example.com/a?PHPSESSID=9f8e7d6c5b4a39281706', { sessionIds: false }), null);
  });
});

describe('trap:calendar', () => {
  test('flags dates more than two years ahead', () => {
    for (const url of [
      'https://example.com/calendar/2031/07/',
      'https://example.com/2031/07/',
      'https://example.com/2031/07/14/post',
      'https://example.com/events?date=2031-07-14',
      'https://example.com/list?month=7&year=2031',
      'https://example.com/agenda?y=2029',
      'https://example.com/p?d=20310714',
      'https://example.com/ev/2031-07-14-party',
      'https://example.com/day?date=2031%2F07%2F14',
      'https://example.com/cal/2040',
    ]) {
      assert.equal(trap(url), 'trap:calendar', url);
    }
    assert.equal(trap('https://example.com/2028/12/'), null, 'two years ahead is still the present');
    assert.equal(trap('https://example.com/2029/01/'), 'trap:calendar');
  });

  test('in a calendar context, flags dates more than two years back', () => {
    assert.equal(trap('https://example.com/calendar/2019/07/'), 'trap:calendar');
    assert.equal(trap('https://example.com/list?month=7&year=2019'), 'trap:calendar');
    assert.equal(trap('https://example.com/tx_calendar.php?view=2019-03'), 'trap:calendar');
    assert.equal(trap('https://example.com/calendar/2024/07/'), null);
    assert.equal(trap('https://example.com/calendar/2023/07/'), 'trap:calendar');
  });

  test('outside a calendar context, past dates are fine unless before the web', () => {
    assertNoTrap(['https://example.com/2019/05/14/my-post', 'https://example.com/news?date=2019-07-14', 'https://example.com/archive/1995/03/']);
    assert.equal(trap('https://example.com/1969/07/20/moon'), 'trap:calendar');
    assert.equal(trap('https://example.com/1969/07/20/moon', { minYear: 1900 }), null);
  });

  test('four-digit ids are not years without date evidence', () => {
    assertNoTrap(['https://example.com/product/2100', 'https://example.com/topic/2345/2', 'https://example.com/item?id=4050', 'https://example.com/o?order=20310714']);
  });

  test('the year window is an option and follows the clock', () => {
    assert.equal(trap('https://example.com/2031/07/', { yearsAhead: 5 }), null);
    assert.equal(trap('https://example.com/calendar/2019/07/', { yearsBehind: 10 }), null);
    assert.equal(trap('https://example.com/2031/07/', { now: Date.UTC(2030, 0, 1) }), null);
    assert.equal(trap('https://example.com/2031/07/', { now: new Date(Date.UTC(2020, 0, 1)) }), 'trap:calendar');
  });
});

describe('detectTrap', () => {
  test('reports the first trap in a fixed order', () => {
    assert.equal(trap('https://example.com/x/x/x?PHPSESSID=9f8e7d6c5b4a39281706'), 'trap:repeated-segments');
    assert.equal(trap('https://example.com/calendar/2031/07/?PHPSESSID=9f8e7d6c5b4a39281706'), 'trap:session-id');
  });

  test('uses the current year by default', () => {
    const farFuture = new Date().getUTCFullYear() + 10;
    assert.equal(detectTrap(new URL(`https://example.com/${farFuture}/07/`)), 'trap:calendar');
    assert.equal(detectTrap(new URL(`https://example.com/${new Date().getUTCFullYear()}/07/`)), null);
  });
});
