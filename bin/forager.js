#!/usr/bin/env node
// Forager runs its TypeScript sources directly through Node's type stripping (Node ≥ 22.18).
// `npx forager` and npm scripts use the project's own Node 24 from node_modules/.bin.
if (!process.features.typescript) {
  console.error(`forager: needs Node 24 with TypeScript support; this is Node ${process.version}. Run it as "npx forager" inside the project.`);
  process.exit(1);
}
const { main } = await import('../crawler/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
