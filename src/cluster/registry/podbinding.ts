/**
 * POST pods/NAME/binding (kube-apiserver's BindingREST, pkg/registry/core/pod/storage): what a
 * scheduler calls to put a pending pod on a node. The pod is changed in storage directly — node
 * name set, the Binding's annotations and labels copied over, PodScheduled true, the nomination
 * cleared — under the Binding's UID and resourceVersion as preconditions; the answer is a bare
 * Success Status.
 */
import { newBadRequest, newConflict, newUnknownStorageError } from '../apimachinery/errors';
import { isObject } from '../apimachinery/patch';
import type { KubeObject, ObjectKey, TypeRef } from '../apimachinery/types';

const POD = { apiVersion: 'v1', kind: 'Pod' };
const BINDING = { group: '', resource: 'pods/binding' };

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (isObject(v) ? v : {});
const strings = (v: unknown): Record<string, string> => rec(v) as Record<string, string>;

/** The Status a binding answers with (201). */
export const BOUND = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Success',
  code: 201,
} as const;

/**
 * ValidatePodBinding's errors, aggregated as the REST handler returns them: not a StatusError,
 * so the apiserver answers 500 with the aggregate's text.
 */
function validateBinding(target: Obj): void {
  const errs: string[] = [];
  const kind = typeof target.kind === 'string' ? target.kind : '';
  if (kind && kind !== 'Node')
    errs.push(`target.kind: Unsupported value: "${kind}": supported values: "Node", "<empty>"`);
  if (!target.name) errs.push('target.name: Required value');
  if (errs.length === 0) return;
  throw newUnknownStorageError(errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`);
}

/** Upstream's reasons a pod cannot be bound, each a 409 on pods/binding. */
function refuseBinding(name: string, why: string): never {
  throw newConflict(BINDING, name, why);
}

/** What a binding needs of the store: its GuaranteedUpdate and the clock (Cluster has both). */
export interface BindingStore {
  guaranteedUpdate(
    type: TypeRef,
    key: ObjectKey,
    preconditions: { uid?: string; resourceVersion?: string },
    change: (obj: KubeObject) => void,
    opts?: { dryRun?: boolean },
  ): KubeObject;
  now(): string;
}

export function bindPod(
  cluster: BindingStore,
  key: { namespace: string; name: string },
  binding: KubeObject,
  dryRun: boolean,
): typeof BOUND {
  const md = rec(binding.metadata);
  if (md.name !== key.name)
    throw newBadRequest('name in URL does not match name in Binding object');
  const target = rec((binding as Obj).target);
  validateBinding(target);
  const node = String(target.name);
  cluster.guaranteedUpdate(
    POD,
    key,
    {
      uid: typeof md.uid === 'string' ? md.uid : undefined,
      resourceVersion: typeof md.resourceVersion === 'string' ? md.resourceVersion : undefined,
    },
    (pod) => {
      const spec = rec(pod.spec);
      if (pod.metadata.deletionTimestamp)
        refuseBinding(key.name, `pod ${key.name} is being deleted, cannot be assigned to a host`);
      if (spec.nodeName)
        refuseBinding(
          key.name,
          `pod ${key.name} is already assigned to node "${String(spec.nodeName)}"`,
        );
      if (Array.isArray(spec.schedulingGates) && spec.schedulingGates.length)
        refuseBinding(key.name, `pod ${key.name} has non-empty .spec.schedulingGates`);
      spec.nodeName = node;
      pod.spec = spec;
      // setPodNodeAndMetadata makes the map when there is none; empty, it is not written.
      const annotations = { ...strings(pod.metadata.annotations), ...strings(md.annotations) };
      if (Object.keys(annotations).length) pod.metadata.annotations = annotations;
      if (isObject(md.labels) && Object.keys(md.labels).length)
        pod.metadata.labels = { ...strings(pod.metadata.labels), ...strings(md.labels) };
      const status = rec(pod.status);
      delete status.nominatedNodeName;
      status.conditions = scheduled(status.conditions, cluster.now());
      pod.status = status;
    },
    { dryRun },
  );
  return BOUND;
}

/** podutil.UpdatePodCondition with PodScheduled=True: its transition time moves only on a change. */
function scheduled(conditions: unknown, now: string): Obj[] {
  const list = Array.isArray(conditions) ? (conditions as Obj[]).map((c) => ({ ...c })) : [];
  const i = list.findIndex((c) => c.type === 'PodScheduled');
  if (i < 0) {
    list.push({
      type: 'PodScheduled',
      status: 'True',
      lastProbeTime: null,
      lastTransitionTime: now,
    });
    return list;
  }
  const c = list[i]!;
  if (c.status !== 'True') {
    list[i] = { ...c, status: 'True', lastTransitionTime: now };
    delete list[i]!.reason;
    delete list[i]!.message;
  }
  return list;
}
