// Generates the API's type graph (generated/api/types.json) from the pinned release's own Go
// types: a scratch Go module in .cache/apigen/<release>/ requires the release's staging modules,
// builds tools/apigen/main.go and runs it. The build calls ensureApiTypes(); a fresh clone thus
// generates once, and again only when package.json's "kubernetesRelease" changes.
// Only Node built-ins here: the build imports it before node_modules exists.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildGoTool } from '../gotool.mjs';
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

/** Builds (or reuses) the generator for a release and answers the binary's path. */
export function buildApigen(release = kubernetesRelease()) {
  const version = stagingModuleVersion(release);
  return buildGoTool(
    'apigen',
    `module reconcilestudio/apigen\n\ngo 1.24\n\nrequire (\n${MODULES.map((m) => `\t${m} ${version}\n`).join('')})\n`,
    { release },
  );
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
