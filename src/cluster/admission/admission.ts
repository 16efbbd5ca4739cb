/**
 * Admission, as kube-apiserver's admission chain sees a write: the operation, the resource, the
 * object (and the old one). The cluster runs the plugins it is given (Cluster.addAdmission,
 * addMutatingAdmission) in order; the built-in ones are registered by builtins.ts, the webhook
 * plugins (webhook/dispatcher.ts) last of each kind, as kube-apiserver orders its plugins.
 */
import type { ResourceType } from '../registry/registry';
import type { KubeObject } from '../apimachinery/types';
import type { WebhookSession } from './webhook/session';

export interface AdmissionAttributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  type: ResourceType;
  /** The object written; on a DELETE the object deleted (the same as `old`). */
  object: KubeObject;
  old?: KubeObject;
  subresource?: string;
  dryRun: boolean;
  /** The name the request named (a create's object name as sent: empty with generateName). */
  name?: string;
  /** The served request's webhook session; undefined for in-process writes (no webhook called). */
  session?: WebhookSession;
  /** The mutating chain's reinvocation state (admission's ReinvocationContext). */
  reinvocation?: ReinvocationContext;
}

/** admission.ReinvocationContext: a second pass of the mutating chain when a webhook changed the object. */
export interface ReinvocationContext {
  isReinvoke: boolean;
  shouldReinvoke: boolean;
  /** Plugins' own state across the two passes, by plugin name. */
  values: Map<string, unknown>;
}

/** A validating admission plugin: throws a StatusError to refuse. */
export type AdmissionPlugin = (a: AdmissionAttributes) => void;

/**
 * A mutating admission plugin: may change `a.object` (run before the strategy validates it, as
 * kube-apiserver runs mutating admission before the registry's create and update) or refuse.
 */
export type MutatingAdmissionPlugin = (a: AdmissionAttributes) => void;
