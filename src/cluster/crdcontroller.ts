/**
 * The CRD finalizer controller (apiextensions-apiserver's finalizer): when a CRD is deleted its
 * custom resources are deleted first, then the `customresourcecleanup` finalizer is removed and
 * the resource disappears from discovery.
 */
import type { Cluster } from './cluster';
import { clone } from './clone';
import { CRD_FINALIZER } from './crd';
import { StatusError } from './errors';
import { objectKey } from './store';
import { WorkQueue } from './workqueue';

const CRD_STORAGE = 'apiextensions.k8s.io/customresourcedefinitions';

export function startCrdFinalizer(cluster: Cluster): () => void {
  const q = new WorkQueue('crd-finalizer', cluster.clock, (name) => sync(name));
  function sync(name: string): void {
    const crd = cluster.store.get(CRD_STORAGE, objectKey(undefined, name));
    if (
      !crd ||
      !crd.metadata.deletionTimestamp ||
      !(crd.metadata.finalizers ?? []).includes(CRD_FINALIZER)
    )
      return;
    const types = cluster.registry.all().filter((t) => t.crd === name);
    let remaining = 0;
    if (types.length) {
      const t = types[0];
      const victims = [...cluster.store.scan(t.storageKey)].map(([, o]) => o);
      remaining = victims.length;
      for (const o of victims) {
        if (o.metadata.deletionTimestamp) continue;
        try {
          cluster.deleteAs(
            t,
            { namespace: o.metadata.namespace, name: o.metadata.name! },
            { propagationPolicy: 'Background' },
          );
        } catch (err) {
          if (!(err instanceof StatusError && err.code === 404)) throw err;
        }
      }
      remaining = cluster.store.count(t.storageKey);
    }
    if (remaining > 0) return;
    const next = clone(crd);
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== CRD_FINALIZER);
    cluster.updateAs(
      cluster.typeOf({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' }),
      next,
      {},
      true,
    );
  }
  const unsub = cluster.store.subscribe((c) => {
    if (c.storageKey === CRD_STORAGE) {
      if (c.type !== 'DELETED' && c.object.metadata.deletionTimestamp)
        q.add(c.object.metadata.name!);
      return;
    }
    if (c.type === 'DELETED') {
      const t = cluster.registry.versionsOf(c.storageKey)[0];
      if (t?.crd) q.add(t.crd);
    }
  });
  return () => {
    unsub();
    q.stop();
  };
}
