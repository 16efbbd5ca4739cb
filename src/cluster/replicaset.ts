/**
 * The ReplicaSet controller: keeps the number of pods matching a ReplicaSet at spec.replicas,
 * records SuccessfulCreate / SuccessfulDelete / FailedCreate events like the real one (the
 * FailedCreate message carries the admission error, e.g. the quota message), sets the
 * ReplicaFailure condition while creates fail, and writes status (replicas, ready, available).
 */
import type { ControllerHost } from './controllerhost';
import { clone } from './clone';
import { StatusError } from './errors';
import { deepEqual, isObject } from './patch';
import type { KubeObject } from './types';
import { WorkQueue } from './workqueue';

type Obj = Record<string, unknown>;
const RS = { apiVersion: 'apps/v1', kind: 'ReplicaSet' };
const POD = { apiVersion: 'v1', kind: 'Pod' };
const SOURCE = 'replicaset-controller';

function rec(v: unknown): Obj {
  return isObject(v) ? v : {};
}

export function controllerOf(
  o: KubeObject,
): { kind: string; name: string; uid: string } | undefined {
  return o.metadata.ownerReferences?.find((r) => r.controller);
}

export function isPodReady(p: KubeObject): boolean {
  const conds = rec(p.status).conditions;
  return (
    Array.isArray(conds) && conds.some((c) => rec(c).type === 'Ready' && rec(c).status === 'True')
  );
}

export function startReplicaSetController(cluster: ControllerHost): () => void {
  const q = new WorkQueue('replicaset-controller', cluster.clock, (key) => sync(key));
  const keyOf = (ns: string | undefined, name: string) => `${ns ?? ''}/${name}`;

  function ownedPods(rs: KubeObject): KubeObject[] {
    const out: KubeObject[] = [];
    for (const p of cluster.scan(POD, rs.metadata.namespace)) {
      if (controllerOf(p)?.uid === rs.metadata.uid) out.push(p);
    }
    return out;
  }

  function sync(key: string): void {
    const [ns, name] = key.split('/');
    const rs = cluster.peek(RS, { namespace: ns, name });
    if (!rs || rs.metadata.deletionTimestamp) return;
    const spec = rec(rs.spec);
    const desired = typeof spec.replicas === 'number' ? spec.replicas : 1;
    const pods = ownedPods(rs).filter((p) => !p.metadata.deletionTimestamp);
    let failure: string | undefined;
    if (pods.length < desired) {
      const tmpl = rec(spec.template);
      // Slow start like the real controller: 1, 2, 4, ... stopping at the first failure.
      let remaining = desired - pods.length;
      for (let batch = 1; remaining > 0 && !failure; batch *= 2) {
        const n = Math.min(batch, remaining);
        for (let i = 0; i < n; i++) {
          try {
            const pod = cluster.create(
              {
                apiVersion: 'v1',
                kind: 'Pod',
                metadata: {
                  generateName: `${rs.metadata.name}-`,
                  namespace: ns,
                  labels: { ...(rec(tmpl.metadata).labels as Record<string, string>) },
                  ...(rec(tmpl.metadata).annotations
                    ? {
                        annotations: {
                          ...(rec(tmpl.metadata).annotations as Record<string, string>),
                        },
                      }
                    : {}),
                  ownerReferences: [
                    {
                      apiVersion: 'apps/v1',
                      kind: 'ReplicaSet',
                      name: rs.metadata.name!,
                      uid: rs.metadata.uid!,
                      controller: true,
                      blockOwnerDeletion: true,
                    },
                  ],
                },
                spec: clone(rec(tmpl.spec)),
              },
              { fieldManager: 'kube-controller-manager' },
            );
            cluster.recordEvent(
              rs,
              'Normal',
              'SuccessfulCreate',
              `Created pod: ${pod.metadata.name}`,
              SOURCE,
            );
          } catch (err) {
            if (!(err instanceof StatusError)) throw err;
            failure = err.message;
            cluster.recordEvent(
              rs,
              'Warning',
              'FailedCreate',
              `Error creating: ${err.message}`,
              SOURCE,
            );
            break;
          }
        }
        remaining -= n;
      }
    } else if (pods.length > desired) {
      // Delete not-ready and newest pods first, as the controller's ranking does.
      const victims = [...pods]
        .sort(
          (a, b) =>
            Number(isPodReady(a)) - Number(isPodReady(b)) ||
            String(b.metadata.creationTimestamp).localeCompare(
              String(a.metadata.creationTimestamp),
            ) ||
            String(b.metadata.name).localeCompare(String(a.metadata.name)),
        )
        .slice(0, pods.length - desired);
      for (const p of victims) {
        try {
          cluster.delete(POD, { namespace: ns, name: p.metadata.name! });
          cluster.recordEvent(
            rs,
            'Normal',
            'SuccessfulDelete',
            `Deleted pod: ${p.metadata.name}`,
            SOURCE,
          );
        } catch (err) {
          if (!(err instanceof StatusError && err.code === 404)) throw err;
        }
      }
    }
    writeStatus(rs, failure);
    if (failure) q.addRateLimited(key);
    else q.forget(key);
  }

  function writeStatus(rs: KubeObject, failure: string | undefined): void {
    const current = cluster.peek(RS, { namespace: rs.metadata.namespace, name: rs.metadata.name! });
    if (!current) return;
    const pods = ownedPods(current).filter((p) => !p.metadata.deletionTimestamp);
    const labels = rec(rec(rec(current.spec).template).metadata).labels as
      Record<string, string> | undefined;
    const ready = pods.filter(isPodReady).length;
    const old = rec(current.status);
    const oldConds = Array.isArray(old.conditions) ? (old.conditions as Obj[]) : [];
    const prev = oldConds.find((c) => c.type === 'ReplicaFailure');
    const conditions = oldConds.filter((c) => c.type !== 'ReplicaFailure');
    // Like calculateStatus: a failure condition is set once and kept until creates succeed, so
    // retries (each with a new generated pod name in the message) do not rewrite status.
    if (failure)
      conditions.push(
        prev ?? {
          type: 'ReplicaFailure',
          status: 'True',
          lastTransitionTime: cluster.now(),
          reason: 'FailedCreate',
          message: failure,
        },
      );
    const status: Obj = {
      replicas: pods.length,
      fullyLabeledReplicas: pods.filter((p) =>
        Object.entries(labels ?? {}).every(([k, v]) => p.metadata.labels?.[k] === v),
      ).length,
      readyReplicas: ready,
      availableReplicas: ready,
      observedGeneration: current.metadata.generation,
      ...(conditions.length ? { conditions } : {}),
    };
    for (const k of ['readyReplicas', 'availableReplicas', 'fullyLabeledReplicas'])
      if (status[k] === 0) delete status[k];
    if (deepEqual(status, current.status)) return;
    const next = clone(current);
    next.status = status;
    try {
      cluster.update(next, { subresource: 'status', fieldManager: 'kube-controller-manager' });
    } catch (err) {
      if (err instanceof StatusError && err.code === 409)
        q.add(keyOf(current.metadata.namespace, current.metadata.name!));
      else if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  }

  const unsub = cluster.subscribe((c) => {
    if (c.storageKey === 'apps/replicasets') {
      if (c.type !== 'DELETED') q.add(keyOf(c.object.metadata.namespace, c.object.metadata.name!));
      return;
    }
    if (c.storageKey === '/pods') {
      const owner = controllerOf(c.object);
      if (owner?.kind === 'ReplicaSet') q.add(keyOf(c.object.metadata.namespace, owner.name));
      // A pod going away may free quota for a ReplicaSet that could not create one.
      if (c.type === 'DELETED') retryFailing(c.object.metadata.namespace);
      return;
    }
    if (c.storageKey === '/resourcequotas' && c.type !== 'ADDED')
      retryFailing(c.object.metadata.namespace);
  });

  function retryFailing(ns: string | undefined): void {
    for (const rs of cluster.scan(RS, ns)) {
      const conds = rec(rs.status).conditions;
      if (Array.isArray(conds) && conds.some((c) => rec(c).type === 'ReplicaFailure'))
        q.add(keyOf(ns, rs.metadata.name!));
    }
  }

  return () => {
    unsub();
    q.stop();
  };
}
