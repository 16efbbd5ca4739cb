// Builds the reference control plane the differential suite judges the fake cluster against:
// kube-apiserver and kube-controller-manager from the pinned k8s.io/kubernetes module (the same
// release the served API is generated from). The binaries are cached outside the repository, one
// folder per release, so they are built once and rebuilt only when package.json's
// "kubernetesRelease" changes. Usage: node scripts/realapi/build.mjs  (prints the folder).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureSystemPackages, goVersion } from '../bootstrap.mjs';
import { kubernetesGoMod, kubernetesModuleVersion, kubernetesRelease } from '../kubernetes.mjs';

/**
 * Each binary of the reference control plane and the Go package it is built from. etcd is the
 * version k8s.io/kubernetes itself requires (go.etcd.io/etcd/server/v3 in its build list), not a
 * distribution's older one: kube-apiserver 1.36 streams lists (sendInitialEvents) only on an etcd
 * that supports RequestWatchProgress.
 */
export const BINARY_PACKAGES = {
  'kube-apiserver': 'k8s.io/kubernetes/cmd/kube-apiserver',
  'kube-controller-manager': 'k8s.io/kubernetes/cmd/kube-controller-manager',
  etcd: 'go.etcd.io/etcd/server/v3',
};
export const BINARIES = Object.keys(BINARY_PACKAGES);
/** What the reference cluster needs from Debian: openssl for its keys. */
export const REALAPI_PACKAGES = ['openssl'];

/** The cache folder of one release's binaries. */
export function realapiDir(release = kubernetesRelease()) {
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'reconcile-studio', 'realapi', kubernetesModuleVersion(release));
}

/** True when every binary of the release is already built. */
export function isBuilt(dir = realapiDir()) {
  return BINARIES.every((b) => existsSync(join(dir, b)));
}

/** Builds what is missing (at most 2 parallel compile jobs: the machines have 2 cores) and answers the folder. */
export function buildRealapi(release = kubernetesRelease()) {
  ensureSystemPackages(REALAPI_PACKAGES);
  const dir = realapiDir(release);
  if (isBuilt(dir)) return dir;
  // k8s.io/kubernetes' go.mod names the Go it needs; an older one fails there with Go's own message.
  if (!goVersion()) throw new Error('building the reference kube-apiserver needs Go on PATH');
  const modDir = join(dir, 'mod');
  mkdirSync(modDir, { recursive: true });
  writeFileSync(join(modDir, 'go.mod'), kubernetesGoMod('reconcile-studio/realapi', release));
  for (const bin of BINARIES) {
    const out = join(dir, bin);
    if (existsSync(out)) continue;
    console.error(
      `[realapi] building ${bin} ${kubernetesModuleVersion(release)} (the first time takes ~15 min)`,
    );
    // Built to a temporary name and renamed: an interrupted build never leaves a binary that looks done.
    execFileSync('go', ['build', '-p', '2', '-o', `${out}.tmp`, BINARY_PACKAGES[bin]], {
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
