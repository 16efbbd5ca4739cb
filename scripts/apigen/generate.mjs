// Generates the API's type graph (generated/api/types.json) from the pinned release's own Go
// types: a scratch Go module in .cache/apigen/<release>/ requires the release's staging modules,
// builds tools/apigen/main.go and runs it. The build calls ensureApiTypes(); a fresh clone thus
// generates once, and again only when package.json's "kubernetesRelease" changes.
// Only Node built-ins here: the build imports it before node_modules exists.
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { kubernetesRelease, root, stagingModuleVersion } from '../kubernetes.mjs';

/** The staging modules whose types the API serves. */
const MODULES = [
  'k8s.io/api',
  'k8s.io/apimachinery',
  'k8s.io/client-go',
  'k8s.io/apiextensions-apiserver',
  'k8s.io/kube-aggregator',
];

export const generatedDir = join(root, 'generated', 'api');
export const typesFile = join(generatedDir, 'types.json');
const stampFile = join(generatedDir, 'release');

/** The scratch module and the built program of a release. */
export function apigenPaths(release = kubernetesRelease()) {
  const dir = join(root, '.cache', 'apigen', release);
  return { dir, binary: join(dir, process.platform === 'win32' ? 'apigen.exe' : 'apigen') };
}

export function go(args, cwd) {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
  } catch {
    throw new Error(
      'generating the Kubernetes API (generated/api) needs Go on the PATH: it reads the types of the pinned release with `go mod download`',
    );
  }
  return execFileSync('go', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 256 << 20,
    // Two cores are shared: never more than two compiles at once.
    env: { ...process.env, GOFLAGS: `${process.env.GOFLAGS ?? ''} -p=2`.trim(), GOWORK: 'off' },
  });
}

/** Builds (or reuses) the generator for a release and answers the binary's path. */
export function buildApigen(release = kubernetesRelease()) {
  const { dir, binary } = apigenPaths(release);
  const source = join(root, 'tools', 'apigen', 'main.go');
  const copied = join(dir, 'main.go');
  const fresh =
    existsSync(binary) &&
    existsSync(copied) &&
    readFileSync(copied, 'utf8') === readFileSync(source, 'utf8');
  if (fresh) return binary;
  mkdirSync(dir, { recursive: true });
  const version = stagingModuleVersion(release);
  writeFileSync(
    join(dir, 'go.mod'),
    `module reconcilestudio/apigen\n\ngo 1.24\n\nrequire (\n${MODULES.map((m) => `\t${m} ${version}\n`).join('')})\n`,
  );
  copyFileSync(source, copied);
  go(['mod', 'tidy'], dir);
  go(['build', '-o', binary, '.'], dir);
  return binary;
}

/** Runs the generator and writes generated/api/types.json (compact) and its release stamp. */
export function generateApiTypes(release = kubernetesRelease()) {
  const binary = buildApigen(release);
  const out = execFileSync(binary, ['types', release], {
    encoding: 'utf8',
    maxBuffer: 256 << 20,
  });
  const graph = JSON.parse(out);
  mkdirSync(generatedDir, { recursive: true });
  const tmp = `${typesFile}.tmp`;
  writeFileSync(tmp, JSON.stringify(graph));
  renameSync(tmp, typesFile);
  writeFileSync(stampFile, `${release}\n`);
  return graph;
}

/** Generates unless the output is there and was made for the pinned release. */
export function ensureApiTypes() {
  const release = kubernetesRelease();
  const stamped = existsSync(stampFile) ? readFileSync(stampFile, 'utf8').trim() : '';
  if (stamped === release && existsSync(typesFile)) return false;
  const started = performance.now();
  const graph = generateApiTypes(release);
  console.log(
    `generated the API of Kubernetes ${release}: ${graph.kinds.length} kinds, ${Object.keys(graph.types).length} types in ${Math.round(performance.now() - started)} ms`,
  );
  return true;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) {
  ensureApiTypes();
}
