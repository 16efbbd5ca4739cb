// Generates generated/bootstrap.json: the objects kube-apiserver's post-start hooks create, read
// from the pinned release by tools/defaulting's `bootstrap`: the API Priority and Fairness
// configuration (the priority-and-fairness-config-producer ensures k8s.io/apiserver's flowcontrol
// bootstrap objects: the mandatory and suggested PriorityLevelConfigurations, then FlowSchemas)
// and the system PriorityClasses (scheduling/bootstrap-system-priority-classes). The fake
// cluster creates the same objects (src/cluster/registry/bootstrap.ts).
//
// Run through scripts/generate.mjs.
import { execFileSync } from 'node:child_process';
import { buildDefaulting } from './apigen-defaults.mjs';

export function generate(release) {
  const out = execFileSync(buildDefaulting(release), ['bootstrap'], {
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
