/**
 * The Deployment controller: one ReplicaSet per pod template (named and labelled with the
 * pod-template-hash), rollouts by RollingUpdate (maxSurge / maxUnavailable, paced by pods becoming
 * ready) or Recreate, revision annotations, ScalingReplicaSet events, and status with the
 * Available and Progressing conditions `kubectl rollout status` reads, written in the steps
 * kube-controller-manager writes them (the new ReplicaSet's revision and Progressing first, then
 * the counts), the progress deadline included (ProgressDeadlineExceeded). Not modelled:
 * revisionHistoryLimit cleanup, rollbacks, the annotation sync of an existing new ReplicaSet.
 * Unlike kube-controller-manager, a sync that wrote the revision goes on from the object it wrote
 * (kube-controller-manager's later UpdateStatus of its stale copy conflicts and is retried): the
 * writes a watcher sees are the same, sooner. The decisions are pure functions in deploymentutil.ts.
 */
import type { ControllerHost } from './controllerhost';
import { clone } from '../apimachinery/clone';
import { controllerOf } from '../apimachinery/controllerref';
import {
  REVISION,
  availableOf,
  calculateStatus,
  conditionOf,
  conditionsOf,
  desiredReplicas,
  hasProgressDeadline,
  newCondition,
  rolloutStatus,
  setCondition,
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

  /**
   * syncDeployment: the paused condition, then find or create the new ReplicaSet (writing its
   * revision and Progressing onto the Deployment), take one rollout step, report status.
   */
  function sync(key: string): void {
    const [ns, name] = key.split('/');
    let d = cluster.peek(DEPLOY, { namespace: ns, name });
    if (!d || d.metadata.deletionTimestamp) return;
    const rss = getReplicaSetsForDeployment(cluster, d);
    d = checkPausedConditions(key, d);
    if (!d) return;
    if (isObject(d.spec) && d.spec.paused === true) {
      // sync: the new ReplicaSet's revision only (none is created), and syncDeploymentStatus.
      const found = getNewReplicaSet(key, d, rss, false);
      if (!found) return;
      const status = calculateStatus(found.d, rss, found.rs, cluster.now());
      if (!deepEqual(status, found.d.status ?? {})) writeStatus(key, found.d, status);
      return;
    }
    const recreate = rec(rec(d.spec).strategy).type === 'Recreate';
    // rolloutRecreate creates the new ReplicaSet only once the old ones' pods are gone.
    if (recreate && !findNewReplicaSet(d, rss) && !scaleDownOlds(d, rss)) {
      syncRolloutStatus(key, d, rss, undefined);
      return;
    }
    const found = getNewReplicaSet(key, d, rss, true);
    if (!found?.rs) return;
    const newRs = found.rs;
    const olds = rss.filter((rs) => rs.metadata.uid !== newRs.metadata.uid);
    if (recreate) rolloutRecreate(found.d, newRs, olds);
    else rolloutRolling(found.d, newRs, olds);
    // As kube-controller-manager: the ReplicaSets as they were listed, the new one added.
    syncRolloutStatus(key, found.d, [...olds, newRs], newRs);
  }

  /**
   * checkPausedConditions: Progressing Unknown "DeploymentPaused" once paused, "DeploymentResumed"
   * once resumed (not over a timed-out rollout); the Deployment as it is after, or undefined when
   * the write failed (retried).
   */
  function checkPausedConditions(key: string, d: KubeObject): KubeObject | undefined {
    if (!hasProgressDeadline(d)) return d;
    const cond = conditionOf(d, 'Progressing');
    if (cond?.reason === 'ProgressDeadlineExceeded') return d;
    const pausedCond = cond?.reason === 'DeploymentPaused';
    const paused = rec(d.spec).paused === true;
    if (paused === pausedCond) return d;
    const c = paused
      ? newCondition(
          'Progressing',
          'Unknown',
          'DeploymentPaused',
          'Deployment is paused',
          cluster.now(),
        )
      : newCondition(
          'Progressing',
          'Unknown',
          'DeploymentResumed',
          'Deployment is resumed',
          cluster.now(),
        );
    return writeStatus(key, d, {
      ...rec(d.status),
      conditions: setCondition(conditionsOf(rec(d.status)), c),
    });
  }

  /**
   * getNewReplicaSet: the new ReplicaSet, created (at the next revision, with `create`) if there
   * is none, at the replicas NewRSNewReplicas allows at once (all of them for Recreate, whose old
   * pods are gone by then). The Deployment then carries its revision and, with a progress
   * deadline, Progressing "NewReplicaSetCreated" (or "FoundNewReplicaSet" when it had none), in
   * one status write as UpdateStatus does. Undefined on a conflict (retried).
   */
  function getNewReplicaSet(
    key: string,
    d: KubeObject,
    rss: KubeObject[],
    create: boolean,
  ): { d: KubeObject; rs: KubeObject | undefined } | undefined {
    const existing = findNewReplicaSet(d, rss);
    if (existing) {
      const rev = existing.metadata.annotations?.[REVISION];
      const found = hasProgressDeadline(d) && !conditionOf(d, 'Progressing');
      const status = found
        ? progressing(d, 'FoundNewReplicaSet', `Found new replica set "${existing.metadata.name}"`)
        : rec(d.status);
      const changed = found || (rev !== undefined && d.metadata.annotations?.[REVISION] !== rev);
      if (!changed) return { d, rs: existing };
      const written = writeStatus(key, withRevision(d, rev), status);
      return written ? { d: written, rs: existing } : undefined;
    }
    if (!create) return { d, rs: undefined };
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
    const revision = maxRevision(rss) + 1;
    let created: KubeObject;
    try {
      created = cluster.create(newReplicaSetFor(d, revision, replicas), MANAGER);
    } catch (err) {
      if (err instanceof StatusError && err.code === 409) {
        q.addRateLimited(key);
        return undefined;
      }
      throw err;
    }
    if (replicas > 0)
      cluster.recordEvent(
        d,
        'Normal',
        'ScalingReplicaSet',
        `Scaled up replica set ${created.metadata.name} from 0 to ${replicas}`,
        SOURCE,
      );
    const status = hasProgressDeadline(d)
      ? progressing(d, 'NewReplicaSetCreated', `Created new replica set "${created.metadata.name}"`)
      : rec(d.status);
    const written = writeStatus(key, withRevision(d, String(revision)), status);
    return written ? { d: written, rs: created } : undefined;
  }

  /** The Deployment's status with Progressing True for `reason`, as getNewReplicaSet sets it. */
  function progressing(d: KubeObject, reason: string, message: string): Record<string, unknown> {
    const c = newCondition('Progressing', 'True', reason, message, cluster.now());
    return { ...rec(d.status), conditions: setCondition(conditionsOf(rec(d.status)), c) };
  }

  /** SetDeploymentRevision, on a copy. */
  function withRevision(d: KubeObject, rev: string | undefined): KubeObject {
    if (rev === undefined || d.metadata.annotations?.[REVISION] === rev) return d;
    const next = clone(d);
    next.metadata.annotations = { ...(next.metadata.annotations ?? {}), [REVISION]: rev };
    return next;
  }

  /**
   * UpdateStatus of `d` with `status`: through the status subresource, whose strategy keeps the
   * annotations it carries (a main-resource write would bump the generation, which annotation
   * changes do for Deployments). The Deployment as written, or undefined on a conflict or when it
   * is gone (a conflict is retried, rate limited).
   */
  function writeStatus(
    key: string,
    d: KubeObject,
    status: Record<string, unknown>,
  ): KubeObject | undefined {
    const next = clone(d);
    next.status = status;
    try {
      return cluster.update(next, { subresource: 'status', ...MANAGER });
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 409 || err.code === 404))) throw err;
      if (err.code === 409) q.addRateLimited(key);
      return undefined;
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
   * syncRolloutStatus: rolloutStatus over the ReplicaSets, written when it changed; a rollout
   * that made no progress is looked at again by its deadline (requeueStuckDeployment).
   */
  function syncRolloutStatus(
    key: string,
    d: KubeObject,
    rss: KubeObject[],
    newRs: KubeObject | undefined,
  ): void {
    const { status, recheckInMs } = rolloutStatus(d, rss, newRs, cluster.now());
    if (recheckInMs !== undefined) {
      if (recheckInMs === 0) q.addRateLimited(key);
      else q.addAfter(key, recheckInMs);
    }
    if (!deepEqual(status, d.status ?? {})) writeStatus(key, d, status);
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
