/**
 * What a DELETE of one object answers, as k8s.io/apiserver's generic registry `Store.Delete`
 * decides: while finalizers or a grace period hold the object, the object itself; once it is
 * gone, `finalizeDelete` answers the object only for the kinds whose storage sets
 * `ReturnDeletedObject`, and otherwise a `Status` of Success whose details name what was deleted
 * (with the resource, not the kind, in `details.kind` — "Yes we set Kind field to resource").
 */
import type { ResourceType } from '../registry/registry';
import type { DeleteOptions, KubeObject } from '../apimachinery/types';

/**
 * The built-in resources whose REST storage sets `ReturnDeletedObject: true` (kubernetes
 * `pkg/registry/.../storage/storage.go`): pods, services, service accounts, namespaces, pod
 * templates and storage classes. Custom resources never do.
 */
const RETURNS_DELETED_OBJECT = new Set([
  '/pods',
  '/services',
  '/serviceaccounts',
  '/namespaces',
  '/podtemplates',
  'storage.k8s.io/storageclasses',
]);

export interface DeleteStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success';
  details: { name: string; group?: string; kind: string; uid?: string };
}

/** Whether finalizers or a grace period still hold the object `deleteAs` returned. */
function held(out: KubeObject): boolean {
  return out.metadata.deletionTimestamp !== undefined;
}

/**
 * The code of a DELETE's answer: 200, or 202 when the object is still held and the client asked
 * with the legacy `orphanDependents=false` (the handler keeps that for old clients only).
 */
export function deleteCode(out: KubeObject, opts: DeleteOptions): 200 | 202 {
  return held(out) && opts.orphanDependents === false ? 202 : 200;
}

/** The body of a DELETE's answer, given the object `deleteAs` returned. */
export function deleteResponse(t: ResourceType, out: KubeObject): KubeObject | DeleteStatus {
  if (held(out)) return out;
  if (!t.crd && RETURNS_DELETED_OBJECT.has(`${t.gr.group}/${t.gr.resource}`)) return out;
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: {
      name: out.metadata.name ?? '',
      ...(t.gr.group ? { group: t.gr.group } : {}),
      kind: t.gr.resource,
      ...(out.metadata.uid ? { uid: out.metadata.uid } : {}),
    },
  };
}
