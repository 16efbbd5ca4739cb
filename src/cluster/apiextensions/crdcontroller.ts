/**
 * The CRD finalizer controller (apiextensions-apiserver's finalizer): when a CRD is deleted its
 * custom resources are deleted first, then the `customresourcecleanup` finalizer is removed and
 * the resource disappears from discovery.
 */
import { clone } from '../apimachinery/clone';
import type { ControllerHost } from '../controllers/controllerhost';
import { isEmpty, resourceAt, storedResources, typeRefOf } from '../controllers/controllerhost';
import { CRD_FINALIZER } from './crd';
import { StatusError } from '../apimachinery/errors';
import { WorkQueue } from '../controllers/workqueue';

const CRD_STORAGE = 'apiextensions.k8s.io/customresourcedefinitions';
const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };

export function startCrdFinalizer(cluster: ControllerHost): () => void {
  const q = new WorkQueue('crd-finalizer', cluster.clock, (name) => sync(name));
  function sync(name: string): void {
    const crd = cluster.peek(CRD, { name });
    if (
      !crd ||
      !crd.metadata.deletionTimestamp ||
      !(crd.metadata.finalizers ?? []).includes(CRD_FINALIZER)
    )
      return;
    const t = storedResources(cluster).find((r) => r.crd === name);
    if (t) {
      const victims = [...cluster.scan(typeRefOf(t))];
      for (const o of victims) {
        if (o.metadata.deletionTimestamp) continue;
        try {
          cluster.delete(
            typeRefOf(t),
            { namespace: o.metadata.namespace, name: o.metadata.name! },
            { propagationPolicy: 'Background' },
          );
        } catch (err) {
          if (!(err instanceof StatusError && err.code === 404)) throw err;
        }
      }
      if (!isEmpty(cluster.scan(typeRefOf(t)))) return;
    }
    const next = clone(crd);
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== CRD_FINALIZER);
    cluster.update(next);
  }
  const unsub = cluster.subscribe((c) => {
    if (c.storageKey === CRD_STORAGE) {
      if (c.type !== 'DELETED' && c.object.metadata.deletionTimestamp)
        q.add(c.object.metadata.name!);
      return;
    }
    if (c.type === 'DELETED') {
      const t = resourceAt(cluster, c.storageKey);
      if (t?.crd) q.add(t.crd);
    }
  });
  return () => {
    unsub();
    q.stop();
  };
}
