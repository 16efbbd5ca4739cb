// `npm test`: unit, integration and end-to-end suites in one run of node's test runner, so the run
// ends with one summary. Integration tests need the bundles (they spawn dist/cli.js); end-to-end
// tests need the packaged VSIX and code-server, which this script prepares first.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  E2E_PACKAGES,
  INTEGRATION_PACKAGES,
  ensureGoModules,
  warmGoBuilds,
  ensureNodeModules,
  ensureSystemPackages,
} from './bootstrap.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values, positionals } = parseArgs({
  options: { suite: { type: 'string', multiple: true } },
  allowPositionals: true,
});

const SUITES = {
  unit: [
    'test/cluster',
    'test/runtime',
    'test/analysis',
    'test/cli',
    'test/vscode',
    'test/util',
    'test/proxy',
    'test/differential',
    'test/webviews',
    'syntaxes/test',
  ],
  integration: ['test/integration'],
  e2e: ['test/e2e'],
};
const suites = values.suite ?? Object.keys(SUITES);

function testFiles(dir) {
  const abs = join(root, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs, { recursive: true })
    .map((f) => join(abs, f.toString()))
    .filter(
      (f) =>
        /\.test\.(ts|mjs|js)$/.test(f) &&
        statSync(f).isFile() &&
        !f.includes(`${join('fixtures', '')}`),
    )
    .sort();
}

let files = positionals.length
  ? positionals.map((p) => join(root, p))
  : suites.flatMap((s) => SUITES[s].flatMap(testFiles));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

ensureNodeModules();
// Unit tests import the generated API data as the bundles do.
await (await import('./generate.mjs')).generate();
const needsBuild = files.some(
  (f) => f.includes(join('test', 'integration')) || f.includes(join('test', 'e2e')),
);
const needsE2e = files.some((f) => f.includes(join('test', 'e2e')));
const run = (script, ...args) =>
  execFileSync(process.execPath, [join(root, script), ...args], { stdio: 'inherit', cwd: root });
if (needsE2e) ensureSystemPackages(E2E_PACKAGES);
if (files.some((f) => f.includes(join('test', 'integration'))))
  ensureSystemPackages(INTEGRATION_PACKAGES);
if (needsBuild) ensureGoModules();
if (needsE2e) warmGoBuilds();
if (needsE2e) run('scripts/package.mjs');
else if (needsBuild) run('scripts/build.mjs');
if (needsE2e) {
  const { ensureCodeServer } = await import('./codeserver.mjs');
  ensureCodeServer();
}

console.log(`running ${files.length} test files (${suites.join(', ')})`);
const res = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', ...files.map((f) => relative(root, f))],
  { stdio: 'inherit', cwd: root, env: { ...process.env, RS_ROOT: root } },
);
process.exit(res.status ?? 1);
