/**
 * The Deployment controller: one ReplicaSet per pod template (named and labelled with the
 * pod-template-hash), rollouts by RollingUpdate (maxSurge / maxUnavailable, paced by pods becoming
 * ready) or Recreate, revision annotations, ScalingReplicaSet events, and status with the
 * Available and Progressing conditions `kubectl rollout status` reads. Not modelled: the
 * progress deadline (ProgressDeadlineExceeded), revisionHistoryLimit cleanup, rollbacks.
 * The decisions themselves are pure functions in deploymentutil.ts.
 */
import type { ControllerHost } from './controllerhost';
import { clone } from '../apimachinery/clone';
import { controllerOf } from '../apimachinery/controllerref';
import {
  REVISION,
  availableOf,
  calculateStatus,
  desiredReplicas,
  findNewReplicaSet,
  maxRevision,
  newRSNewReplicas,
  newReplicaSetFor,
  oldReplicaSetsScaleDown,
  podsOf,
  replicasAnnotations,
  replicasOf,
  rollingBudget,
} from './deploymentutil';
import { StatusError } from '../apimachinery/errors';
import { deepEqual, isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';
import { WorkQueue } from './workqueue';
import { rec } from '../apimachinery/unstructured';

const DEPLOY = { apiVersion: 'apps/v1', kind: 'Deployment' };
const RS = { apiVersion: 'apps/v1', kind: 'ReplicaSet' };
const SOURCE = 'deployment-controller';
const MANAGER = { fieldManager: 'kube-controller-manager' };

/**
 * getReplicaSetsForDeployment: the ReplicaSets this Deployment controls. (Adopting orphans that
 * match its selector and releasing those that stop matching, as ClaimReplicaSets does, is not
 * modelled: only this controller creates ReplicaSets with a Deployment's owner reference.)
 */
export function getReplicaSetsForDeployment(cluster: ControllerHost, d: KubeObject): KubeObject[] {
  const out: KubeObject[] = [];
  for (const rs of cluster.scan(RS, d.metadata.namespace))
    if (controllerOf(rs)?.uid === d.metadata.uid) out.push(rs);
  return out;
}

export function startDeploymentController(cluster: ControllerHost): () => void {
  const q = new WorkQueue('deployment-controller', cluster.clock, (key) => sync(key));

  /** syncDeployment: find or create the new ReplicaSet, take one rollout step, report status. */
  function sync(key: string): void {
    const [ns, name] = key.split('/');
    const d = cluster.peek(DEPLOY, { namespace: ns, name });
    if (!d || d.metadata.deletionTimestamp) return;
    const rss = getReplicaSetsForDeployment(cluster, d);
    if (isObject(d.spec) && d.spec.paused === true) {
      syncRolloutStatus(key, findNewReplicaSet(d, rss)?.metadata.name);
      return;
    }
    const recreate = rec(rec(d.spec).strategy).type === 'Recreate';
    // rolloutRecreate creates the new ReplicaSet only once the old ones' pods are gone.
    if (recreate && !findNewReplicaSet(d, rss) && !scaleDownOlds(d, rss)) {
      syncRolloutStatus(key, undefined);
      return;
    }
    const newRs = getNewReplicaSet(key, d, rss);
    if (!newRs) return;
    const olds = rss.filter((rs) => rs !== newRs);
    if (recreate) rolloutRecreate(d, newRs, olds);
    else rolloutRolling(d, newRs, olds);
    syncRevision(key, newRs);
    syncRolloutStatus(key, newRs.metadata.name);
  }

  /**
   * The new ReplicaSet, created (at the next revision) if there is none, at the replicas
   * NewRSNewReplicas allows at once (all of them for Recreate, whose old pods are gone by then);
   * undefined on a conflict (retried).
   */
  function getNewReplicaSet(key: string, d: KubeObject, rss: KubeObject[]): KubeObject | undefined {
    const existing = findNewReplicaSet(d, rss);
    if (existing) return existing;
    const desired = desiredReplicas(d);
    const replicas =
      rec(rec(d.spec).strategy).type === 'Recreate'
        ? desired
        : newRSNewReplicas(
            desired,
            rollingBudget(d).maxSurge,
            0,
            rss.reduce((n, rs) => n + replicasOf(live(rs)), 0),
          );
    try {
      const created = cluster.create(newReplicaSetFor(d, maxRevision(rss) + 1, replicas), MANAGER);
      if (replicas > 0)
        cluster.recordEvent(
          d,
          'Normal',
          'ScalingReplicaSet',
          `Scaled up replica set ${created.metadata.name} from 0 to ${replicas}`,
          SOURCE,
        );
      return created;
    } catch (err) {
      if (err instanceof StatusError && err.code === 409) {
        q.addRateLimited(key);
        return undefined;
      }
      throw err;
    }
  }

  /** The live ReplicaSet (an earlier step of this sync may have scaled it). */
  const live = (rs: KubeObject) =>
    cluster.peek(RS, { namespace: rs.metadata.namespace, name: rs.metadata.name! }) ?? rs;

  /** The old ReplicaSets that still want or have pods. */
  const activeOlds = (olds: KubeObject[]) =>
    olds.map(live).filter((rs) => replicasOf(rs) > 0 || podsOf(rs) > 0);

  /** rolloutRecreate: the old ReplicaSets go to zero, the new one scales up once their pods are gone. */
  function rolloutRecreate(d: KubeObject, newRs: KubeObject, olds: KubeObject[]): void {
    if (scaleDownOlds(d, olds)) scale(d, newRs, desiredReplicas(d));
  }

  /** Scales the old ReplicaSets to zero; whether their pods are all gone. */
  function scaleDownOlds(d: KubeObject, olds: KubeObject[]): boolean {
    const active = activeOlds(olds);
    for (const rs of active) scale(d, rs, 0);
    return active.every((rs) => podsOf(live(rs)) === 0);
  }

  /**
   * rolloutRolling: the new ReplicaSet surges up to maxSurge above the desired count and the old
   * ones shrink as far as maxUnavailable allows, so old and new pods overlap until the new ones
   * are ready; each ready pod resyncs the Deployment for the next step.
   */
  function rolloutRolling(d: KubeObject, newRs: KubeObject, olds: KubeObject[]): void {
    const desired = desiredReplicas(d);
    const active = activeOlds(olds);
    const current = live(newRs);
    if (!active.length) {
      scale(d, current, desired);
      return;
    }
    const { maxSurge, maxUnavailable } = rollingBudget(d);
    const total = replicasOf(current) + active.reduce((n, rs) => n + replicasOf(rs), 0);
    scale(d, current, newRSNewReplicas(desired, maxSurge, replicasOf(current), total));
    const scaled = live(newRs);
    const cuts = oldReplicaSetsScaleDown(
      active,
      { replicas: replicasOf(scaled), available: availableOf(scaled) },
      desired,
      maxUnavailable,
    );
    for (const { rs, replicas } of cuts) scale(d, rs, replicas);
  }

  /** scaleReplicaSetAndRecordEvent. */
  function scale(d: KubeObject, rs: KubeObject, replicas: number): void {
    const current = cluster.peek(RS, { namespace: rs.metadata.namespace, name: rs.metadata.name! });
    if (!current || rec(current.spec).replicas === replicas) return;
    const before = rec(current.spec).replicas as number;
    const next = clone(current);
    rec(next.spec).replicas = replicas;
    next.metadata.annotations = { ...(next.metadata.annotations ?? {}), ...replicasAnnotations(d) };
    cluster.update(next, MANAGER);
    cluster.recordEvent(
      d,
      'Normal',
      'ScalingReplicaSet',
      `Scaled ${replicas > before ? 'up' : 'down'} replica set ${rs.metadata.name} from ${before} to ${replicas}`,
      SOURCE,
    );
  }

  /**
   * The Deployment carries its new ReplicaSet's revision annotation, written through the status
   * subresource as the controller's UpdateStatus does (its strategy keeps the annotations): a
   * main-resource write would bump the generation, which annotation changes do for Deployments.
   */
  function syncRevision(key: string, newRs: KubeObject): void {
    const [ns, name] = key.split('/');
    const rev = newRs.metadata.annotations?.[REVISION];
    const d = cluster.peek(DEPLOY, { namespace: ns, name });
    if (!rev || !d || d.metadata.annotations?.[REVISION] === rev) return;
    const next = clone(d);
    next.metadata.annotations = { ...(next.metadata.annotations ?? {}), [REVISION]: rev };
    try {
      cluster.update(next, { subresource: 'status', ...MANAGER });
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 409 || err.code === 404))) throw err;
      q.addRateLimited(key);
    }
  }

  /** syncRolloutStatus: writes calculateStatus over the ReplicaSets as they are now. */
  function syncRolloutStatus(key: string, newRsName: string | undefined): void {
    const [ns, name] = key.split('/');
    const d = cluster.peek(DEPLOY, { namespace: ns, name });
    if (!d) return;
    const rss = getReplicaSetsForDeployment(cluster, d);
    const newRs = rss.find((rs) => rs.metadata.name === newRsName);
    const status = calculateStatus(d, rss, newRs, cluster.now());
    if (deepEqual(status, d.status)) return;
    const next = clone(d);
    next.status = status;
    try {
      cluster.update(next, { subresource: 'status', ...MANAGER });
    } catch (err) {
      if (err instanceof StatusError && err.code === 409) q.add(key);
      else if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  }

  const unsub = cluster.subscribe((c) => {
    if (c.storageKey === 'apps/deployments') {
      if (c.type !== 'DELETED') q.add(`${c.object.metadata.namespace}/${c.object.metadata.name}`);
      return;
    }
    if (c.storageKey === 'apps/replicasets') {
      const owner = controllerOf(c.object);
      if (owner?.kind === 'Deployment') q.add(`${c.object.metadata.namespace}/${owner.name}`);
    }
  });
  return () => {
    unsub();
    q.stop();
  };
}
