import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, type CliResult } from '../support/cli.ts';
import { crawlOnce, tempDir, testSettings } from '../support/crawl-harness.ts';
import { html, startTestSite, type TestSite } from '../support/test-site.ts';

/** A refusal of the user's input: one line on stderr, no stack trace, nothing on stdout, exit 2. */
function assertRefused(result: CliResult, says: RegExp): void {
  assert.equal(result.code, 2, `exit 2 expected; stderr: ${result.stderr}`);
  assert.match(result.stderr, /^forager: [^\n]+\n$/, `one stderr line expected, got ${JSON.stringify(result.stderr)}`);
  assert.doesNotMatch(result.stderr, /ambiguous|unexpected error|\n\s+at /);
  assert.match(result.stderr, says);
  assert.equal(result.stdout, '');
}

const ESC = '\u001b';
const BEL = '\u0007';
/** C1's CSI (an 8-bit ESC [) clearing the screen, and a right-to-left override: page text keeps them. */
const CRAWLED_TITLE = 'Quokka \u009b2J news \u202e today';
/**
 * Sets the terminal's window title, then clears the screen. A crawl stores C0 controls as spaces,
 * so this title is written into the collection directly, as a collection from elsewhere may hold it.
 */
const STORED_TITLE = `Quokka ${ESC}]0;pwned${BEL}diary ${ESC}[2J today`;
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;

describe('the command line refuses numbers and times it cannot mean, in one line', () => {
  const tmp = tempDir('forager-bad-input-');
  let db: string;
  let site: TestSite;

  before(async () => {
    site = await startTestSite({
      '/': html('<p>Quokkas of Rottnest island.</p><a href="/hostile">hostile</a> <a href="/edited">edited</a> <a href="/blank">blank</a>', 'Quokka home'),
      '/hostile': html('<p>A quokka smiles at the camera.</p>', CRAWLED_TITLE),
      '/edited': html('<p>A quokka keeper writes in the evening.</p>', 'Quokka diary'),
      // Found by its title alone: no text, so no snippet.
      '/blank': html('', 'Quokka gallery'),
    });
    const run = await crawlOnce(tmp.dir, testSettings([`${site.origin}/`], { query: 'quokka' }));
    run.db.prepare('UPDATE pages SET title = ? WHERE url_id = (SELECT id FROM urls WHERE url = ?)').run(STORED_TITLE, `${site.origin}/edited`);
    run.db.close();
    db = run.dbPath;
  });

  after(async () => {
    await site.close();
    tmp.cleanup();
  });

  const crawl = (...extra: string[]): string[] => ['crawl', '--db', join(tmp.dir, 'new.forager'), '--query', 'quokka', '--seed', `${site.origin}/`, ...extra];

  it('a negative or dash-started value of a numeric option says what the option takes', async () => {
    assertRefused(await runCli(crawl('--max-pages', '-1')), /max-pages must be a whole number from 1\b.*got -1$/m);
    assertRefused(await runCli(['search', '--db', db, '--limit', '-5', 'quokka']), /--limit must be a whole number from 1 to \d+, got "-5"/);
    assertRefused(await runCli(['serve', '--db', db, '--port', '-80']), /--port must be a whole number from 0 to 65535, got "-80"/);
    assertRefused(await runCli(['export', '--db', db, '--format', 'csv', '--out', join(tmp.dir, 'x.csv'), '--min-relevance', '-0.5']), /--min-relevance must be a number from 0 to 1/);
    assertRefused(await runCli(crawl('--max-pages', '--json')), /--max-pages needs a value, but --json follows it/);
  });

  it('numeric options have bounds', async () => {
    assertRefused(await runCli(['search', '--db', db, '--limit', '99999999999999999999', 'quokka']), /--limit must be a whole number from 1 to/);
    assertRefused(await runCli(['serve', '--db', db, '--port', '65536']), /--port must be a whole number from 0 to 65535/);
    assertRefused(await runCli(['lab', '--db', db, '--budgets', '0.1,2']), /--budgets must be 1 to 20 fractions/);
  });

  it('an impossible date or an absurd duration is refused', async () => {
    for (const [when, says] of [
      ['2026-02-30', /--changed-since must be an ISO date or time of a real day: 2026-02-30 is not one \(February 2026 has 28 days\)/],
      ['2025-02-29T10:00Z', /2025-02-29 is not one/],
      ['2026-13-01', /2026-13-01 is not one \(a month is from 01 to 12\)/],
      ['2026-04-31', /April 2026 has 30 days/],
      ['99999999999d', /--changed-since takes a duration from 1ms to 36500d/],
      ['0d', /--changed-since takes a duration from 1ms/],
      ['1e400d', /--changed-since must be an ISO date or time/],
    ] as const) {
      assertRefused(await runCli(['pages', '--db', db, '--changed-since', when]), says);
    }
    assertRefused(await runCli(['pages', '--db', db, '--new-since', '2026-02-30']), /--new-since must be an ISO date or time of a real day: 2026-02-30 is not one/);
    assertRefused(await runCli(crawl('--revisit-after', '99999999999d')), /revisit-after must be a duration .*36500d/);
    const leap = await runCli(['pages', '--db', db, '--json', '--changed-since', '2024-02-29']);
    assert.equal(leap.code, 0, `a leap day is a date: ${leap.stderr}`);
  });

  it('search shows no snippet for a page without text, and --json gives null', async () => {
    const text = await runCli(['search', '--db', db, 'gallery']);
    assert.equal(text.code, 0, text.stderr);
    assert.doesNotMatch(text.stdout, /null/);
    assert.deepEqual(text.stdout.split('\n'), ['1. Quokka gallery', `   ${site.origin}/blank`, '']);
    const json = await runCli(['search', '--db', db, '--json', 'gallery']);
    assert.equal(json.code, 0, json.stderr);
    const hit = JSON.parse(json.stdout) as { snippet: unknown; url: string };
    assert.equal(hit.url, `${site.origin}/blank`);
    assert.equal(hit.snippet, null);
  });

  it('control characters from a collection are not written to the terminal', async () => {
    const pages = await runCli(['pages', '--db', db]);
    const searches = [await runCli(['search', '--db', db, 'camera']), await runCli(['search', '--db', db, 'keeper'])];
    for (const [name, result] of [['pages', pages], ['search camera', searches[0]], ['search keeper', searches[1]]] as const) {
      assert.ok(result !== undefined);
      assert.equal(result.code, 0, result.stderr);
      assert.doesNotMatch(result.stdout, CONTROLS, `${name} wrote a control character: ${JSON.stringify(result.stdout)}`);
    }
    assert.match(pages.stdout, /\tQuokka \uFFFD2J news \uFFFD today\n/, 'the crawled title, its controls shown as U+FFFD');
    assert.match(pages.stdout, /\tQuokka \uFFFD\]0;pwned\uFFFDdiary \uFFFD\[2J today\n/, 'the stored title, its controls shown as U+FFFD');
    const json = await runCli(['pages', '--db', db, '--json']);
    const titles = json.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { title: string }).title);
    assert.ok(titles.includes(STORED_TITLE) && titles.includes(CRAWLED_TITLE), '--json keeps the titles as they are, escaped by JSON');
    assert.ok(!json.stdout.includes(ESC) && !json.stdout.includes(BEL));
  });

  it('the error line shows control characters and line breaks from the input harmlessly, in one line', async () => {
    const result = await runCli(['search', '--db', join(tmp.dir, `missing${ESC}[2J\nforager: all is well.forager`), 'quokka']);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /^forager: [^\n]+\n$/, JSON.stringify(result.stderr));
    assert.ok(!result.stderr.includes(ESC), JSON.stringify(result.stderr));
    assert.match(result.stderr, /missing\uFFFD\[2J forager: all is well/);
  });
});
