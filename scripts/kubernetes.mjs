// The one Kubernetes release the project follows: the API it serves is generated from this
// release's published definitions, and the reference control plane the differential suite
// compares with is built from the same release. Bumping the release is the one line in
// package.json's "kubernetesRelease".
// Only Node built-ins here: the build and the bootstrap import it before node_modules exists.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The pinned release, e.g. "1.36.3" (package.json's "kubernetesRelease"). */
export function kubernetesRelease() {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const v = pkg.kubernetesRelease;
  if (!/^1\.\d+\.\d+$/.test(v ?? '')) {
    throw new Error(`package.json "kubernetesRelease" must be a release such as 1.36.3, not ${v}`);
  }
  return v;
}

/** The k8s.io/kubernetes module version of the release (v1.36.3). */
export function kubernetesModuleVersion(release = kubernetesRelease()) {
  return `v${release}`;
}

/** The version of the staging modules (k8s.io/api, apimachinery, client-go, …) of the release (v0.36.3). */
export function stagingModuleVersion(release = kubernetesRelease()) {
  return `v0.${release.slice(2)}`;
}

/**
 * Downloads one module version into Go's module cache (`go mod download -json`) and answers what
 * Go says of it: `Dir` (read-only source), `GoMod`, `Zip`, `Version`.
 */
export function downloadModule(path, version) {
  const out = execFileSync('go', ['mod', 'download', '-json', `${path}@${version}`], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 16 << 20,
  });
  const info = JSON.parse(out);
  if (info.Error) throw new Error(`go mod download ${path}@${version}: ${info.Error}`);
  return info;
}

/** The modules (path, version) whose pkg/registry holds the release's built-in strategies. */
export function registryModules(release = kubernetesRelease()) {
  return [
    ['k8s.io/kubernetes', kubernetesModuleVersion(release)],
    ['k8s.io/apiextensions-apiserver', stagingModuleVersion(release)],
    ['k8s.io/kube-aggregator', stagingModuleVersion(release)],
  ];
}

/** Every strategy.go below a module's pkg/registry (apimachinery's test group left out). */
export function strategyFiles(dir) {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => /(^|\/)strategy\.go$/.test(f) && !f.includes('testapigroup'))
    .map((f) => join(dir, f));
}

/**
 * A go.mod requiring k8s.io/kubernetes at the release, with the staging modules it replaces by
 * ./staging paths pointed at their published versions of the same release (what its own go.mod
 * does inside its repository, which a module consumer cannot inherit).
 */
export function kubernetesGoMod(moduleName, release = kubernetesRelease()) {
  const info = downloadModule('k8s.io/kubernetes', kubernetesModuleVersion(release));
  const upstream = readFileSync(info.GoMod, 'utf8');
  const staged = [...upstream.matchAll(/^\s*(k8s\.io\/[a-z0-9-]+)\s*=>\s*\.\/staging/gm)].map(
    (m) => m[1],
  );
  return [
    `module ${moduleName}`,
    '',
    'go 1.26.0',
    '',
    `require k8s.io/kubernetes ${kubernetesModuleVersion(release)}`,
    '',
    ...staged.map((m) => `replace ${m} => ${m} ${stagingModuleVersion(release)}`),
    '',
  ].join('\n');
}
