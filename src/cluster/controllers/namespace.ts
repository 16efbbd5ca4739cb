/**
 * Namespace lifecycle: the NamespaceLifecycle admission plugin (no new objects in a missing or
 * terminating namespace) and the namespace controller, which deletes a terminating namespace's
 * contents and then finalizes it. New namespaces get their `default` ServiceAccount, as the
 * serviceaccounts controller does.
 */
import type { AdmissionPlugin } from '../admission/admission';
import type { ControllerHost } from './controllerhost';
import { storedResources, typeRefOf } from './controllerhost';
import { StatusError, newForbidden, newNotFound } from '../apimachinery/errors';
import type { KubeObject } from '../apimachinery/types';
import { WorkQueue } from './workqueue';

const NS_STORAGE = '/namespaces';
const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' };
const IMMORTAL = new Set(['default', 'kube-system', 'kube-public']);

export function namespaceLifecycle(cluster: ControllerHost): AdmissionPlugin {
  return (a) => {
    if (a.type.info.kind === 'Namespace' && a.type.info.group === '') {
      if (a.operation === 'DELETE' && IMMORTAL.has(a.object.metadata.name ?? '')) {
        throw newForbidden(
          a.type.gr,
          a.object.metadata.name ?? '',
          `this namespace may not be deleted`,
        );
      }
      return;
    }
    if (a.operation !== 'CREATE' || !a.type.info.namespaced) return;
    const ns = a.object.metadata.namespace ?? 'default';
    const obj = cluster.peek(NAMESPACE, { name: ns });
    if (!obj) throw newNotFound({ group: '', resource: 'namespaces' }, ns);
    if (obj.metadata.deletionTimestamp) {
      const err = newForbidden(
        a.type.gr,
        a.object.metadata.name ?? '',
        `unable to create new content in namespace ${ns} because it is being terminated`,
      );
      err.status.details = {
        ...err.status.details,
        causes: [
          {
            reason: 'NamespaceTerminating',
            message: `namespace ${ns} is being terminated`,
            field: 'metadata.namespace',
          },
        ],
      };
      throw err;
    }
  };
}

/**
 * namespaceDeletionGracePeriod: kube-controller-manager's namespace controller takes up a
 * namespace event 5 s after it comes (so HA apiservers see the deletion and etcd the last
 * creations in it); until then a deleted namespace is Terminating with nothing done to it.
 */
export const NAMESPACE_DELETION_GRACE_MS = 5_000;

export function startNamespaceController(cluster: ControllerHost): () => void {
  /** Namespaces the controller has begun to empty: their contents' deletions requeue them. */
  const emptying = new Set<string>();
  const q = new WorkQueue('namespace-controller', cluster.clock, (name) => {
    emptying.add(name);
    sync(cluster, name);
  });
  const unsub = cluster.subscribe((c) => {
    if (c.storageKey === NS_STORAGE) {
      const name = c.object.metadata.name!;
      if (c.type === 'DELETED') emptying.delete(name);
      else if (c.object.metadata.deletionTimestamp) q.addAfter(name, NAMESPACE_DELETION_GRACE_MS);
    } else if (c.type === 'DELETED' || c.object.metadata.deletionTimestamp) {
      // Where the upstream controller requeues after its estimate of what is left, the fake
      // goes on as soon as the last of it is gone.
      const ns = c.object.metadata.namespace;
      if (
        ns &&
        emptying.has(ns) &&
        cluster.peek(NAMESPACE, { name: ns })?.metadata.deletionTimestamp
      )
        q.add(ns);
    }
  });
  return () => {
    unsub();
    q.stop();
  };
}

/**
 * kube-controller-manager's serviceaccount controller: every namespace gets its `default`
 * ServiceAccount. A controller of the manager, not of the apiserver: envtest, which runs no
 * manager, has none, and neither has the fake cluster without its workload controllers.
 */
export function startServiceAccountsController(cluster: ControllerHost): () => void {
  for (const ns of cluster.scan(NAMESPACE)) ensureDefaultServiceAccount(cluster, ns);
  return cluster.subscribe((c) => {
    if (c.storageKey === NS_STORAGE && c.type === 'ADDED')
      ensureDefaultServiceAccount(cluster, c.object);
  });
}

function ensureDefaultServiceAccount(cluster: ControllerHost, ns: KubeObject): void {
  const name = ns.metadata.name!;
  if (ns.metadata.deletionTimestamp) return;
  if (
    cluster.peek({ apiVersion: 'v1', kind: 'ServiceAccount' }, { namespace: name, name: 'default' })
  )
    return;
  try {
    cluster.create({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'default', namespace: name },
    });
  } catch (err) {
    if (!(err instanceof StatusError)) throw err;
  }
}

function sync(cluster: ControllerHost, name: string): void {
  const ns = cluster.peek(NAMESPACE, { name });
  if (!ns || !ns.metadata.deletionTimestamp) return;
  let remaining = 0;
  for (const t of storedResources(cluster)) {
    if (!t.info.namespaced) continue;
    const victims: KubeObject[] = [];
    for (const o of cluster.scan(typeRefOf(t), name)) {
      remaining++;
      if (!o.metadata.deletionTimestamp) victims.push(o);
    }
    for (const o of victims) {
      try {
        cluster.delete(
          typeRefOf(t),
          { namespace: name, name: o.metadata.name! },
          { propagationPolicy: 'Background' },
        );
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 404)) throw err;
      }
    }
  }
  if (remaining === 0) cluster.finalizeNamespace(name, 'kubernetes');
}
