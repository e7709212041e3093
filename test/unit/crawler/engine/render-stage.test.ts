import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RenderStage } from '../../../../crawler/engine/render-stage.ts';
import type { FetchResult } from '../../../../crawler/net/fetch-page.ts';
import { analyseResponse, type ResponseAnalysis } from '../../../../crawler/parse/analyse-response.ts';
import type { Renderer } from '../../../../crawler/render/page-renderer.ts';
import { RenderPolicy } from '../../../../crawler/render/render-policy.ts';
import type { QueuedUrl } from '../../../../crawler/store/url-store.ts';

const TASK: QueuedUrl = { id: 1, url: 'http://app.test/p/1', hostId: 1, depth: 0, redirects: 0, attempts: 0, kind: 'page' };
const SHELL = '<div id="root"></div><script src="/app.js"></script>';
const RESULT = { status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(SHELL) } as unknown as FetchResult;

function analyse(html: string) {
  return analyseResponse({ url: TASK.url, status: 200, contentType: 'text/html', xRobotsTag: undefined, body: Buffer.from(html), agentToken: 'forager', maxLinks: 100, kind: 'page', maxDecodedBytes: 1 << 20, documents: [] });
}

/** A judge that calls a page hot when its text says "Hot". */
const wouldBeHot = (_task: QueuedUrl, analysis: ResponseAnalysis): boolean | undefined => analysis.page?.text.includes('Hot');

function stage(dom: string, maxDomChars: number, policy = new RenderPolicy('auto')): RenderStage {
  const renderer: Renderer = { render: async () => ({ dom, requests: [], ms: 5, timedOut: false }), unavailable: undefined };
  return new RenderStage({ policy, queryTerms: ['checkpoint'], renderer, analyseDom: async (_task, html) => analyse(html), maxDomChars, wouldBeHot }, 2);
}

describe('the render stage', () => {
  it('keeps a render that built the page, and the policy learns the group needs rendering', async () => {
    const policy = new RenderPolicy('auto');
    const built = `<div id="root"><h1>Checkpoint</h1><a href="/p/2">2</a> <a href="/p/3">3</a></div>`;
    const raw = analyse(SHELL);
    assert.equal(stage(built, 1 << 20, policy).plan(TASK, RESULT, raw), 'render', 'an empty app root asks for a render');
    const rendered = await stage(built, 1 << 20, policy).render(TASK, RESULT, raw);
    assert.equal(rendered?.analysis.page?.links.length, 2);
    assert.deepEqual(policy.groups(), [{ group: 'http://app.test/p', state: 'render' }]);
  });

  it('turns a group to rendering when the render changes only the verdict, and not when it changes nothing', async () => {
    const shell = '<div id="root"><p>Loading the page</p></div><script src="/app.js"></script>';
    const raw = analyse(shell);
    const unchanged = new RenderPolicy('auto');
    await stage('<div id="root"><p>Loading the page</p></div>', 1 << 20, unchanged).render(TASK, RESULT, raw);
    assert.deepEqual(unchanged.groups(), [{ group: 'http://app.test/p', state: 'learning' }]);
    const policy = new RenderPolicy('auto');
    await stage('<div id="root"><p>Hot page</p></div>', 1 << 20, policy).render(TASK, RESULT, raw);
    assert.deepEqual(policy.groups(), [{ group: 'http://app.test/p', state: 'render' }], 'no new links, words or query terms: the verdict alone');
  });

  it('drops a render whose DOM outgrew the size cap, and says it failed', async () => {
    const huge = `<div id="root">${'<p>checkpoint</p>'.repeat(200)}</div>`;
    const s = stage(huge, 1000);
    assert.equal(await s.render(TASK, RESULT, analyse(SHELL)), undefined);
    assert.equal(s.failed, 1);
    assert.equal(s.rendered, 0);
  });

  it('waits for the group when told to, and a render that throws still gives its learning turn back', async () => {
    const policy = new RenderPolicy('auto');
    const raw = analyse(SHELL);
    const url = (i: number): QueuedUrl => ({ ...TASK, id: i, url: `http://app.test/p/${i}` });
    const renderer: Renderer = { render: async () => ({ dom: SHELL, requests: [], ms: 5, timedOut: false }), unavailable: undefined };
    const broken = new RenderStage({ policy, queryTerms: [], renderer, analyseDom: async () => { throw new Error('the parse worker died'); }, maxDomChars: 1 << 20, wouldBeHot }, 8);
    const plans = [1, 2, 3, 4].map((i) => broken.plan(url(i), RESULT, raw));
    assert.deepEqual(plans, ['render', 'render', 'render', 'wait']);
    const unchanged = stage(SHELL, 1 << 20, policy);
    const waiting = unchanged.render(url(4), RESULT, raw, 'wait');
    assert.equal(unchanged.saturated, false);
    await assert.rejects(broken.render(url(1), RESULT, raw), /the parse worker died/);
    assert.notEqual(await waiting, undefined, 'the waiting page took the turn the broken render gave back, and was rendered');
    assert.equal(unchanged.rendered, 1);
  });
});
