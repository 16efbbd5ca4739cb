/**
 * What a DELETE of one object answers, as k8s.io/apiserver's generic registry `Store.Delete`
 * decides: while finalizers or a grace period hold the object, the object itself; once it is
 * gone, `finalizeDelete` answers the object only for the kinds whose storage sets
 * `ReturnDeletedObject`, and otherwise a `Status` of Success whose details name what was deleted
 * (with the resource, not the kind, in `details.kind` — "Yes we set Kind field to resource").
 */
import type { ResourceType } from './registry';
import type { KubeObject } from './types';

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

/** The body of a DELETE's 200, given the object `deleteAs` returned. */
export function deleteResponse(t: ResourceType, out: KubeObject): KubeObject | DeleteStatus {
  // A deletion still pending (finalizers, graceful deletion) has its deletionTimestamp set.
  if (out.metadata.deletionTimestamp !== undefined) return out;
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
