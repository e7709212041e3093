/*
 * The layer check that `npm test` runs (.dependency-cruiser.cjs) must fail on a deliberate
 * violation and name the rule broken. A small tree in a temporary folder commits one
 * violation of each kind beside imports that are allowed, and the real config judges it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '../..');
const DEPCRUISE = path.join(REPO, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');
const CONFIG = path.join(REPO, '.dependency-cruiser.cjs');

/** Files of the probe tree and what each imports. */
const PROBE_TREE: Record<string, string> = {
  'crawler/protocol/api.ts': "import { z } from 'zod';\nexport const schema = z.string();\n",
  'crawler/protocol/leaky.ts': "import { canonical } from '../url/canonical.ts';\nexport const leak = canonical;\n",
  'crawler/url/canonical.ts': "import { schema } from '../protocol/api.ts';\nexport const canonical = schema;\n",
  'crawler/parse/upward.ts': "import { loop } from '../engine/loop.ts';\nexport const up = loop;\n",
  'crawler/engine/loop.ts': "import { canonical } from '../url/canonical.ts';\nexport const loop = canonical;\n",
  'crawler/store/wants-window.ts': "import { app } from 'electron';\nexport const store = app;\n",
  'renderer/src/screen.ts': "import { loop } from '../../crawler/engine/loop.ts';\nimport { schema } from '../../crawler/protocol/api.ts';\nexport const screen = [loop, schema];\n",
  'electron/main/main.ts': "import { app } from 'electron';\nimport { host } from '../crawler-process/host.ts';\nexport const main = [app, host];\n",
  'electron/crawler-process/host.ts': "import { loop } from '../../crawler/engine/loop.ts';\nexport const host = loop;\n",
  'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'nodenext', allowImportingTsExtensions: true, noEmit: true } }),
};

let probeDir = '';
let report = '';
let exitCode = 0;

before(async () => {
  probeDir = await mkdtemp(path.join(tmpdir(), 'forager-layers-'));
  for (const [file, text] of Object.entries(PROBE_TREE)) {
    await mkdir(path.dirname(path.join(probeDir, file)), { recursive: true });
    await writeFile(path.join(probeDir, file), text);
  }
  await symlink(path.join(REPO, 'node_modules'), path.join(probeDir, 'node_modules'), 'dir');
  try {
    const { stdout } = await run(process.execPath, [DEPCRUISE, '--config', CONFIG, '--output-type', 'err', 'crawler', 'renderer', 'electron'], { cwd: probeDir });
    report = stdout;
  } catch (err) {
    const failed = err as { code: number; stdout: string };
    exitCode = failed.code;
    report = failed.stdout;
  }
});

after(async () => {
  await rm(probeDir, { recursive: true, force: true });
});

/** The rules the report says `from` broke by importing `to` (packages resolve through the node_modules link, so `to` may follow a prefix). */
function rulesBroken(from: string, to: string): string[] {
  const line = new RegExp(`error ([\\w-]+): ${from.replaceAll('.', '[.]')} → \\S*${to.replaceAll('.', '[.]')}`, 'g');
  return [...report.matchAll(line)].map((match) => match[1] as string);
}

test('a violation fails the check', () => {
  assert.notEqual(exitCode, 0, `the check passed a tree with violations:\n${report}`);
});

test('an upward import fails with the rule of the importing layer', () => {
  assert.deepEqual(rulesBroken('crawler/parse/upward.ts', 'crawler/engine/loop.ts'), ['basics-imports-only-lower-layers']);
});

test('the contract imports nothing but zod', () => {
  assert.deepEqual(rulesBroken('crawler/protocol/leaky.ts', 'crawler/url/canonical.ts').sort(), ['protocol-imports-nothing', 'protocol-imports-only-lower-layers']);
  assert.deepEqual(rulesBroken('crawler/protocol/api.ts', 'node_modules/zod/.*'), []);
});

test('only electron/ imports Electron', () => {
  assert.deepEqual(rulesBroken('crawler/store/wants-window.ts', 'node_modules/electron/.*'), ['only-electron-imports-electron']);
  assert.deepEqual(rulesBroken('electron/main/main.ts', 'node_modules/electron/.*'), []);
});

test('the renderer imports only the contract', () => {
  assert.deepEqual(rulesBroken('renderer/src/screen.ts', 'crawler/engine/loop.ts'), ['renderer-imports-only-protocol']);
  assert.deepEqual(rulesBroken('renderer/src/screen.ts', 'crawler/protocol/api.ts'), []);
});

test('the two Electron processes share code only through electron/shared', () => {
  assert.deepEqual(rulesBroken('electron/main/main.ts', 'electron/crawler-process/host.ts'), ['electron-processes-stay-apart']);
});

test('downward imports pass', () => {
  assert.deepEqual(rulesBroken('crawler/engine/loop.ts', 'crawler/url/canonical.ts'), []);
  assert.deepEqual(rulesBroken('crawler/url/canonical.ts', 'crawler/protocol/api.ts'), []);
  assert.deepEqual(rulesBroken('electron/crawler-process/host.ts', 'crawler/engine/loop.ts'), []);
});
