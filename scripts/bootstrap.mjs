// Makes a fresh clone runnable before anything else: `npm start` and `npm test` call this first.
// Only Node built-ins here — nothing from node_modules can be imported before it exists.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Installs the npm dependencies when node_modules is missing or older than package-lock.json. */
export function ensureNodeModules() {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  console.error('[bootstrap] installing npm dependencies (npm ci)');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
}

/**
 * Debian packages the end-to-end tests and the code-server install need. As root (as on CI and
 * these machines) they are installed with apt-get; otherwise the user is told what to install.
 */
export function ensureSystemPackages(packages) {
  const missing = packages.filter((p) => {
    try {
      execFileSync('dpkg', ['-s', p], { stdio: 'ignore' });
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    throw new Error(
      `missing Debian packages: ${missing.join(' ')} (sudo apt-get install -y ${missing.join(' ')})`,
    );
  }
  console.error(`[bootstrap] installing Debian packages: ${missing.join(' ')}`);
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', '-qq', ...missing], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

/** What code-server's install needs (ripgrep stands in for a download) and what drives it (chromium). */
export const E2E_PACKAGES = ['chromium', 'ripgrep', 'libkrb5-dev'];
export const START_PACKAGES = ['ripgrep', 'libkrb5-dev'];
/** Clients nobody here wrote, which integration tests drive the fake cluster with. */
export const INTEGRATION_PACKAGES = ['python3-kubernetes', 'ruby-kubeclient'];

/** The oldest Go that builds the sample operator and its tools (controller-runtime v0.24's floor). */
export const GO_MINIMUM = [1, 24];

/** The installed Go's version as [major, minor], or undefined when there is no usable `go`. */
export function goVersion() {
  try {
    const out = execFileSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' }).trim();
    const m = /^go(\d+)\.(\d+)/.exec(out);
    return m ? [Number(m[1]), Number(m[2])] : undefined;
  } catch {
    return undefined;
  }
}

/** Why the Go-specific parts cannot run here ("Go 1.24 or newer is needed for …"), or undefined. */
export function goMissing(what) {
  const v = goVersion();
  const [major, minor] = GO_MINIMUM;
  if (v && (v[0] > major || (v[0] === major && v[1] >= minor))) return undefined;
  const found = v ? `found go${v[0]}.${v[1]}` : 'no `go` on the PATH';
  return `Go ${major}.${minor} or newer is needed for ${what} (${found})`;
}

/** The Go modules the tests build: the sample operator and the webhook test's operator. */
const GO_MODULES = [
  join('samples', 'quota-operator'),
  join('test', 'integration', 'fixtures', 'nightly-operator'),
];

/**
 * Fills the Go module cache for the Go operators (`go mod download`), so their builds and the
 * sample's envtest suite work offline afterwards. Without Go it says what needs Go and carries
 * on: the rest of the project does not need it.
 */
export function ensureGoModules() {
  const why = goMissing('the Go sample operator and its tests');
  if (why) {
    console.error(`[bootstrap] ${why}; skipping its Go modules`);
    return false;
  }
  for (const dir of GO_MODULES) {
    try {
      execFileSync('go', ['mod', 'download'], { cwd: join(root, dir), stdio: 'inherit' });
    } catch (err) {
      // Offline or no module proxy: the rest of the project still works; the Go tests say why.
      console.error(`[bootstrap] go mod download failed in ${dir}: ${err.message}`);
      return false;
    }
  }
  ensureDelve();
  return true;
}

/** Delve's build flags; keep in step with src/runtime/godebug/delve.ts DELVE_GCFLAGS. */
const DELVE_GCFLAGS = 'all=-N -l';

/**
 * Compiles the sample operator's dependencies into Go's build cache, as the extension's own
 * warm-up does when a workspace opens (src/runtime/gowarmup.ts): once as Run Go Operator builds
 * (no flags) and once as Debug Go Operator does (Delve's flags). On a machine whose cache is
 * empty that is minutes of compiling controller-runtime and client-go; done here, before the
 * end-to-end tests, their time limits measure the extension, not the first compile. Quick when
 * the cache is warm.
 */
export function warmGoBuilds() {
  if (goMissing('the Go sample operator')) return;
  const cwd = join(root, 'samples', 'quota-operator');
  for (const flags of [[], [`-gcflags=${DELVE_GCFLAGS}`]]) {
    const started = Date.now();
    try {
      execFileSync('go', ['list', '-export', '-deps', ...flags, '-f', '{{.ImportPath}}', './cmd'], {
        cwd,
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    } catch (err) {
      // A build that fails here fails in the tests too, with the test saying what it expected.
      console.error(`[bootstrap] warming the Go build cache failed: ${err.message}`);
      return;
    }
    const s = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `[bootstrap] Go build cache warm for the sample (${flags.join(' ') || 'run'}): ${s}s`,
    );
  }
}

/** The Delve the Go debugger runs (`dlv dap`); keep in step with src/runtime/godebug/delve.ts. */
export const DELVE_VERSION = 'v1.27.2';

/**
 * Installs the pinned Delve into GOPATH/bin with `go install` unless that exact version is
 * already there (a `dlv version` call: fast when installed).
 */
export function ensureDelve() {
  const gopath = execFileSync('go', ['env', 'GOPATH'], { encoding: 'utf8' }).trim().split(':')[0];
  const dlv = join(gopath, 'bin', 'dlv');
  if (existsSync(dlv)) {
    try {
      const out = execFileSync(dlv, ['version'], { encoding: 'utf8' });
      if (out.includes(`Version: ${DELVE_VERSION.slice(1)}`)) return;
    } catch {
      // A broken dlv is reinstalled.
    }
  }
  console.error(`[bootstrap] installing Delve ${DELVE_VERSION} (go install)`);
  try {
    execFileSync('go', ['install', `github.com/go-delve/delve/cmd/dlv@${DELVE_VERSION}`], {
      stdio: 'inherit',
    });
  } catch (err) {
    // As for the modules: the Go debugger's tests say Delve is missing; nothing else needs it.
    console.error(`[bootstrap] installing Delve failed: ${err.message}`);
  }
}
