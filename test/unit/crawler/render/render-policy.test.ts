import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changedMaterially, RenderPolicy, renderGroup } from '../../../../crawler/render/render-policy.ts';
import { hostRenderModes, withHostRenderMode } from '../../../../crawler/protocol/settings.ts';

const SAME = { newLinks: 0, rawWords: 300, renderedWords: 310, queryTermsGained: 0, verdictChanged: false };
const BUILT = { newLinks: 12, rawWords: 2, renderedWords: 400, queryTermsGained: 2, verdictChanged: true };

describe('the render policy', () => {
  it('groups pages by origin and first path segment', () => {
    assert.equal(renderGroup('https://a.example/docs/x/y?q=1'), 'https://a.example/docs');
    assert.equal(renderGroup('https://a.example/'), 'https://a.example/');
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
    assert.equal(policy.shouldRender('https://spa.example/app/0', null), false, 'an unflagged page of a learning group is not rendered');
    assert.equal(policy.shouldRender('https://spa.example/app/1', 'empty-app-root'), true);
    assert.equal(policy.learn('https://spa.example/app/1', BUILT), 'render');
    assert.equal(policy.shouldRender('https://spa.example/app/2', null), true, 'a render group renders unflagged pages too');
    assert.equal(policy.shouldRender('https://spa.example/blog/2', null), false, 'other groups learn on their own');
  });

  it('stops rendering a group whose renders change nothing, but keeps sampling it', () => {
    const policy = new RenderPolicy('auto');
    for (let i = 0; i < 3; i++) {
      assert.equal(policy.shouldRender(`https://docs.example/guide/${i}`, 'scripts-and-few-links'), true);
      policy.learn(`https://docs.example/guide/${i}`, SAME);
    }
    assert.deepEqual(policy.groups(), [{ group: 'https://docs.example/guide', state: 'static' }]);
    const sampled = Array.from({ length: 40 }, (_, i) => policy.shouldRender(`https://docs.example/guide/p${i}`, 'scripts-and-few-links')).filter(Boolean).length;
    assert.ok(sampled >= 3 && sampled <= 5, `${sampled} of 40 flagged pages sampled`);
    assert.equal(policy.learn('https://docs.example/guide/p9', BUILT), 'render', 'a sample that changes the page turns the group');
  });

  it('never renders with never, and renders every page with always', () => {
    assert.equal(new RenderPolicy('never').shouldRender('https://a.example/x', 'empty-app-root'), false);
    assert.equal(new RenderPolicy('always').shouldRender('https://a.example/x', null), true);
  });

  it('lets one host be rendered differently from the crawl, and changed while it runs', () => {
    const policy = new RenderPolicy('auto', hostRenderModes(['app.example=always', 'Static.Example=never']));
    assert.equal(policy.shouldRender('https://app.example/x', null), true);
    assert.equal(policy.shouldRender('https://static.example/x', 'empty-app-root'), false, 'host names match without case');
    assert.equal(policy.hostMode('other.example'), null);
    policy.setHostMode('app.example', null);
    assert.equal(policy.shouldRender('https://app.example/y', null), false, 'back to the crawl\'s own mode');
    assert.deepEqual(withHostRenderMode(['a.example=never', 'b.example=always'], 'A.example', 'auto'), ['a.example=auto', 'b.example=always']);
    assert.deepEqual(withHostRenderMode(['a.example=never'], 'a.example', null), []);
  });
});
