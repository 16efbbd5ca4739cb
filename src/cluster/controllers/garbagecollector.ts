/**
 * The garbage collector (kube-controller-manager's garbagecollector): deletes objects whose
 * owners are all gone (background propagation), deletes the dependents of an owner in
 * foreground deletion and removes its `foregroundDeletion` finalizer once no dependent with
 * `blockOwnerDeletion` is left, and orphans dependents of an owner with the `orphan` finalizer.
 */
import { clone } from '../apimachinery/clone';
import type { ControllerHost } from './controllerhost';
import { resourceAt, storedResources, typeRefOf } from './controllerhost';
import { StatusError } from '../apimachinery/errors';
import type { ResourceType } from '../registry/registry';
import type { Change } from '../storage/store';
import { objectKey } from '../storage/store';
import type { KubeObject, OwnerReference } from '../apimachinery/types';
import { WorkQueue } from './workqueue';

const SEP = '\u0000';

export function startGarbageCollector(cluster: ControllerHost): () => void {
  /** owner uid -> dependents (storageKey SEP key) */
  const dependents = new Map<string, Set<string>>();
  /** uid -> (storageKey SEP key) of every object, to find owners being deleted. */
  const byUid = new Map<string, string>();

  const index = (storageKey: string, o: KubeObject, add: boolean) => {
    const id = storageKey + SEP + objectKey(o.metadata.namespace, o.metadata.name!);
    if (o.metadata.uid) {
      if (add) byUid.set(o.metadata.uid, id);
      else if (byUid.get(o.metadata.uid) === id) byUid.delete(o.metadata.uid);
    }
    for (const r of o.metadata.ownerReferences ?? []) {
      let s = dependents.get(r.uid);
      if (add) {
        if (!s) dependents.set(r.uid, (s = new Set()));
        s.add(id);
      } else if (s) {
        s.delete(id);
        if (!s.size) dependents.delete(r.uid);
      }
    }
  };
  for (const t of storedResources(cluster))
    for (const o of cluster.scan(typeRefOf(t))) index(t.storageKey, o, true);

  // Two kinds of work: "attempt to delete" a dependent, and "process" an owner being deleted.
  const dependentQ = new WorkQueue('garbage-collector', cluster.clock, (id) => attemptToDelete(id));
  const ownerQ = new WorkQueue('garbage-collector-owners', cluster.clock, (id) =>
    processDeletingOwner(id),
  );

  const lookup = (id: string): { t: ResourceType; o: KubeObject } | undefined => {
    const [sk, key] = id.split(SEP);
    const t = resourceAt(cluster, sk);
    if (!t) return undefined;
    // objectKey is `namespace/name`; neither may contain a slash.
    const slash = key.indexOf('/');
    const o = cluster.peek(typeRefOf(t), {
      ...(slash > 0 ? { namespace: key.slice(0, slash) } : {}),
      name: key.slice(slash + 1),
    });
    return o ? { t, o } : undefined;
  };

  /** The live owner a reference points at, if it exists with that uid. */
  const ownerOf = (dep: KubeObject, r: OwnerReference): KubeObject | undefined => {
    const t = cluster.resourceFor({ apiVersion: r.apiVersion, kind: r.kind });
    if (!t) {
      // Unknown kind (e.g. a CRD not loaded): only the uid index can tell.
      const id = byUid.get(r.uid);
      return id ? lookup(id)?.o : undefined;
    }
    // A namespaced owner of a cluster-scoped dependent cannot exist.
    if (t.info.namespaced && !dep.metadata.namespace) return undefined;
    const o = cluster.peek(r, { namespace: dep.metadata.namespace, name: r.name });
    return o && o.metadata.uid === r.uid ? o : undefined;
  };

  function attemptToDelete(id: string): void {
    const found = lookup(id);
    if (!found) return;
    const { t, o } = found;
    if (o.metadata.deletionTimestamp) return;
    const refs = o.metadata.ownerReferences ?? [];
    if (!refs.length) return;
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    let solid = 0;
    for (const r of refs) {
      const owner = ownerOf(o, r);
      if (!owner) dangling.push(r);
      else if (
        owner.metadata.deletionTimestamp &&
        (owner.metadata.finalizers ?? []).includes('foregroundDeletion')
      )
        waiting.push(r);
      else solid++;
    }
    const key = { namespace: o.metadata.namespace, name: o.metadata.name! };
    try {
      if (solid > 0) {
        if (dangling.length || waiting.length) {
          // Some owners remain: drop the references to the gone ones.
          const drop = new Set([...dangling, ...waiting].map((r) => r.uid));
          const next = clone(o);
          next.metadata.ownerReferences = refs.filter((r) => !drop.has(r.uid));
          cluster.update(next);
        }
        return;
      }
      const policy = waiting.length ? 'Foreground' : 'Background';
      cluster.delete(typeRefOf(t), key, {
        propagationPolicy: policy,
        preconditions: { uid: o.metadata.uid },
      });
    } catch (err) {
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }

  function processDeletingOwner(id: string): void {
    const found = lookup(id);
    if (!found) return;
    const { t, o } = found;
    if (!o.metadata.deletionTimestamp) return;
    const fin = o.metadata.finalizers ?? [];
    const deps = [...(dependents.get(o.metadata.uid!) ?? [])];
    if (fin.includes('orphan')) {
      for (const d of deps) {
        const dep = lookup(d);
        if (!dep) continue;
        const next = clone(dep.o);
        next.metadata.ownerReferences = (next.metadata.ownerReferences ?? []).filter(
          (r) => r.uid !== o.metadata.uid,
        );
        if (!next.metadata.ownerReferences.length) delete next.metadata.ownerReferences;
        cluster.update(next);
      }
      removeFinalizer(t, o, 'orphan');
      return;
    }
    if (fin.includes('foregroundDeletion')) {
      let blocking = 0;
      for (const d of deps) {
        const dep = lookup(d);
        if (!dep) continue;
        const ref = (dep.o.metadata.ownerReferences ?? []).find((r) => r.uid === o.metadata.uid);
        if (ref?.blockOwnerDeletion) blocking++;
        if (!dep.o.metadata.deletionTimestamp) dependentQ.add(d);
      }
      if (blocking === 0) removeFinalizer(t, o, 'foregroundDeletion');
    }
  }

  function removeFinalizer(t: ResourceType, o: KubeObject, f: string): void {
    const next = clone(o);
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((x) => x !== f);
    try {
      cluster.update(next);
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
      if (err.code === 409)
        ownerQ.addRateLimited(
          t.storageKey + SEP + objectKey(o.metadata.namespace, o.metadata.name!),
        );
    }
  }

  const onChange = (c: Change) => {
    const id = c.storageKey + SEP + objectKey(c.object.metadata.namespace, c.object.metadata.name!);
    if (c.old) index(c.storageKey, c.old, false);
    if (c.type !== 'DELETED') index(c.storageKey, c.object, true);
    const o = c.object;
    if (c.type === 'DELETED') {
      for (const d of dependents.get(o.metadata.uid!) ?? []) dependentQ.add(d);
      // A dependent went away: its owners in foreground deletion may be free now.
      for (const r of o.metadata.ownerReferences ?? []) {
        const ownerId = byUid.get(r.uid);
        if (ownerId) ownerQ.add(ownerId);
      }
      return;
    }
    if (o.metadata.deletionTimestamp) {
      const fin = o.metadata.finalizers ?? [];
      if (fin.includes('orphan') || fin.includes('foregroundDeletion')) ownerQ.add(id);
    }
    if (c.type === 'ADDED' && o.metadata.ownerReferences?.length) dependentQ.add(id);
    if (c.type === 'MODIFIED' && o.metadata.ownerReferences?.length && !sameOwners(c.old, o))
      dependentQ.add(id);
  };
  const unsub = cluster.subscribe(onChange);
  return () => {
    unsub();
    dependentQ.stop();
    ownerQ.stop();
  };
}

function sameOwners(a: KubeObject | undefined, b: KubeObject): boolean {
  const ua = (a?.metadata.ownerReferences ?? []).map((r) => r.uid).join(',');
  const ub = (b.metadata.ownerReferences ?? []).map((r) => r.uid).join(',');
  return ua === ub;
}
