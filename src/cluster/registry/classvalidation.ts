/**
 * The validation of the cluster-scoped "class" kinds that say which handler serves them:
 * node.k8s.io RuntimeClasses (pkg/apis/node/validation) and storage.k8s.io StorageClasses
 * (pkg/apis/storage/validation). ObjectMeta is validated for every kind elsewhere. What is
 * checked here: the handler and the provisioner; not yet a RuntimeClass's overhead and
 * scheduling, or a StorageClass's parameters, reclaim policy, binding mode and topologies.
 */
import { fieldInvalid, fieldRequired, type FieldError } from '../apimachinery/errors';
import { isQualifiedName, validateName } from '../apimachinery/names';
import type { KubeObject } from '../apimachinery/types';

/** ValidateRuntimeClass: a handler, a DNS-1123 label. */
export function validateRuntimeClass(obj: KubeObject): FieldError[] {
  const handler = typeof obj.handler === 'string' ? obj.handler : '';
  if (!handler) return [fieldRequired('handler')];
  return validateName(handler, 'label').map((m) => fieldInvalid('handler', handler, m));
}

/** validateProvisioner: one, a qualified name once lower-cased. */
export function validateStorageClass(obj: KubeObject): FieldError[] {
  const provisioner = typeof obj.provisioner === 'string' ? obj.provisioner : '';
  if (!provisioner) return [fieldRequired('provisioner')];
  return isQualifiedName(provisioner.toLowerCase()).map((m) =>
    fieldInvalid('provisioner', provisioner.toLowerCase(), m),
  );
}
