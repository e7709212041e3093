import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changedMaterially, RenderPolicy, renderGroup } from '../../../../crawler/render/render-policy.ts';
import { hostRenderModes, withHostRenderMode } from '../../../../crawler/protocol/settings.ts';

const SAME = { newLinks: 0, rawWords: 300, renderedWords: 310, queryTermsGained: 0, verdictChanged: false };
const BUILT = { newLinks: 12, rawWords: 2, renderedWords: 400, queryTermsGained: 2, verdictChanged: true };

describe('the render policy', () => {
  it('groups pages by origin and the first folder of their path', () => {
    assert.equal(renderGroup('https://a.example/docs/x/y?q=1'), 'https://a.example/docs');
    assert.equal(renderGroup('https://a.example/docs/'), 'https://a.example/docs');
    assert.equal(renderGroup('https://a.example/'), 'https://a.example/');
    assert.equal(renderGroup('https://a.example/git-mv.html'), 'https://a.example/', 'a page at the top is in the origin\'s group');
    assert.equal(renderGroup('https://a.example/about?x=1'), 'https://a.example/');
    assert.notEqual(renderGroup('https://a.example/app/1'), renderGroup('https://b.example/app/1'));
  });

  it('calls a change material for a changed verdict, new links, much more text, or query words the HTML lacked', () => {
    assert.equal(changedMaterially(SAME), false);
    assert.equal(changedMaterially({ ...SAME, newLinks: 2 }), true);
    assert.equal(changedMaterially({ ...SAME, renderedWords: 460 }), true);
    assert.equal(changedMaterially({ ...SAME, rawWords: 10, renderedWords: 40 }), false, 'thirty more words is not much');
    assert.equal(changedMaterially({ ...SAME, queryTermsGained: 1 }), true);
    assert.equal(changedMaterially({ ...SAME, verdictChanged: true }), true);
  });

  it('renders flagged pages of a new group, then every page once renders change them', () => {
    const policy = new RenderPolicy('auto');
    assert.equal(policy.plan('https://spa.example/app/0', null), 'skip', 'an unflagged page of a learning group is not rendered');
    assert.equal(policy.plan('https://spa.example/app/1', 'empty-app-root'), 'render');
    assert.equal(policy.learn('https://spa.example/app/1', BUILT), 'render');
    assert.equal(policy.plan('https://spa.example/app/2', null), 'render', 'a render group renders unflagged pages too');
    assert.equal(policy.plan('https://spa.example/blog/2', null), 'skip', 'other groups learn on their own');
  });

  it('learns once for the pages at the top of a site, not once for each of them', () => {
    const policy = new RenderPolicy('auto');
    const rendered = Array.from({ length: 30 }, (_, i) => `https://git.example/git-command-${i}.html`).filter((url) => {
      const render = policy.plan(url, 'scripts-and-few-links') === 'render';
      if (render) policy.learn(url, SAME);
      return render;
    });
    assert.equal(rendered.length, 3 + 1, 'three renders to learn, then the tenth flagged page after them');
    assert.deepEqual(policy.groups(), [{ group: 'https://git.example/', state: 'static' }]);
  });

  it('renders three pages of a learning group at a time; the pages flagged meanwhile wait for what they teach', async () => {
    const policy = new RenderPolicy('auto');
    const url = (i: number): string => `https://docs.example/guide/${i}`;
    const plans = Array.from({ length: 10 }, (_, i) => policy.plan(url(i), 'scripts-and-few-links'));
    assert.deepEqual(plans, ['render', 'render', 'render', 'wait', 'wait', 'wait', 'wait', 'wait', 'wait', 'wait']);
    const waited = [3, 4, 5].map((i) => policy.afterWait(url(i)));
    policy.giveUp(url(0));
    assert.equal(await waited[0], 'render', 'a render that failed gives its turn to a waiting page');
    policy.learn(url(1), SAME);
    policy.learn(url(2), SAME);
    policy.learn(url(3), SAME);
    assert.deepEqual(await Promise.all(waited.slice(1)), ['skip', 'skip'], 'three renders that changed nothing: the waiting pages are stored as they are');

    const spa = new RenderPolicy('auto');
    const route = (i: number): string => `https://spa.example/app/${i}`;
    for (let i = 0; i < 3; i++) assert.equal(spa.plan(route(i), 'empty-app-root'), 'render');
    assert.equal(spa.plan(route(3), 'empty-app-root'), 'wait');
    const waiting = spa.afterWait(route(3));
    spa.learn(route(0), BUILT);
    assert.equal(await waiting, 'render', 'a render that built the page: the waiting page is rendered too');
  });

  it('stops rendering a group whose renders change nothing, but keeps sampling it', () => {
    const policy = new RenderPolicy('auto');
    for (let i = 0; i < 3; i++) {
      assert.equal(policy.plan(`https://docs.example/guide/${i}`, 'scripts-and-few-links'), 'render');
      policy.learn(`https://docs.example/guide/${i}`, SAME);
    }
    assert.deepEqual(policy.groups(), [{ group: 'https://docs.example/guide', state: 'static' }]);
    const plans = Array.from({ length: 400 }, (_, i) => policy.plan(`https://docs.example/guide/p${i}`, 'scripts-and-few-links'));
    const sampled = plans.flatMap((plan, i) => (plan === 'render' ? [i] : []));
    assert.deepEqual(sampled, [9, 29, 69, 149, 309], 'the tenth flagged page, then gaps that double up to 160');
    assert.equal(policy.learn('https://docs.example/guide/p9', BUILT), 'render', 'a sample that changes the page turns the group');
  });

  it('never renders with never, and renders every page with always', () => {
    assert.equal(new RenderPolicy('never').plan('https://a.example/x', 'empty-app-root'), 'skip');
    assert.equal(new RenderPolicy('always').plan('https://a.example/x', null), 'render');
  });

  it('lets one host be rendered differently from the crawl, and changed while it runs', () => {
    const policy = new RenderPolicy('auto', hostRenderModes(['app.example=always', 'Static.Example=never']));
    assert.equal(policy.plan('https://app.example/x', null), 'render');
    assert.equal(policy.plan('https://static.example/x', 'empty-app-root'), 'skip', 'host names match without case');
    assert.equal(policy.hostMode('other.example'), null);
    policy.setHostMode('app.example', null);
    assert.equal(policy.plan('https://app.example/y', null), 'skip', 'back to the crawl\'s own mode');
    assert.deepEqual(withHostRenderMode(['a.example=never', 'b.example=always'], 'A.example', 'auto'), ['a.example=auto', 'b.example=always']);
    assert.deepEqual(withHostRenderMode(['a.example=never'], 'a.example', null), []);
  });
});
