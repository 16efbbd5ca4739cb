// Builds the bundles and packs them into a lean VSIX with @vscode/vsce. Everything the extension
// runs is bundled, so node_modules is left out (--no-dependencies); .vscodeignore keeps sources,
// tests and maps out.
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
export const vsixPath = join(root, `${pkg.name}-${pkg.version}.vsix`);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!process.argv.includes('--no-build')) {
    execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], {
      stdio: 'inherit',
      cwd: root,
    });
  }
  const vsce = join(root, 'node_modules/@vscode/vsce/vsce');
  execFileSync(
    process.execPath,
    [
      vsce,
      'package',
      '--no-dependencies',
      '--allow-missing-repository',
      '--no-rewrite-relative-links',
      '--out',
      vsixPath,
    ],
    { stdio: ['ignore', 'inherit', 'inherit'], cwd: root },
  );
  const size = statSync(vsixPath).size;
  console.log(`VSIX ${vsixPath.slice(root.length + 1)}: ${(size / 1024 / 1024).toFixed(2)} MB`);
  // A guard against shipping what was never meant to ship (sources, maps, node_modules): the
  // VSIX is about 8.1 MB, mostly esbuild-wasm (reconcilers are bundled in the extension host) and
  // TypeScript (the TypeScript analyzers); the generated Kubernetes API adds its data once (about
  // 0.4 MB, the v2 protobuf included) and the protobuf codec to each bundle that serves the cluster.
  if (size > 9 * 1024 * 1024) {
    console.error('The VSIX is over 9 MB; check .vscodeignore.');
    process.exit(1);
  }
}
