// Bundles every entry point with esbuild and copies the runtime assets (tree-sitter wasm) next to
// them. `--watch` rebuilds on change; `--dev` keeps source maps (never shipped in the VSIX).
import * as esbuild from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureApiTypes } from './apigen/generate.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const watch = process.argv.includes('--watch');
const dev = watch || process.argv.includes('--dev');

const common = {
  bundle: true,
  minify: !dev,
  sourcemap: dev ? 'linked' : false,
  logLevel: 'warning',
  define: { __RS_VERSION__: JSON.stringify(pkg.version) },
  absWorkingDir: root,
};

const node = {
  ...common,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  mainFields: ['module', 'main'],
};

/**
 * Reconciler modules are bundled at run time with esbuild. The CLI runs from an npm install and
 * uses the native esbuild package; the VSIX cannot ship a native binary for every platform, so the
 * extension host uses esbuild-wasm (same API), copied next to the bundle.
 */
const esbuildAt = (target) => ({
  name: 'runtime-esbuild',
  setup(b) {
    b.onResolve({ filter: /^esbuild$/ }, () => ({ path: target, external: true }));
  },
});

/**
 * The extension host loads dist/extension.js at activation; what it needs only later lives in
 * bundles of their own, required on first use, so activation stays cheap.
 */
const LAZY = {
  './engine': './engine.js',
  './kubeconfigsource': './kubeconfigsource.js',
  './vscode/languageclient': './languageclient.js',
};
const lazyBundles = {
  name: 'lazy-bundles',
  setup(b) {
    b.onResolve({ filter: /^\.\/(engine|kubeconfigsource|vscode\/languageclient)$/ }, (args) =>
      args.kind === 'dynamic-import' ? { path: LAZY[args.path], external: true } : undefined,
    );
  },
};

/** Entry points: add one here when a new process or webview appears. */
const builds = [
  {
    ...node,
    entryPoints: { extension: 'src/extension.ts' },
    outdir: 'dist',
    external: ['vscode'],
    plugins: [lazyBundles],
  },
  {
    ...node,
    entryPoints: {
      engine: 'src/vscode/engine.ts',
      kubeconfigsource: 'src/vscode/kubeconfigsource.ts',
      languageclient: 'src/vscode/languageclient.ts',
      // The robustness report's thread: the editor runs `chaos` off the extension host's thread.
      'chaos-worker': 'src/runtime/chaosworker.ts',
      // A Go operator's report (`chaos --go`), likewise off the extension host's thread.
      'gochaos-worker': 'src/runtime/gochaosworker.ts',
    },
    outdir: 'dist',
    external: ['vscode'],
    plugins: [esbuildAt('./esbuild-wasm/lib/main.js')],
  },
  { ...node, entryPoints: { server: 'src/analysis/server.ts' }, outdir: 'dist' },
  {
    ...node,
    entryPoints: { cli: 'src/cli/main.ts' },
    outdir: 'dist',
    banner: { js: '#!/usr/bin/env node' },
    plugins: [esbuildAt('esbuild')],
  },
  { ...node, entryPoints: { 'reconciler-worker': 'src/runtime/worker.ts' }, outdir: 'dist' },
  {
    ...common,
    platform: 'browser',
    target: 'es2022',
    format: 'esm',
    entryPoints: {
      debugger: 'webviews/debugger/main.ts',
      robustness: 'webviews/robustness/main.ts',
    },
    outdir: 'dist/webviews',
  },
  // The extension-host suite (npm run test:electron) is built only when asked for.
  ...(process.argv.includes('--tests')
    ? [
        {
          ...node,
          entryPoints: { index: 'test/extension-host/index.ts' },
          outdir: 'dist/test/extension-host',
          external: ['vscode'],
        },
      ]
    : []),
].filter((b) => Object.values(b.entryPoints).every((p) => existsSync(join(root, p))));

const assets = [
  ['node_modules/web-tree-sitter/tree-sitter.wasm', 'dist/tree-sitter.wasm'],
  ['node_modules/tree-sitter-go/tree-sitter-go.wasm', 'dist/tree-sitter-go.wasm'],
  ...[
    'package.json',
    'lib/main.js',
    'bin/esbuild',
    'esbuild.wasm',
    'wasm_exec.js',
    'wasm_exec_node.js',
    'LICENSE.md',
  ].map((f) => [`node_modules/esbuild-wasm/${f}`, `dist/esbuild-wasm/${f}`]),
];

function copyAssets() {
  for (const [from, to] of assets) {
    mkdirSync(dirname(join(root, to)), { recursive: true });
    copyFileSync(join(root, from), join(root, to));
  }
}

// The bundles import the generated API (generated/api/types.json): make it first.
ensureApiTypes();
if (!watch) rmSync(join(root, 'dist'), { recursive: true, force: true });
copyAssets();
if (watch) {
  const ctxs = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(ctxs.map((c) => c.watch()));
  console.log(`watching ${builds.length} bundles`);
} else {
  const started = performance.now();
  await Promise.all(builds.map((b) => esbuild.build(b)));
  console.log(`built ${builds.length} bundles in ${Math.round(performance.now() - started)} ms`);
}
