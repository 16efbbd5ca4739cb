// Generates generated/apfbootstrap.json: the API Priority and Fairness configuration
// kube-apiserver creates at start (its priority-and-fairness-config-producer post-start hook
// ensures k8s.io/apiserver's flowcontrol bootstrap objects: the mandatory and suggested
// PriorityLevelConfigurations, then FlowSchemas), read from the pinned release by
// tools/defaulting's `apfbootstrap`. The fake cluster creates the same objects
// (src/cluster/controllers/apf.ts).
//
// Run through scripts/generate.mjs.
import { execFileSync } from 'node:child_process';
import { buildDefaulting } from './apigen-defaults.mjs';

export function generate(release) {
  const out = execFileSync(buildDefaulting(release), ['apfbootstrap'], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const objects = out
    .trim()
    .split('\n')
    .map((l) => {
      const o = JSON.parse(l);
      // A bootstrap object is a literal: no server-set metadata, no status yet.
      delete o.metadata.creationTimestamp;
      delete o.status;
      return o;
    });
  return { release, objects };
}
