#!/usr/bin/env -S node --max-semi-space-size=2 --heap-growing-percent=50 --expose-gc
// The flags and the malloc settings are a crawler process's (crawler/memory/process-tuning.ts
// says why; a test checks that this line repeats CRAWLER_NODE_FLAGS). The CLI runs the
// compiled crawler in dist/ (built by `npm install` through the prepare script).
import { existsSync } from 'node:fs';

const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(`forager: needs Node 22 or later; this is Node ${process.version}. Inside the project, run it as "npx forager".`);
  process.exit(1);
}
const entry = new URL('../dist/crawler/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('forager: the crawler is not built yet; run "npm run build" (npm install does it).');
  process.exit(1);
}
// malloc reads its settings only when a process starts, so on Linux the CLI starts itself again
// (same pid, arguments and streams) with the ones its environment lacks.
const { missingMallocSettings } = await import(new URL('../dist/crawler/memory/process-tuning.js', import.meta.url).href);
const mallocUnset = missingMallocSettings(process.env);
if (process.platform === 'linux' && Object.keys(mallocUnset).length > 0 && typeof process.execve === 'function') {
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], { ...process.env, ...mallocUnset });
}
// The reader of our output went away (`forager pages | head`): it has what it wanted, so stop quietly.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
