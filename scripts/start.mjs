// `npm start`: builds and packages the extension, installs it into code-server (installed on
// demand, cached per machine), and serves VS Code on 127.0.0.1 with the sample operator open on
// the embedded fake cluster. Ctrl-C stops it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  START_PACKAGES,
  ensureGoModules,
  ensureNodeModules,
  ensureSystemPackages,
} from './bootstrap.mjs';
import {
  ensureCodeServer,
  freePort,
  installExtension,
  makeProfile,
  startCodeServer,
} from './codeserver.mjs';
import { vsixPath } from './package.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
ensureNodeModules();
ensureSystemPackages(START_PACKAGES);
ensureGoModules();
execFileSync(process.execPath, [join(root, 'scripts/package.mjs')], {
  stdio: 'inherit',
  cwd: root,
});
const bin = ensureCodeServer();

const state = join(root, '.e2e', 'start');
const extensionsDir = join(state, 'extensions');
const userDataDir = join(state, 'user-data');
// A fresh profile each time, so what you see is what a new user sees.
rmSync(state, { recursive: true, force: true });
mkdirSync(state, { recursive: true });
makeProfile(userDataDir, { 'reconcileStudio.cluster.autoStart': true });
installExtension(bin, extensionsDir, vsixPath);

const port = Number(process.env.PORT) || (await freePort());
const workspace = process.env.RS_WORKSPACE ?? join(root, 'samples', 'quota-operator');
const server = await startCodeServer({ bin, port, workspace, userDataDir, extensionsDir });
console.log(`\nReconcile Studio is running in VS Code (code-server) at:\n\n  ${server.url}\n`);
console.log(`Workspace: ${workspace}\nPress Ctrl-C to stop.`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  console.log('\nstopping code-server…');
  await server.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
process.on('SIGHUP', stop);
// Last resort when this process dies some other way: never leave code-server running behind.
process.on('exit', () => {
  try {
    process.kill(-server.proc.pid, 'SIGTERM');
  } catch {
    // already gone
  }
});
server.proc.on('exit', (code) => {
  if (!stopping) {
    console.error(`code-server exited (${code}):\n${server.output().slice(-2000)}`);
    process.exit(1);
  }
});
