/*
 * Forager's layer rules, checked by `npm run check:layers` (part of `npm test`).
 * docs/ARCHITECTURE.md draws the same layers. A module may import its own layer and the
 * layers below it, never one above; peers within a layer may import each other as long as
 * no cycle forms.
 */

/** The crawler's layers, lowest first. Each entry is a path pattern relative to the repository root. */
const CRAWLER_LAYERS = [
  { name: 'protocol', paths: ['^crawler/protocol/'] },
  { name: 'errors', paths: ['^crawler/errors[.]ts$'] },
  { name: 'basics', paths: ['^crawler/(url|robots|net|memory|relevance|parse|render)/'] },
  { name: 'ordering', paths: ['^crawler/ordering/', '^crawler/settings[.]ts$'] },
  { name: 'store', paths: ['^crawler/store/'] },
  { name: 'library', paths: ['^crawler/(library|frontier)/'] },
  { name: 'engine', paths: ['^crawler/engine/'] },
  { name: 'collections', paths: ['^crawler/(lab|export|import|merge|viewer)/'] },
  { name: 'cluster', paths: ['^crawler/cluster/'] },
  { name: 'service', paths: ['^crawler/service/'] },
  { name: 'front-ends', paths: ['^crawler/(serve|cli)/'] },
];

/** One rule per layer: nothing in it may import a layer above. */
const noUpwardImports = CRAWLER_LAYERS.slice(0, -1).map((layer, index) => ({
  name: `${layer.name}-imports-only-lower-layers`,
  severity: 'error',
  comment: `crawler layer "${layer.name}" may not import the layers above it (${CRAWLER_LAYERS.slice(index + 1).map((l) => l.name).join(', ')})`,
  from: { path: layer.paths },
  to: { path: CRAWLER_LAYERS.slice(index + 1).flatMap((l) => l.paths) },
}));

module.exports = {
  forbidden: [
    ...noUpwardImports,
    {
      name: 'protocol-imports-nothing',
      severity: 'error',
      comment: 'crawler/protocol/ is the contract both sides share: it imports only itself and zod',
      from: { path: '^crawler/protocol/' },
      to: { pathNot: ['^crawler/protocol/', '(^|/)node_modules/zod/'] },
    },
    {
      name: 'only-electron-imports-electron',
      severity: 'error',
      comment: 'Electron runs only in electron/; the crawler and the renderer run without it',
      from: { pathNot: ['^electron/', '^test/'] },
      to: { path: '(^|/)node_modules/electron/' },
    },
    {
      name: 'crawler-never-imports-electron-or-renderer',
      severity: 'error',
      comment: 'the crawler is plain Node under both front ends',
      from: { path: '^crawler/' },
      to: { path: '^(electron|renderer)/' },
    },
    {
      name: 'renderer-imports-only-protocol',
      severity: 'error',
      comment: 'the UI talks to the service only through the contract in crawler/protocol/',
      from: { path: '^renderer/' },
      to: { path: ['^crawler/', '^electron/'], pathNot: '^crawler/protocol/' },
    },
    {
      name: 'preload-imports-only-protocol',
      severity: 'error',
      comment: 'the sandboxed preload may require only electron, and shares types only with the contract',
      from: { path: '^electron/preload/' },
      to: { path: ['^crawler/', '^electron/', '^renderer/'], pathNot: ['^crawler/protocol/', '^electron/preload/'] },
    },
    {
      name: 'electron-processes-stay-apart',
      severity: 'error',
      comment: 'main and the crawler process run in different processes: what both need lives in electron/shared/',
      from: { path: '^electron/(main|crawler-process)/' },
      to: { path: '^electron/(main|crawler-process)/', pathNot: '^electron/$1/' },
    },
    {
      name: 'electron-shared-imports-no-process',
      severity: 'error',
      comment: 'electron/shared/ is used by both processes and so may import neither',
      from: { path: '^electron/shared/' },
      to: { path: '^electron/(main|crawler-process|preload)/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'a cycle ties modules together so that neither can change or be tested alone',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'an import that does not resolve to a file',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a type from a higher layer couples as much as a value does.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '(^|/)dist/' },
  },
};
