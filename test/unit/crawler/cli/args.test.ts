import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { integerOption, numberOption, parseCommandArgs } from '../../../../crawler/cli/args.ts';
import { sinceOption } from '../../../../crawler/cli/commands/inspect.ts';
import { UsageError } from '../../../../crawler/errors.ts';
import { durationMs, MAX_DURATION_MS, readDuration } from '../../../../crawler/protocol/settings.ts';

/** The UsageError `run` throws, by its message. */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    assert.ok(err instanceof UsageError, `a UsageError expected, got ${String(err)}`);
    return err.message;
  }
  assert.fail('a UsageError expected, nothing thrown');
}

const OPTIONS = { limit: { type: 'string' }, query: { type: 'string' }, json: { type: 'boolean' } } as const;

describe('parseCommandArgs', () => {
  test('a negative number is the value of the option before it, for the option to judge', () => {
    assert.deepEqual({ ...parseCommandArgs('search', ['--limit', '-1', '--json'], OPTIONS).values }, { limit: '-1', json: true });
    assert.equal(parseCommandArgs('search', ['--limit', '-0.5'], OPTIONS).values.limit, '-0.5');
    assert.equal(parseCommandArgs('search', ['--query', '-.5'], OPTIONS).values.query, '-.5');
  });

  test('another dash-started value is refused in one line that says how to give it', () => {
    assert.equal(refusal(() => parseCommandArgs('search', ['--limit', '--json'], OPTIONS)), 'search: --limit needs a value, but --json follows it; write --limit=--json if that is the value');
    assert.equal(parseCommandArgs('search', ['--query=-x'], OPTIONS).values.query, '-x');
    assert.equal(parseCommandArgs('search', ['--query', '-'], OPTIONS).values.query, '-', 'a lone dash is a value');
  });

  test('arguments after -- are positionals, left as they are', () => {
    assert.deepEqual(parseCommandArgs('search', ['--', '--limit', '-1'], OPTIONS, true).positionals, ['--limit', '-1']);
  });

  test("node:util's other refusals stay one line", () => {
    assert.equal(refusal(() => parseCommandArgs('search', ['--frobnicate'], OPTIONS)), "search: Unknown option '--frobnicate'");
  });
});

describe('integerOption and numberOption', () => {
  test('the bounds the caller states are kept, and said', () => {
    assert.equal(integerOption('limit', '500', { min: 1, max: 500 }), 500);
    assert.equal(refusal(() => integerOption('limit', '-1', { min: 1, max: 500 })), '--limit must be a whole number from 1 to 500, got "-1"');
    assert.equal(refusal(() => integerOption('limit', '501', { min: 1, max: 500 })), '--limit must be a whole number from 1 to 500, got "501"');
    assert.equal(refusal(() => integerOption('limit', '1.5', { min: 1 })), '--limit must be a whole number, 1 or more, got "1.5"');
    assert.equal(refusal(() => numberOption('min-relevance', '1.01', { min: 0, max: 1 })), '--min-relevance must be a number from 0 to 1, got "1.01"');
    assert.equal(numberOption('min-relevance', '.5', { min: 0, max: 1 }), 0.5);
  });

  test('without bounds, a whole number is from 0 to the largest exact one, and a number is finite', () => {
    assert.equal(integerOption('n', '0'), 0);
    assert.equal(integerOption('n', String(Number.MAX_SAFE_INTEGER)), Number.MAX_SAFE_INTEGER);
    assert.equal(refusal(() => integerOption('n', '-3')), '--n must be a whole number, 0 or more, got "-3"');
    assert.match(refusal(() => integerOption('n', '99999999999999999999')), /^--n must be a whole number, 0 or more/);
    assert.equal(refusal(() => integerOption('n', 'abc', { min: Number.MIN_SAFE_INTEGER })), '--n must be a whole number, got "abc"');
    for (const bad of ['1e400', 'Infinity', '0x10', '', 'NaN']) assert.equal(refusal(() => numberOption('x', bad)), `--x must be a number, got "${bad}"`);
    assert.equal(numberOption('x', '-2.5e3'), -2500);
  });
});

describe('when: --changed-since and --new-since values', () => {
  const now = Date.UTC(2026, 5, 15, 12);

  test('a real date or time, or a duration ago', () => {
    assert.equal(sinceOption('changed-since', '2026-05-01', now), Date.UTC(2026, 4, 1));
    assert.equal(sinceOption('changed-since', '2024-02-29T09:30Z', now), Date.UTC(2024, 1, 29, 9, 30));
    assert.equal(sinceOption('changed-since', '2000-02-29', now), Date.UTC(2000, 1, 29), 'a leap year by the 400-year rule');
    assert.equal(sinceOption('changed-since', '7d', now), now - 7 * 86_400_000);
    assert.equal(sinceOption('changed-since', undefined, now), undefined);
  });

  test('a date that is not on the calendar is refused, not rolled over into the next month', () => {
    assert.equal(refusal(() => sinceOption('changed-since', '2026-02-30', now)), '--changed-since must be an ISO date or time of a real day: 2026-02-30 is not one (February 2026 has 28 days)');
    assert.equal(refusal(() => sinceOption('changed-since', '2025-02-29', now)), '--changed-since must be an ISO date or time of a real day: 2025-02-29 is not one (February 2025 has 28 days)');
    assert.equal(refusal(() => sinceOption('new-since', '1900-02-29T10:00Z', now)), '--new-since must be an ISO date or time of a real day: 1900-02-29 is not one (February 1900 has 28 days)');
    assert.equal(refusal(() => sinceOption('changed-since', '2026-13-01', now)), '--changed-since must be an ISO date or time of a real day: 2026-13-01 is not one (a month is from 01 to 12)');
    assert.equal(refusal(() => sinceOption('changed-since', '2026-06-00', now)), '--changed-since must be an ISO date or time of a real day: 2026-06-00 is not one (June 2026 has 30 days)');
    assert.match(refusal(() => sinceOption('changed-since', '2026-05-01T25:00Z', now)), /must be an ISO date or time/);
  });

  test('a duration out of bounds is refused with the bounds', () => {
    for (const absurd of ['99999999999d', '0d', '0.0001ms', '36501d']) {
      assert.equal(refusal(() => sinceOption('changed-since', absurd, now)), `--changed-since takes a duration from 1ms to 36500d (100 years), got "${absurd}"`);
    }
    assert.match(refusal(() => sinceOption('changed-since', '1e400d', now)), /must be an ISO date or time .* or a duration such as 7d/);
  });
});

describe('durations (the when values and --revisit-after)', () => {
  test('from 1 ms to 100 years, in whole ms', () => {
    assert.deepEqual(readDuration('1.5h'), { ok: true, ms: 5_400_000 });
    assert.deepEqual(readDuration('36500d'), { ok: true, ms: MAX_DURATION_MS });
    assert.deepEqual(readDuration('36501d'), { ok: false, why: 'out-of-range' });
    assert.deepEqual(readDuration('0d'), { ok: false, why: 'out-of-range' });
    assert.deepEqual(readDuration('soon'), { ok: false, why: 'not-a-duration' });
    assert.equal(durationMs('99999999999d'), undefined);
    assert.equal(durationMs('45s'), 45_000);
  });
});
