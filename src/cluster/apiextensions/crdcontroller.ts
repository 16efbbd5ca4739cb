/**
 * The CRD finalizer controller (apiextensions-apiserver's finalizer): when a CRD is deleted its
 * custom resources are deleted first, then the `customresourcecleanup` finalizer is removed and
 * the resource disappears from discovery.
 */
import { clone } from '../apimachinery/clone';
import type { ControllerHost } from '../controllers/controllerhost';
import { isEmpty, resourceAt, storedResources, typeRefOf } from '../controllers/controllerhost';
import { CRD_FINALIZER, acceptedStatus, establishedStatus, setCrdCondition } from './crd';
import type { KubeObject } from '../apimachinery/types';
import { deepEqual } from '../apimachinery/patch';
import { StatusError } from '../apimachinery/errors';
import { WorkQueue } from '../controllers/workqueue';

const CRD_STORAGE = 'apiextensions.k8s.io/customresourcedefinitions';
const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };
/** apiextensions-apiserver's controllers write through the apiserver's loopback client. */
const MANAGER = { fieldManager: 'kube-apiserver' };
const DELETION_IN_PROGRESS = {
  type: 'Terminating',
  status: 'True',
  reason: 'InstanceDeletionInProgress',
  message: 'CustomResource deletion is in progress',
};

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
    // The cleanup could take a while: say so first (UpdateStatus, as the apiserver's loopback).
    const status = { ...(crd.status as Record<string, unknown>) };
    setCrdCondition(status, DELETION_IN_PROGRESS, cluster.now());
    if (!deepEqual(status, crd.status))
      cluster.update({ ...clone(crd), status }, { subresource: 'status', ...MANAGER });
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
    const next = clone(cluster.get(CRD, { name }));
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== CRD_FINALIZER);
    cluster.update(next, MANAGER);
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

/**
 * apiextensions-apiserver's naming controller and establishing controller: a CRD's names are
 * accepted (NamesAccepted, Established False "Installing") in one status write after its create or
 * a change of its names, then it is Established in another — so a client sees the CRD without
 * conditions first, then installing, then established, as from kube-apiserver.
 */
export function startCrdNamingController(cluster: ControllerHost): () => void {
  const write = (status: Record<string, unknown>, crd: KubeObject) =>
    cluster.update({ ...clone(crd), status }, { subresource: 'status', ...MANAGER });
  const naming = new WorkQueue('crd_naming_condition_controller', cluster.clock, (name) => {
    const crd = cluster.peek(CRD, { name });
    const status = crd && acceptedStatus(crd, cluster.now());
    if (status) write(status, crd);
  });
  const establishing = new WorkQueue('crdEstablishing', cluster.clock, (name) => {
    const crd = cluster.peek(CRD, { name });
    const status = crd && establishedStatus(crd, cluster.now());
    if (status) write(status, crd);
  });
  const unsub = cluster.subscribe((c) => {
    if (c.storageKey !== CRD_STORAGE || c.type === 'DELETED') return;
    naming.add(c.object.metadata.name!);
    establishing.add(c.object.metadata.name!);
  });
  for (const crd of cluster.scan(CRD)) naming.add(crd.metadata.name!);
  return () => {
    unsub();
    naming.stop();
    establishing.stop();
  };
}
