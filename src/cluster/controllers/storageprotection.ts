/**
 * The pvc-protection and pv-protection controllers: a claim being deleted loses the
 * kubernetes.io/pvc-protection finalizer once no scheduled pod mounts it, a volume being deleted
 * loses kubernetes.io/pv-protection once it is not Bound, so neither vanishes under a pod.
 */
import type { ControllerHost } from './controllerhost';
import { clone } from '../apimachinery/clone';
import { StatusError } from '../apimachinery/errors';
import { isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';
import { PVC_PROTECTION, PV_PROTECTION } from '../admission/storageprotection';
import { WorkQueue } from './workqueue';
import { rec } from '../apimachinery/unstructured';

const PVC = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' };
const PV = { apiVersion: 'v1', kind: 'PersistentVolume' };
const POD = { apiVersion: 'v1', kind: 'Pod' };
const MANAGER = { fieldManager: 'kube-controller-manager' };

/** podUsesPVCForDeletion: a scheduled pod with a volume from the claim. */
function podUses(pod: KubeObject, claim: string): boolean {
  if (!rec(pod.spec).nodeName) return false;
  const volumes = rec(pod.spec).volumes;
  return (
    Array.isArray(volumes) &&
    volumes.some(
      (v) =>
        rec(rec(v).persistentVolumeClaim).claimName === claim ||
        (isObject(rec(v).ephemeral) && `${pod.metadata.name}-${String(rec(v).name)}` === claim),
    )
  );
}

export function startStorageProtectionControllers(cluster: ControllerHost): () => void {
  const q = new WorkQueue('pvc-protection', cluster.clock, (key) => sync(key));

  function removeFinalizer(o: KubeObject, finalizer: string): void {
    const next = clone(o);
    next.metadata.finalizers = (o.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    try {
      cluster.update(next, MANAGER);
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
      if (err.code === 409) q.addRateLimited(keyOf(o));
    }
  }

  function sync(key: string): void {
    const [kind, ns, name] = key.split('/');
    if (kind === 'pv') {
      const pv = cluster.peek(PV, { name });
      if (!pv?.metadata.deletionTimestamp || !pv.metadata.finalizers?.includes(PV_PROTECTION))
        return;
      if (rec(pv.status).phase !== 'Bound') removeFinalizer(pv, PV_PROTECTION);
      return;
    }
    const pvc = cluster.peek(PVC, { namespace: ns, name });
    if (!pvc?.metadata.deletionTimestamp || !pvc.metadata.finalizers?.includes(PVC_PROTECTION))
      return;
    for (const p of cluster.scan(POD, ns)) if (podUses(p, name)) return;
    removeFinalizer(pvc, PVC_PROTECTION);
  }

  const keyOf = (o: KubeObject) =>
    o.kind === 'PersistentVolume'
      ? `pv//${o.metadata.name}`
      : `pvc/${o.metadata.namespace}/${o.metadata.name}`;

  const unsub = cluster.subscribe((c) => {
    if (c.storageKey === '/persistentvolumeclaims' && c.type !== 'DELETED')
      q.add(`pvc/${c.object.metadata.namespace}/${c.object.metadata.name}`);
    else if (c.storageKey === '/persistentvolumes' && c.type !== 'DELETED')
      q.add(`pv//${c.object.metadata.name}`);
    else if (
      c.storageKey === '/pods' &&
      (c.type === 'DELETED' || c.object.metadata.deletionTimestamp)
    ) {
      // A pod going away may free the claims it mounted.
      const volumes = rec(c.object.spec).volumes;
      if (Array.isArray(volumes))
        for (const v of volumes) {
          const claim = rec(rec(v).persistentVolumeClaim).claimName;
          if (typeof claim === 'string') q.add(`pvc/${c.object.metadata.namespace}/${claim}`);
        }
    }
  });
  return () => {
    unsub();
    q.stop();
  };
}
