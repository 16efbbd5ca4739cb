// Builds and runs tools/openapiv2pb: the OpenAPI v2 document as the gnostic protobuf
// kube-apiserver serves to clients that ask for it (kubectl, client-go's discovery), and the field
// numbers of gnostic's OpenAPIv2.proto for what the server adds to it at run time (CRDs).
// The program runs in a scratch module, .cache/openapiv2pb/<release>/, that requires the
// gnostic-models, protobuf and YAML modules at the versions the release's own go.mod pins, so
// the bytes are those its kube-apiserver makes.
// Only Node built-ins here: the build runs it before node_modules exists.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildGoTool } from './gotool.mjs';
import { downloadModule, kubernetesModuleVersion, kubernetesRelease, root } from './kubernetes.mjs';

/** The modules the program imports. */
const MODULES = [
  'github.com/google/gnostic-models',
  'google.golang.org/protobuf',
  'go.yaml.in/yaml/v3',
];

export const openapiv2pbSource = join(root, 'tools', 'openapiv2pb', 'main.go');

/** The release's version of each module, from k8s.io/kubernetes' go.mod. */
function pinnedVersions(release) {
  const mod = downloadModule('k8s.io/kubernetes', kubernetesModuleVersion(release));
  const goMod = readFileSync(mod.GoMod, 'utf8');
  return MODULES.map((m) => {
    const v = new RegExp(`^\\s*${m.replace(/\./g, '\\.')} (v\\S+)`, 'm').exec(goMod)?.[1];
    if (!v) throw new Error(`k8s.io/kubernetes ${release} does not require ${m}`);
    return [m, v];
  });
}

/** Builds (or reuses) the program for a release and answers the binary's path. */
export function buildOpenapiv2pb(release = kubernetesRelease()) {
  const requires = pinnedVersions(release).map(([m, v]) => `\t${m} ${v}\n`);
  return buildGoTool(
    'openapiv2pb',
    `module reconcilestudio/openapiv2pb\n\ngo 1.24\n\nrequire (\n${requires.join('')})\n`,
    { release },
  );
}

/** The protobuf of a v2 document given as JSON text (kube-openapi's ToProtoBinary). */
export function openapiV2Protobuf(json, release = kubernetesRelease()) {
  return execFileSync(buildOpenapiv2pb(release), ['encode'], {
    input: json,
    maxBuffer: 256 << 20,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
}

/** Each message of OpenAPIv2.proto: its fields' [number, kind, message type] by name. */
export function openapiV2Fields(release = kubernetesRelease()) {
  return JSON.parse(
    execFileSync(buildOpenapiv2pb(release), ['fields'], {
      encoding: 'utf8',
      maxBuffer: 16 << 20,
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
}
