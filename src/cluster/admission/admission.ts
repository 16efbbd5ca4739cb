/**
 * Validating admission, as kube-apiserver's admission chain sees a write: the operation, the
 * resource, the object (and the old one). The cluster runs the plugins it is given
 * (Cluster.addAdmission) in order; the built-in ones are registered by builtins.ts.
 */
import type { ResourceType } from '../registry/registry';
import type { KubeObject } from '../apimachinery/types';

export interface AdmissionAttributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  type: ResourceType;
  object: KubeObject;
  old?: KubeObject;
  subresource?: string;
  dryRun: boolean;
}

/** A validating admission plugin: throws a StatusError to refuse. */
export type AdmissionPlugin = (a: AdmissionAttributes) => void;

/**
 * A mutating admission plugin: may change `a.object` (run before the strategy validates it, as
 * kube-apiserver runs mutating admission before the registry's create and update) or refuse.
 */
export type MutatingAdmissionPlugin = (a: AdmissionAttributes) => void;
