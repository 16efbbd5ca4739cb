// Generates generated/bootstrap.json: the objects kube-apiserver's post-start hooks create, read
// from the pinned release by tools/defaulting's `bootstrap`: the API Priority and Fairness
// configuration (the priority-and-fairness-config-producer ensures k8s.io/apiserver's flowcontrol
// bootstrap objects: the mandatory and suggested PriorityLevelConfigurations, then FlowSchemas)
// and the system PriorityClasses (scheduling/bootstrap-system-priority-classes). The fake
// cluster creates the same objects (src/cluster/registry/bootstrap.ts).
//
// Run through scripts/generate.mjs.
import { runDefaulting } from './apigen-defaults.mjs';

export function generate(release) {
  const objects = runDefaulting(release, 'bootstrap').map((o) => {
    // A bootstrap object is a literal: no server-set metadata, no status yet.
    delete o.metadata.creationTimestamp;
    delete o.status;
    return o;
  });
  return { release, objects };
}
