/**
 * The ReplicaSet controller: keeps the number of pods matching a ReplicaSet at spec.replicas,
 * records SuccessfulCreate / SuccessfulDelete / FailedCreate events like the real one (the
 * FailedCreate message carries the admission error, e.g. the quota message), sets the
 * ReplicaFailure condition while creates fail, and writes status (replicas, ready, available).
 *
 * The ReplicationController manager is the same controller (kube-controller-manager's
 * replication.NewReplicationManager wraps replicaset.NewBaseController with the v1 kind, its own
 * event source and without status.terminatingReplicas, which ReplicationControllers lack).
 */
import type { ControllerHost } from './controllerhost';
import { clone } from '../apimachinery/clone';
import { controllerOf, newControllerRef } from '../apimachinery/controllerref';
import { StatusError } from '../apimachinery/errors';
import { deepEqual } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';
import { WorkQueue } from './workqueue';
import { rec } from '../apimachinery/unstructured';
import { createPod as createOwnedPod } from './podcontrol';
import { fromLabelSelector, matchesLabels, type LabelSelector } from '../apimachinery/selector';

type Obj = Record<string, unknown>;
const POD = { apiVersion: 'v1', kind: 'Pod' };

/** What differs between the kinds the controller runs for (NewBaseController's parameters). */
export interface ReplicatedKind {
  apiVersion: string;
  kind: string;
  /** The store's key of the kind's objects, as change notifications name it. */
  storageKey: string;
  /** The event source's component, and the queue's name. */
  source: string;
  /** ReplicaSetControllerFeatures.EnableStatusTerminatingReplicas. */
  terminatingReplicas: boolean;
}

export const REPLICA_SET: ReplicatedKind = {
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  storageKey: 'apps/replicasets',
  source: 'replicaset-controller',
  terminatingReplicas: true,
};

export const REPLICATION_CONTROLLER: ReplicatedKind = {
  apiVersion: 'v1',
  kind: 'ReplicationController',
  storageKey: '/replicationcontrollers',
  source: 'replication-controller',
  terminatingReplicas: false,
};

export function isPodReady(p: KubeObject): boolean {
  const conds = rec(p.status).conditions;
  return (
    Array.isArray(conds) && conds.some((c) => rec(c).type === 'Ready' && rec(c).status === 'True')
  );
}

/** GetPodFromTemplate: the pod manageReplicas creates, labelled from the template and controlled by the ReplicaSet. */
export function podFromTemplate(rs: KubeObject, kind: ReplicatedKind = REPLICA_SET): KubeObject {
  const tmpl = rec(rec(rs.spec).template);
  const md = rec(tmpl.metadata);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${rs.metadata.name}-`,
      namespace: rs.metadata.namespace,
      labels: { ...(md.labels as Record<string, string>) },
      ...(md.annotations ? { annotations: { ...(md.annotations as Record<string, string>) } } : {}),
      ownerReferences: [newControllerRef(rs, kind.apiVersion, kind.kind)],
    },
    spec: clone(rec(tmpl.spec)),
  };
}

/** getPodsToDelete: the `diff` pods to delete, not-ready ones first, then the newest (ActivePodsWithRanks). */
export function getPodsToDelete(pods: KubeObject[], diff: number): KubeObject[] {
  return [...pods]
    .sort(
      (a, b) =>
        Number(isPodReady(a)) - Number(isPodReady(b)) ||
        String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)) ||
        String(b.metadata.name).localeCompare(String(a.metadata.name)),
    )
    .slice(0, diff);
}

/**
 * calculateStatus: the counts of the ReplicaSet's live pods, and the ReplicaFailure condition
 * while creates fail — set once and kept until they succeed, so retries (each with a new
 * generated pod name in the message) do not rewrite status.
 */
export function calculateStatus(
  rs: KubeObject,
  pods: KubeObject[],
  failure: string | undefined,
  now: string,
  /** The owned pods being deleted; undefined for a kind without status.terminatingReplicas. */
  terminating: number | undefined = 0,
): Obj {
  const labels = rec(rec(rec(rs.spec).template).metadata).labels as
    Record<string, string> | undefined;
  const ready = pods.filter(isPodReady).length;
  const old = rec(rs.status);
  const oldConds = Array.isArray(old.conditions) ? (old.conditions as Obj[]) : [];
  const prev = oldConds.find((c) => c.type === 'ReplicaFailure');
  const conditions = oldConds.filter((c) => c.type !== 'ReplicaFailure');
  if (failure)
    conditions.push(
      prev ?? {
        type: 'ReplicaFailure',
        status: 'True',
        lastTransitionTime: now,
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
    observedGeneration: rs.metadata.generation,
    // DeploymentReplicaSetTerminatingReplicas (beta, on in 1.36): the owned pods being deleted.
    ...(terminating === undefined ? {} : { terminatingReplicas: terminating }),
    ...(conditions.length ? { conditions } : {}),
  };
  for (const k of ['readyReplicas', 'availableReplicas', 'fullyLabeledReplicas'])
    if (status[k] === 0) delete status[k];
  return status;
}

/**
 * The pods a ReplicaSet controls, those not being deleted and those being deleted (after the
 * controller's claimPods has adopted and released).
 */
export function podsOf(
  cluster: ControllerHost,
  rs: KubeObject,
): { active: KubeObject[]; terminating: KubeObject[] } {
  const active: KubeObject[] = [];
  const terminating: KubeObject[] = [];
  for (const p of cluster.scan(POD, rs.metadata.namespace)) {
    if (controllerOf(p)?.uid !== rs.metadata.uid) continue;
    (p.metadata.deletionTimestamp ? terminating : active).push(p);
  }
  return { active, terminating };
}

/** The pods a ReplicaSet controls and that are not being deleted. */
export function activePodsOf(cluster: ControllerHost, rs: KubeObject): KubeObject[] {
  return podsOf(cluster, rs).active;
}

export function startReplicaSetController(
  cluster: ControllerHost,
  kind: ReplicatedKind = REPLICA_SET,
): () => void {
  const RS = { apiVersion: kind.apiVersion, kind: kind.kind };
  const SOURCE = kind.source;
  const q = new WorkQueue(SOURCE, cluster.clock, (key) => sync(key));
  const keyOf = (ns: string | undefined, name: string) => `${ns ?? ''}/${name}`;

  /** syncReplicaSet: create or delete pods towards spec.replicas, then report status. */
  function sync(key: string): void {
    const [ns, name] = key.split('/');
    const rs = cluster.peek(RS, { namespace: ns, name });
    if (!rs || rs.metadata.deletionTimestamp) return;
    claimPods(rs);
    const failure = manageReplicas(rs, activePodsOf(cluster, rs));
    updateStatus(rs, failure);
    if (failure) q.addRateLimited(key);
    else q.forget(key);
  }

  /**
   * ClaimPods (controller_ref_manager.go) over the active pods of the namespace: an orphan the
   * selector matches is adopted (the controller's owner reference added, as its patch does), a
   * pod it owns that the selector no longer matches is released (the reference removed). A
   * ReplicaSet being deleted does neither.
   */
  function claimPods(rs: KubeObject): void {
    if (rs.metadata.deletionTimestamp) return;
    const selector = selectorOf(rs);
    for (const p of [...cluster.scan(POD, rs.metadata.namespace)]) {
      if (!isActive(p)) continue;
      const owner = controllerOf(p);
      const matches = selector !== undefined && matchesLabels(selector, p.metadata.labels);
      if (owner ? owner.uid !== rs.metadata.uid || matches : !matches) continue;
      const next = clone(p);
      const refs = next.metadata.ownerReferences ?? [];
      next.metadata.ownerReferences = owner
        ? refs.filter((r) => r.uid !== rs.metadata.uid)
        : [...refs, newControllerRef(rs, kind.apiVersion, kind.kind)];
      if (!next.metadata.ownerReferences.length) delete next.metadata.ownerReferences;
      try {
        cluster.update(next, { fieldManager: 'kube-controller-manager' });
      } catch (err) {
        // Changed or gone since it was read: the pod's own event brings the next sync.
        if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
      }
    }
  }

  /** The ReplicaSet's selector; a ReplicationController's is a plain map of labels. */
  function selectorOf(rs: KubeObject): LabelSelector | undefined {
    const sel = rec(rs.spec).selector;
    return kind.kind === 'ReplicationController'
      ? sel && typeof sel === 'object'
        ? fromLabelSelector({ matchLabels: sel })
        : undefined
      : fromLabelSelector(sel);
  }

  /** manageReplicas: the pods to create or delete; returns the create failure, if any. */
  function manageReplicas(rs: KubeObject, pods: KubeObject[]): string | undefined {
    const spec = rec(rs.spec);
    const desired = typeof spec.replicas === 'number' ? spec.replicas : 1;
    if (pods.length < desired) {
      // slowStartBatch run one call at a time: creating stops at the first failure, so a
      // ReplicaSet refused by quota or admission tries once per sync, not once per missing pod.
      for (let i = pods.length; i < desired; i++) {
        const failure = createPod(rs);
        if (failure) return failure;
      }
    } else if (pods.length > desired) {
      for (const p of getPodsToDelete(pods, pods.length - desired)) deletePod(rs, p);
    }
    return undefined;
  }

  function createPod(rs: KubeObject): string | undefined {
    const out = createOwnedPod(cluster, rs, podFromTemplate(rs, kind), SOURCE);
    return out instanceof StatusError ? out.message : undefined;
  }

  function deletePod(rs: KubeObject, p: KubeObject): void {
    try {
      cluster.delete(POD, { namespace: p.metadata.namespace, name: p.metadata.name! });
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

  /** updateReplicaSetStatus: writes calculateStatus over the pods as they are now. */
  function updateStatus(rs: KubeObject, failure: string | undefined): void {
    const current = cluster.peek(RS, { namespace: rs.metadata.namespace, name: rs.metadata.name! });
    if (!current) return;
    const { active, terminating } = podsOf(cluster, current);
    const status = calculateStatus(
      current,
      active,
      failure,
      cluster.now(),
      kind.terminatingReplicas ? terminating.length : undefined,
    );
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
    if (c.storageKey === kind.storageKey) {
      if (c.type !== 'DELETED') q.add(keyOf(c.object.metadata.namespace, c.object.metadata.name!));
      return;
    }
    if (c.storageKey === '/pods') {
      const owner = controllerOf(c.object);
      if (owner?.kind === kind.kind) q.add(keyOf(c.object.metadata.namespace, owner.name));
      // An orphan: every ReplicaSet whose selector matches it may adopt it (getPodReplicaSets).
      else if (!owner && c.type !== 'DELETED' && isActive(c.object))
        for (const rs of cluster.scan(RS, c.object.metadata.namespace)) {
          const selector = selectorOf(rs);
          if (selector && matchesLabels(selector, c.object.metadata.labels))
            q.add(keyOf(rs.metadata.namespace, rs.metadata.name!));
        }
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

/** FilterActivePods: not finished (Succeeded, Failed) and not being deleted. */
function isActive(p: KubeObject): boolean {
  const phase = rec(p.status).phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !p.metadata.deletionTimestamp;
}
