import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PartitionMap, partitionKeyOf, partitionOf, partitionReason } from '../../../../crawler/cluster/partition.ts';
import { PARTITIONS } from '../../../../crawler/store/shard-names.ts';
import { partitionsFor } from '../../../../crawler/cluster/worker-registry.ts';

test('a site and its subdomains share a partition; hosts without a registrable domain go by host and port', () => {
  assert.equal(partitionKeyOf(new URL('https://docs.example.co.uk/a')), 'example.co.uk');
  assert.equal(partitionOf('https://docs.example.co.uk/a'), partitionOf('http://www.example.co.uk/b?c'));
  assert.equal(partitionKeyOf(new URL('http://127.0.0.1:8080/')), '127.0.0.1:8080');
  assert.equal(partitionKeyOf(new URL('http://localhost:3000/')), 'localhost:3000');
  const ports = new Set(Array.from({ length: 200 }, (_, i) => partitionOf(`http://127.0.0.1:${40000 + i}/`)));
  assert.ok(ports.size > 100, `200 loopback ports fell into only ${ports.size} partitions`);
});

test('partitions are in range, stable, and the remembered map agrees with the hash', () => {
  const map = new PartitionMap();
  for (let i = 0; i < 1000; i++) {
    const url = `https://site${i}.example.org/page/${i}`;
    const p = partitionOf(url);
    assert.ok(p >= 0 && p < PARTITIONS);
    assert.equal(map.of(url), p);
    assert.equal(map.of(`https://site${i}.example.org/other`), p);
  }
  assert.equal(partitionReason(17), 'partition:17');
});

test('live workers share the partitions evenly, every partition to someone', () => {
  for (const n of [1, 2, 3, 5, 7]) {
    const live = Array.from({ length: n }, (_, i) => `w${i}`);
    const shares = live.map((w) => partitionsFor(w, live, PARTITIONS));
    assert.equal(shares.reduce((a, b) => a + b, 0), PARTITIONS);
    assert.ok(Math.max(...shares) - Math.min(...shares) <= 1, `shares ${shares}`);
  }
  // A worker not yet in the live set counts itself in.
  assert.equal(partitionsFor('w9', ['w0'], PARTITIONS), 128);
});
