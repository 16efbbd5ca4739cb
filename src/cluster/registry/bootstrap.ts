/**
 * The objects kube-apiserver's post-start hooks create in every cluster, envtest's too, read from
 * the pinned release (generated/bootstrap.json, written by scripts/apigen-bootstrap.mjs from
 * k8s.io/apiserver's flowcontrol bootstrap and k8s.io/kubernetes' scheduling helpers): the API
 * Priority and Fairness configuration (controllers/apf.ts) and the system PriorityClasses.
 */
import { readFileSync } from 'node:fs';
import { generatedFile } from '../api/apidata';
import { clone } from '../apimachinery/clone';
import type { KubeObject } from '../apimachinery/types';
import type { Cluster } from '../cluster';

let objects: KubeObject[] | undefined;

/** Copies of the bootstrap objects of one kind, in the release's order. */
export function bootstrapObjects(kind: string): KubeObject[] {
  objects ??= (
    JSON.parse(readFileSync(generatedFile('bootstrap.json'), 'utf8')) as { objects: KubeObject[] }
  ).objects;
  return objects.filter((o) => o.kind === kind).map((o) => clone(o));
}

/**
 * The scheduling/bootstrap-system-priority-classes hook: system-node-critical and
 * system-cluster-critical, created when missing (as kube-apiserver's loopback client).
 */
export function ensureSystemPriorityClasses(cluster: Cluster): void {
  for (const pc of bootstrapObjects('PriorityClass'))
    if (!cluster.peek(pc, { name: pc.metadata.name! }))
      cluster.create(pc, { fieldManager: 'kube-apiserver' });
}
