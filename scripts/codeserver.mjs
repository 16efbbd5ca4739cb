// code-server (VS Code OSS with a Node extension host and the web workbench) as the real VS Code
// for `npm start` and the end-to-end tests. Installed on demand into a cache shared by every clone
// on this machine, keyed by version, the way ../E2E notes describe for machines without internet.
import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  writeFileSync,
  copyFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

export const CODE_SERVER_VERSION = '4.100.3';
// @vscode/ripgrep's postinstall downloads ripgrep from GitHub; it first looks for this tarball.
const RIPGREP_PKG_VERSION = '1.15.11';
const RIPGREP_ASSET = 'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz';

export function cacheDir() {
  return process.env.RECONCILE_STUDIO_CACHE ?? join(homedir(), '.cache', 'reconcile-studio');
}

export function codeServerBin() {
  return join(
    cacheDir(),
    `code-server-${CODE_SERVER_VERSION}`,
    'node_modules',
    '.bin',
    'code-server',
  );
}

function log(msg) {
  process.stderr.write(`[code-server] ${msg}\n`);
}

/** Seeds @vscode/ripgrep's download cache with Debian's rg so its postinstall works offline. */
function seedRipgrepCache(tmp) {
  const dir = join(tmp, `vscode-ripgrep-cache-${RIPGREP_PKG_VERSION}`);
  const tarball = join(dir, RIPGREP_ASSET);
  if (existsSync(tarball)) return;
  if (!existsSync('/usr/bin/rg')) throw new Error('ripgrep is missing: apt-get install ripgrep');
  mkdirSync(dir, { recursive: true });
  const stage = mkdtempSync(join(tmp, 'rg-'));
  copyFileSync('/usr/bin/rg', join(stage, 'rg'));
  execFileSync('tar', ['czf', tarball, '-C', stage, 'rg']);
  rmSync(stage, { recursive: true, force: true });
}

/** Installs code-server into the cache unless it is there already; returns its binary. */
export function ensureCodeServer() {
  const bin = codeServerBin();
  if (existsSync(bin)) return bin;
  const target = join(cacheDir(), `code-server-${CODE_SERVER_VERSION}`);
  const stage = `${target}.partial-${process.pid}`;
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  writeFileSync(
    join(stage, 'package.json'),
    JSON.stringify({ name: 'rs-code-server', private: true }),
  );
  const tmp = tmpdir();
  seedRipgrepCache(tmp);
  log(`installing code-server ${CODE_SERVER_VERSION} (once per machine, about a minute)`);
  execFileSync(
    'npm',
    [
      'install',
      '--unsafe-perm',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `code-server@${CODE_SERVER_VERSION}`,
    ],
    {
      cwd: stage,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, npm_config_yes: 'true', npm_config_unsafe_perm: 'true', TMPDIR: tmp },
    },
  );
  // Install into a staging folder and rename, so an interrupted install never looks finished.
  rmSync(target, { recursive: true, force: true });
  renameSync(stage, target);
  return bin;
}

export function installExtension(bin, extensionsDir, vsix) {
  execFileSync(bin, ['--extensions-dir', extensionsDir, '--install-extension', vsix, '--force'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** A throw-away profile: no trust prompt, no welcome page, unless the caller asks otherwise. */
export function makeProfile(userDataDir, settings = {}) {
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  writeFileSync(
    join(userDataDir, 'User', 'settings.json'),
    JSON.stringify(
      {
        'security.workspace.trust.enabled': false,
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'extensions.ignoreRecommendations': true,
        'telemetry.telemetryLevel': 'off',
        'git.openRepositoryInParentFolders': 'never',
        ...settings,
      },
      null,
      2,
    ),
  );
}

/**
 * Starts code-server on 127.0.0.1 and resolves once it answers HTTP. `stop()` ends it and the
 * extension host it started.
 */
export async function startCodeServer({
  bin,
  port,
  workspace,
  userDataDir,
  extensionsDir,
  env = {},
  trust = false,
  stdio = 'pipe',
}) {
  const args = [
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    '--user-data-dir',
    userDataDir,
    '--extensions-dir',
    extensionsDir,
  ];
  if (!trust) args.push('--disable-workspace-trust');
  args.push(workspace);
  const proc = spawn(bin, args, {
    stdio: ['ignore', stdio, stdio],
    env: { ...process.env, ...env },
    detached: true,
  });
  let output = '';
  proc.stdout?.on('data', (d) => (output += d));
  proc.stderr?.on('data', (d) => (output += d));
  const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null)
      throw new Error(`code-server exited with ${proc.exitCode}:\n${output}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline)
      throw new Error(`code-server did not answer within 60 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const stop = () =>
    new Promise((resolve) => {
      if (proc.exitCode !== null) return resolve();
      proc.once('exit', () => resolve());
      try {
        process.kill(-proc.pid, 'SIGTERM');
      } catch {
        resolve();
      }
    });
  return { url, proc, stop, output: () => output };
}
