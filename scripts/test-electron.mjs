// `npm run test:electron`: the extension-host suite (test/extension-host) in a desktop VS Code
// downloaded by @vscode/test-electron, for machines that can download it. Machines that cannot
// (no internet) run the same checks in code-server through `npm test`'s end-to-end suite.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTests } from '@vscode/test-electron';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
execFileSync(process.execPath, [join(root, 'scripts/build.mjs'), '--dev', '--tests'], {
  stdio: 'inherit',
  cwd: root,
});
try {
  await runTests({
    extensionDevelopmentPath: root,
    extensionTestsPath: join(root, 'dist/test/extension-host/index.js'),
    launchArgs: [
      join(root, 'samples/quota-operator'),
      '--disable-extensions',
      '--disable-workspace-trust',
    ],
  });
} catch (err) {
  console.error(`extension-host tests failed: ${err instanceof Error ? err.message : err}`);
  process.exit(1);
}
