import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterStatusView, ClusterWorkerView } from '../../../../crawler/protocol/api.ts';
import { budgetShare, clusterFigures, clusterStateClass, describeClusterState, keyedErrors, sortedWorkers, workerState, workerStateClass } from '../../../../renderer/src/lib/cluster.ts';

function worker(id: string, over: Partial<ClusterWorkerView> = {}): ClusterWorkerView {
  return { id, host: 'box', pid: 1, partitions: 128, shards: 3, pagesStored: 10, pagesPerSecond: 2.5, queued: 4, idle: false, paused: false, errors: 0, lastError: null, ...over };
}

const STATUS: ClusterStatusView = {
  name: 'docs',
  query: 'write ahead log',
  state: 'running',
  partitions: 256,
  leased: 256,
  maxPages: 5000,
  budgetUsed: 1250,
  pagesStored: 1234,
  pagesPerSecond: 12.345,
  queued: 678,
  streamBacklog: 3,
  workers: [worker('b'), worker('a')],
  errors: [],
};

describe('the Cluster screen\'s words and numbers', () => {
  test('a worker is paused before idle, and crawling otherwise', () => {
    assert.equal(workerState({ idle: false, paused: false }), 'crawling');
    assert.equal(workerState({ idle: true, paused: false }), 'idle');
    assert.equal(workerState({ idle: true, paused: true }), 'paused');
    assert.equal(workerStateClass('crawling'), 'state-running');
    assert.equal(workerStateClass('paused'), 'state-paused');
    assert.equal(workerStateClass('idle'), '');
  });

  test('cluster states in words, with the dashboard\'s badge colours', () => {
    assert.equal(describeClusterState('running'), 'Crawling');
    assert.equal(describeClusterState('finished'), 'Finished');
    assert.equal(clusterStateClass('running'), 'state-running');
    assert.equal(clusterStateClass('stopped'), 'state-stopping');
    assert.equal(clusterStateClass('finished'), '');
  });

  test('figures hold plain numbers, their details say of what', () => {
    const figures = Object.fromEntries(clusterFigures(STATUS).map((f) => [f.testId, f]));
    assert.equal(figures['cluster-pages']?.value, '1234');
    assert.equal(figures['cluster-pages']?.detail, 'by 2 workers');
    assert.equal(figures['cluster-rate']?.value, '12.3');
    assert.equal(figures['cluster-budget']?.value, '1250');
    assert.equal(figures['cluster-budget']?.detail, 'of 5,000 handed out (25%)');
    assert.equal(figures['cluster-queued']?.value, '678');
    assert.equal(figures['cluster-leased']?.detail, 'of 256');
    assert.equal(figures['cluster-backlog']?.value, '3');
    assert.equal(clusterFigures({ ...STATUS, workers: [worker('a')] })[0]?.detail, 'by 1 worker');
  });

  test('the budget share stays within [0, 1], and a zero budget is no division', () => {
    assert.equal(budgetShare({ budgetUsed: 50, maxPages: 200 }), 0.25);
    assert.equal(budgetShare({ budgetUsed: 300, maxPages: 200 }), 1);
    assert.equal(budgetShare({ budgetUsed: 5, maxPages: 0 }), 0);
  });

  test('workers keep their order by id; repeated errors get keys of their own', () => {
    assert.deepEqual(sortedWorkers(STATUS.workers).map((w) => w.id), ['a', 'b']);
    assert.deepEqual(STATUS.workers.map((w) => w.id), ['b', 'a'], 'the status is not reordered in place');
    assert.deepEqual(keyedErrors(['x', 'y', 'x']).map((e) => e.key), ['x', 'y', 'x|1']);
  });
});
