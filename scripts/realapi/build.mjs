// Builds the reference control plane the differential suite judges the fake cluster against:
// kube-apiserver and kube-controller-manager from the pinned k8s.io/kubernetes module (the same
// release the served API is generated from). The binaries are cached outside the repository, one
// folder per release, so they are built once and rebuilt only when package.json's
// "kubernetesRelease" changes. Usage: node scripts/realapi/build.mjs  (prints the folder).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureSystemPackages, goVersion } from '../bootstrap.mjs';
import {
  downloadModule,
  kubernetesModuleVersion,
  kubernetesRelease,
  stagingModuleVersion,
} from '../kubernetes.mjs';

export const BINARIES = ['kube-apiserver', 'kube-controller-manager'];
/** What the reference cluster needs from Debian: etcd for the apiserver's storage, openssl for its keys. */
export const REALAPI_PACKAGES = ['etcd-server', 'openssl'];

/** The cache folder of one release's binaries. */
export function realapiDir(release = kubernetesRelease()) {
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'reconcile-studio', 'realapi', kubernetesModuleVersion(release));
}

/** True when both binaries of the release are already built. */
export function isBuilt(dir = realapiDir()) {
  return BINARIES.every((b) => existsSync(join(dir, b)));
}

/**
 * A go.mod requiring k8s.io/kubernetes at the release, with the staging modules it replaces by
 * ./staging paths pointed at their published versions of the same release (what its own go.mod
 * does inside its repository, which a module consumer cannot inherit).
 */
function writeModule(modDir, release) {
  const info = downloadModule('k8s.io/kubernetes', kubernetesModuleVersion(release));
  const upstream = readFileSync(info.GoMod, 'utf8');
  const staged = [...upstream.matchAll(/^\s*(k8s\.io\/[a-z0-9-]+)\s*=>\s*\.\/staging/gm)].map(
    (m) => m[1],
  );
  const lines = [
    'module reconcile-studio/realapi',
    '',
    'go 1.26.0',
    '',
    `require k8s.io/kubernetes ${kubernetesModuleVersion(release)}`,
    '',
    ...staged.map((m) => `replace ${m} => ${m} ${stagingModuleVersion(release)}`),
    '',
  ];
  mkdirSync(modDir, { recursive: true });
  writeFileSync(join(modDir, 'go.mod'), lines.join('\n'));
}

/** Builds what is missing (at most 2 parallel compile jobs: the machines have 2 cores) and answers the folder. */
export function buildRealapi(release = kubernetesRelease()) {
  ensureSystemPackages(REALAPI_PACKAGES);
  const dir = realapiDir(release);
  if (isBuilt(dir)) return dir;
  // k8s.io/kubernetes' go.mod names the Go it needs; an older one fails there with Go's own message.
  if (!goVersion()) throw new Error('building the reference kube-apiserver needs Go on PATH');
  const modDir = join(dir, 'mod');
  writeModule(modDir, release);
  for (const bin of BINARIES) {
    const out = join(dir, bin);
    if (existsSync(out)) continue;
    console.error(
      `[realapi] building ${bin} ${kubernetesModuleVersion(release)} (the first time takes ~15 min)`,
    );
    // Built to a temporary name and renamed: an interrupted build never leaves a binary that looks done.
    execFileSync('go', ['build', '-p', '2', '-o', `${out}.tmp`, `k8s.io/kubernetes/cmd/${bin}`], {
      cwd: modDir,
      stdio: 'inherit',
      env: { ...process.env, GOFLAGS: '-mod=mod' },
    });
    renameSync(`${out}.tmp`, out);
  }
  return dir;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(buildRealapi());
}
