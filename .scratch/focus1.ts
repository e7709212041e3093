import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { partitionOf } from '../crawler/cluster/partition.ts';
import { runCli, spawnCli } from '../test/support/cli.ts';
import { startManyHostWeb } from '../test/support/many-host-web.ts';
import { startRedisServer } from '../test/support/redis-server.ts';
const base = 24000, hosts = 256, pph = 20;
const topical: number[] = [];
for (let h = 0; h < hosts; h++) if (partitionOf(`http://127.0.0.1:${base + h}/`) < 32) topical.push(h);
const web = await startManyHostWeb({ hosts, pagesPerHost: pph, seed: 5, basePort: base, latencyMs: 10, topical: { topic: 'databases', hosts: topical } });
const redis = await startRedisServer({ appendonly: false });
const dir = mkdtempSync(join(tmpdir(), 'focus1-'));
const flags = ['--query', 'database index transaction', ...web.seeds.flatMap((s) => ['--seed', s]), '--allow-private', '--scope', 'any', '--max-pages', '1024', '--delay-ms', '10', '--delay-factor', '0', '--strategy', 'focused', '--concurrency', '8'];
const c = await runCli(['cluster', 'create', '--redis', redis.url, '--name', 's', ...flags]);
const t0 = Date.now();
const w = spawnCli(['worker', '--redis', redis.url, '--name', 's', '--dir', join(dir, 'shards'), '--parse-workers', '0'], { timeoutMs: 240_000 });
const r = await w.done;
console.log('done', (Date.now() - t0) / 1000, r.code);
const set = new Set(topical);
const rows: { t: number; top: boolean; shard: string; url: string }[] = [];
for (const f of readdirSync(join(dir, 'shards')).filter((f) => f.endsWith('.forager'))) {
  const db = new Database(join(dir, 'shards', f), { readonly: true });
  for (const row of db.prepare('SELECT u.url, p.fetched_at t FROM pages p JOIN urls u ON u.id = p.url_id').all() as { url: string; t: number }[]) rows.push({ t: row.t, top: set.has(web.hostIndex(new URL(row.url).origin)), shard: f, url: row.url });
  db.close();
}
rows.sort((a, b) => a.t - b.t);
const t1 = rows[0]!.t;
for (let i = 0; i < rows.length; i += 50) { const s = rows.slice(i, i + 50); console.log(i, ((s[0]!.t - t1) / 1000).toFixed(1), s.filter((x) => x.top).length); }
// when was each topical host first linked? queued urls of topical hosts by shard
console.log('dir', dir);
await web.close(); await redis.close();
