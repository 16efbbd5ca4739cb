/**
 * kube-apiserver's API Priority and Fairness configuration, which every cluster has, envtest's
 * too (both run inside the apiserver, not the controller-manager):
 * - the config producer (pkg/registry/flowcontrol/ensurer, a post-start hook) creates the
 *   mandatory and suggested PriorityLevelConfigurations and FlowSchemas of k8s.io/apiserver's
 *   bootstrap package, as field manager `api-priority-and-fairness-config-producer-v1`; the
 *   objects come from the pinned release (registry/bootstrap.ts);
 * - the config consumer (k8s.io/apiserver pkg/util/flowcontrol, apf_controller.go) keeps each
 *   FlowSchema's Dangling condition — whether the priority level it names exists — applied to its
 *   status as `api-priority-and-fairness-config-consumer-v1`.
 * The fake does not schedule requests by priority: the objects are served as configuration.
 */
import { StatusError } from '../apimachinery/errors';
import type { KubeObject } from '../apimachinery/types';
import { rec } from '../apimachinery/unstructured';
import type { Cluster } from '../cluster';
import { WorkQueue } from './workqueue';
import { bootstrapObjects } from '../registry/bootstrap';

const GROUP_VERSION = 'flowcontrol.apiserver.k8s.io/v1';
const FS = { apiVersion: GROUP_VERSION, kind: 'FlowSchema' };
const PL = { apiVersion: GROUP_VERSION, kind: 'PriorityLevelConfiguration' };
const PRODUCER = 'api-priority-and-fairness-config-producer-v1';
const CONSUMER = 'api-priority-and-fairness-config-consumer-v1';

/** Creates the bootstrap priority levels and flow schemas that are missing (the ensurer's create). */
export function ensureApfConfiguration(cluster: Cluster): void {
  for (const o of [...bootstrapObjects(PL.kind), ...bootstrapObjects(FS.kind)])
    if (!cluster.peek(o, { name: o.metadata.name! })) cluster.create(o, { fieldManager: PRODUCER });
}

/** The name of the priority level a FlowSchema references. */
function priorityLevelOf(fs: KubeObject): string {
  return String(rec(rec(fs.spec).priorityLevelConfiguration).name ?? '');
}

/** presyncFlowSchemaStatus: the Dangling condition the schema should have, or none to write. */
function danglingCondition(cluster: Cluster, fs: KubeObject): Record<string, unknown> | undefined {
  const pl = priorityLevelOf(fs);
  const dangling = !cluster.peek(PL, { name: pl });
  const status = dangling ? 'True' : 'False';
  const reason = dangling ? 'NotFound' : 'Found';
  const message = dangling
    ? `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(pl)} but there is no such object`
    : `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(pl)} and it exists`;
  const conditions = rec(fs.status).conditions;
  const current = Array.isArray(conditions)
    ? (conditions as Record<string, unknown>[]).find((c) => c.type === 'Dangling')
    : undefined;
  if (current?.status === status && current.reason === reason && current.message === message)
    return undefined;
  return { type: 'Dangling', status, lastTransitionTime: cluster.now(), reason, message };
}

export function startApfConfigConsumer(cluster: Cluster): () => void {
  const q = new WorkQueue('apf-config-consumer', cluster.clock, (name) => sync(name));
  function sync(name: string): void {
    const fs = cluster.peek(FS, { name });
    if (!fs || fs.metadata.deletionTimestamp) return;
    const condition = danglingCondition(cluster, fs);
    if (!condition) return;
    try {
      cluster.patch(
        FS,
        { name },
        {
          apiVersion: GROUP_VERSION,
          kind: 'FlowSchema',
          metadata: { name },
          status: { conditions: [condition] },
        },
        'apply',
        { fieldManager: CONSUMER, force: true, subresource: 'status' },
      );
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  }
  for (const fs of cluster.scan(FS)) q.add(fs.metadata.name!);
  const unsub = cluster.subscribe((c) => {
    if (c.storageKey === 'flowcontrol.apiserver.k8s.io/flowschemas' && c.type !== 'DELETED')
      q.add(c.object.metadata.name!);
    if (c.storageKey === 'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations')
      for (const fs of cluster.scan(FS))
        if (priorityLevelOf(fs) === c.object.metadata.name) q.add(fs.metadata.name!);
  });
  return () => {
    unsub();
    q.stop();
  };
}
