import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeSession } from '../../../../renderer/src/lib/session.ts';

describe('describeSession', () => {
  it('counts the cookies and names their sites', () => {
    assert.equal(describeSession({ cookies: 1, domains: ['library.example.org'] }), 'Logged-in session: 1 cookie for library.example.org');
    assert.equal(describeSession({ cookies: 3, domains: ['a.org', 'b.org'] }), 'Logged-in session: 3 cookies for a.org, b.org');
  });

  it('names five sites and counts the rest', () => {
    const domains = ['a.org', 'b.org', 'c.org', 'd.org', 'e.org', 'f.org', 'g.org'];
    assert.equal(describeSession({ cookies: 9, domains }), 'Logged-in session: 9 cookies for a.org, b.org, c.org, d.org, e.org and 2 more sites');
    assert.match(describeSession({ cookies: 6, domains: domains.slice(0, 6) }), /e\.org and 1 more site$/);
  });
});
