/**
 * The extension-host suite for `npm run test:electron` (and the "Extension Tests" launch
 * configuration): runs inside a desktop VS Code started by @vscode/test-electron, with the
 * sample operator open. Machines without a VS Code download (like CI here) run the same checks
 * through code-server in test/e2e instead.
 */
import Mocha from 'mocha';
import { suite } from './extension.suite';

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', timeout: 60_000, color: true });
  mocha.suite.emit('pre-require', globalThis, 'extension-host', mocha);
  suite();
  return new Promise((resolve, reject) =>
    mocha.run((failures) =>
      failures ? reject(new Error(`${failures} extension-host tests failed`)) : resolve(),
    ),
  );
}
