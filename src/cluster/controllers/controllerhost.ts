/**
 * What the cluster's built-in controllers and admission plugins need of the API server: a clock,
 * reads of the stored objects, writes as a named field manager, events, and the stream of
 * changes. kube-controller-manager's controllers are clients of the apiserver (a clientset and
 * informers), not part of it; this interface is that seam, so they depend on it rather than on
 * Cluster (which satisfies it), and builtins.ts wires them to a cluster from outside.
 *
 * Reads return the stored objects themselves, not copies (the informer cache's contract):
 * callers must not mutate them. Writes throw StatusError, as the cluster's verbs do.
 */
import type { Clock } from '../../util/clock';
import type { ContainerLogs } from './containerlogs';
import type { RecordEvent } from './events';
import type { ResourceType } from '../registry/registry';
import type { ChangeListener } from '../storage/store';
import type {
  DeleteOptions,
  KubeObject,
  ObjectKey,
  PatchType,
  TypeRef,
  UpdateOptions,
  WriteOptions,
} from '../apimachinery/types';

export interface ControllerHost {
  readonly clock: Clock;
  /** The clock's time as metav1.Time serializes it (RFC 3339, seconds). */
  now(): string;

  /** Every served resource type (each version), as discovery lists them. */
  resourceTypes(): ResourceType[];
  /** The resource type of a kind, undefined when it is not served. */
  resourceFor(type: TypeRef): ResourceType | undefined;

  /** A copy of a stored object; 404 when there is none. */
  get(type: TypeRef, key: ObjectKey): KubeObject;
  /** The stored object itself (read-only), if any. */
  peek(type: TypeRef, key: ObjectKey): KubeObject | undefined;
  /** The scale subresource of an object (autoscaling/v1 Scale); 404 when there is none. */
  getScale(type: TypeRef, key: ObjectKey): KubeObject;
  /** The stored objects of a kind (read-only), in one namespace or all. */
  scan(type: TypeRef, namespace?: string): Iterable<KubeObject>;

  /** Writes; `fieldManager` names the controller in managedFields, as its user agent would. */
  create(obj: KubeObject, opts?: WriteOptions): KubeObject;
  update(obj: KubeObject, opts?: UpdateOptions): KubeObject;
  delete(type: TypeRef, key: ObjectKey, opts?: DeleteOptions): KubeObject;
  /** PATCH: with patchType 'apply', a server-side apply as `fieldManager` (`force` takes fields over). */
  patch(
    type: TypeRef,
    key: ObjectKey,
    patch: unknown,
    patchType: PatchType,
    opts?: UpdateOptions & { force?: boolean },
  ): KubeObject;
  /**
   * POST pods/NAME/binding, as kube-scheduler binds a pod: the pod changed in storage directly
   * (no strategy, no generation, no managedFields entry); 409 when it is bound already.
   */
  bindPod(key: { namespace: string; name: string }, node: string): void;
  /** The namespace controller's `/finalize`: drops one spec.finalizers entry of a Namespace. */
  finalizeNamespace(name: string, finalizer: string): void;

  /**
   * The fake node's container log files: the kubelet writes them; `pods/log` reads them, as the
   * apiserver proxies a log request to the node's kubelet.
   */
  readonly containerLogs: ContainerLogs;

  /** Records an Event about `involved`, aggregated as client-go's EventRecorder does. */
  recordEvent: RecordEvent;

  /** Every committed change, in commit order, from a microtask; returns the unsubscribe. */
  subscribe(onChange: ChangeListener): () => void;
}

/** The TypeRef of a resource type, for the host's kind-addressed calls. */
export function typeRefOf(t: ResourceType): TypeRef {
  return { apiVersion: t.apiVersion, kind: t.info.kind };
}

/** The resource types of the stored resources, one per storage (the first served version). */
export function storedResources(host: ControllerHost): ResourceType[] {
  const seen = new Set<string>();
  return host.resourceTypes().filter((t) => !seen.has(t.storageKey) && seen.add(t.storageKey));
}

/** The type a storage key is served as (its first version), as the storage layer's changes name it. */
export function resourceAt(host: ControllerHost, storageKey: string): ResourceType | undefined {
  return host.resourceTypes().find((t) => t.storageKey === storageKey);
}

export function isEmpty(objects: Iterable<KubeObject>): boolean {
  for (const _ of objects) return false;
  return true;
}
