// Generates generated/defaults.json: for each built-in kind, the fields the pinned release's own
// defaulting functions set when they are unset. tools/defaulting runs kube-apiserver's scheme
// defaulters (SetDefaults_* and the generated SetObjectDefaults_* that walk each kind) on two
// probes of every served kind and reports each field they filled (see its `rules`). The fake
// cluster applies those rules (src/cluster/api/defaulting.ts); where a defaulter decides on other
// fields (an image's tag, a strategy's type), code beside the rules does what its Go does, and
// the tests judge both with the same program's `default`.
//
// Run through scripts/generate.mjs.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildGoTool } from './gotool.mjs';
import { kubernetesGoMod, kubernetesRelease, root } from './kubernetes.mjs';

/** The group/version/Kinds the release serves, from the generated discovery (made first). */
export function servedKinds() {
  const api = JSON.parse(readFileSync(join(root, 'generated', 'discovery', 'api.json'), 'utf8'));
  const served = new Set();
  for (const g of api.groups)
    for (const v of g.versions)
      for (const r of v.list.resources)
        if (!r.name.includes('/')) served.add(`${g.name}/${v.version}/${r.kind}`);
  return served;
}

/** Builds (or reuses) tools/defaulting for a release and answers the binary's path. */
export function buildDefaulting(release = kubernetesRelease()) {
  return buildGoTool('defaulting', kubernetesGoMod('reconcilestudio/defaulting', release), {
    release,
    tidy: false,
  });
}

/** Runs one command of tools/defaulting (built for the release) and answers its JSON lines. */
export function runDefaulting(release, command) {
  const out = execFileSync(buildDefaulting(release), [command], {
    encoding: 'utf8',
    maxBuffer: 256 << 20,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

export function generate(release) {
  const served = servedKinds();
  const kinds = {};
  for (const k of runDefaulting(release, 'rules')) {
    if (!served.has(`${k.g}/${k.v}/${k.k}`)) continue;
    kinds[`${k.g}/${k.v}/${k.k}`] = {
      rules: (k.r ?? []).map((r) => (r.z ? [r.p, r.v, 1] : [r.p, r.v])),
      conflicts: k.c ?? [],
    };
  }
  return { kinds };
}
