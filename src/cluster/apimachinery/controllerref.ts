/**
 * Controller references (apimachinery's metav1 controller_ref.go): the one ownerReference with
 * `controller: true` that says which controller manages an object.
 */
import type { KubeObject, OwnerReference } from './types';

/** GetControllerOf. */
export function controllerOf(o: KubeObject): OwnerReference | undefined {
  return o.metadata.ownerReferences?.find((r) => r.controller);
}

/** NewControllerRef: `owner` controls the object, and blocks its foreground deletion. */
export function newControllerRef(
  owner: KubeObject,
  apiVersion: string,
  kind: string,
): OwnerReference {
  return {
    apiVersion,
    kind,
    name: owner.metadata.name!,
    uid: owner.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}
