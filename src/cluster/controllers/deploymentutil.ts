/**
 * The Deployment controller's decisions, as pure functions (kube-controller-manager's
 * deployment/util): which ReplicaSet is the new one and what it looks like when created, how far a
 * rolling update may scale the new ReplicaSet up and the old ones down, and the status the
 * Deployment reports. deployment.ts reads the cluster, calls these and writes the results.
 */
import { clone } from '../apimachinery/clone';
import { newControllerRef } from '../apimachinery/controllerref';
import { scaledValueFromIntOrPercent } from '../apimachinery/intstr';
import { deepEqual, isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';
import { rec } from '../apimachinery/unstructured';
import { computeHash } from './podtemplatehash';

type Obj = Record<string, unknown>;
const HASH_LABEL = 'pod-template-hash';
export const REVISION = 'deployment.kubernetes.io/revision';

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

/**
 * The pod-template-hash: controller.ComputeHash of the template, with the Deployment's
 * status.collisionCount when it has one (undefined: none, Go's nil).
 */
export function podTemplateHash(template: unknown, collisionCount?: number): string {
  return computeHash(template, collisionCount);
}

function templateWithoutHash(t: unknown): unknown {
  const c = clone(rec(t));
  const md = rec(c.metadata);
  if (isObject(md.labels)) {
    delete md.labels[HASH_LABEL];
  }
  return c;
}

/** spec.replicas, 1 when unset (the API default). */
export function desiredReplicas(d: KubeObject): number {
  const r = rec(d.spec).replicas;
  return typeof r === 'number' ? r : 1;
}

export function replicasOf(rs: KubeObject): number {
  return num(rec(rs.spec).replicas);
}

/** The pods a ReplicaSet has (status.replicas), whatever it wants. */
export function podsOf(rs: KubeObject): number {
  return num(rec(rs.status).replicas);
}

export function availableOf(rs: KubeObject): number {
  return num(rec(rs.status).availableReplicas);
}

/** FindNewReplicaSet: the ReplicaSet whose pod template is the Deployment's (hash label aside). */
export function findNewReplicaSet(d: KubeObject, rss: KubeObject[]): KubeObject | undefined {
  const template = rec(rec(d.spec).template);
  return rss.find((rs) => deepEqual(templateWithoutHash(rec(rs.spec).template), template));
}

/** MaxRevision: the highest revision annotation among the ReplicaSets. */
export function maxRevision(rss: KubeObject[]): number {
  return rss.reduce((m, rs) => Math.max(m, Number(rs.metadata.annotations?.[REVISION] ?? 0)), 0);
}

/** annotationsToSkip: what a Deployment's annotations copied to its new ReplicaSet leave out. */
const NOT_COPIED = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION,
  'deployment.kubernetes.io/revision-history',
  'deployment.kubernetes.io/desired-replicas',
  'deployment.kubernetes.io/max-replicas',
  'deprecated.deployment.rollback.to',
]);

/** MaxSurge: the resolved surge of a RollingUpdate, 0 for Recreate. */
export function maxSurgeOf(d: KubeObject): number {
  return rec(rec(d.spec).strategy).type === 'Recreate' ? 0 : rollingBudget(d).maxSurge;
}

/** SetReplicasAnnotations' values: the desired count, and it plus the surge. */
export function replicasAnnotations(d: KubeObject): Record<string, string> {
  const desired = desiredReplicas(d);
  return {
    'deployment.kubernetes.io/desired-replicas': String(desired),
    'deployment.kubernetes.io/max-replicas': String(desired + maxSurgeOf(d)),
  };
}

/**
 * The new ReplicaSet getNewReplicaSet creates: named and labelled with the pod-template-hash
 * (selector included, so it never selects another revision's pods), at `replicas` (what
 * NewRSNewReplicas allows at once), controlled by the Deployment, with the Deployment's own
 * annotations (copyDeploymentAnnotationsToReplicaSet), the next revision and the replica counts.
 */
export function newReplicaSetFor(d: KubeObject, revision: number, replicas = 0): KubeObject {
  const spec = rec(d.spec);
  const template = rec(spec.template);
  const copied: Record<string, string> = {};
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {}))
    if (!NOT_COPIED.has(k)) copied[k] = v;
  const collisionCount = rec(d.status).collisionCount;
  const hash = podTemplateHash(
    template,
    typeof collisionCount === 'number' ? collisionCount : undefined,
  );
  const labels = {
    ...(rec(template.metadata).labels as Record<string, string>),
    [HASH_LABEL]: hash,
  };
  const selector = clone(rec(spec.selector));
  selector.matchLabels = { ...rec(selector.matchLabels), [HASH_LABEL]: hash };
  const tmpl = clone(template);
  tmpl.metadata = { ...rec(tmpl.metadata), labels };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${d.metadata.name}-${hash}`,
      namespace: d.metadata.namespace,
      labels,
      annotations: { ...copied, [REVISION]: String(revision), ...replicasAnnotations(d) },
      ownerReferences: [newControllerRef(d, 'apps/v1', 'Deployment')],
    },
    spec: {
      replicas,
      minReadySeconds: spec.minReadySeconds ?? 0,
      selector,
      template: tmpl,
    },
  };
}

/** intstr.GetScaledValueFromIntOrPercent; an invalid value (validation refuses it) counts as 0. */
export function resolveFraction(v: unknown, total: number, roundUp: boolean): number {
  try {
    return scaledValueFromIntOrPercent(v, total, roundUp);
  } catch {
    return 0;
  }
}

/** ResolveFenceposts: maxSurge and maxUnavailable of a RollingUpdate (never both zero). */
export function rollingBudget(d: KubeObject): { maxSurge: number; maxUnavailable: number } {
  const desired = desiredReplicas(d);
  const ru = rec(rec(rec(d.spec).strategy).rollingUpdate);
  const maxSurge = resolveFraction(ru.maxSurge ?? '25%', desired, true);
  const maxUnavailable = resolveFraction(ru.maxUnavailable ?? '25%', desired, false);
  return { maxSurge, maxUnavailable: maxSurge === 0 && maxUnavailable === 0 ? 1 : maxUnavailable };
}

/**
 * NewRSNewReplicas for RollingUpdate: the new ReplicaSet grows towards the desired count as far as
 * maxSurge pods above it allow (counting every ReplicaSet's replicas), and shrinks to it.
 */
export function newRSNewReplicas(
  desired: number,
  maxSurge: number,
  newReplicas: number,
  totalReplicas: number,
): number {
  if (newReplicas < desired) {
    const room = desired + maxSurge - totalReplicas;
    return room > 0 ? Math.min(desired, newReplicas + room) : newReplicas;
  }
  return Math.min(newReplicas, desired);
}

/**
 * reconcileOldReplicaSets: how far the old ReplicaSets may shrink, oldest first, so that at least
 * desired − maxUnavailable pods stay available (the new ReplicaSet's unready pods count against
 * it). Returns the ReplicaSets to scale and their new counts.
 */
export function oldReplicaSetsScaleDown(
  olds: KubeObject[],
  newRs: { replicas: number; available: number },
  desired: number,
  maxUnavailable: number,
): Array<{ rs: KubeObject; replicas: number }> {
  const allReplicas = newRs.replicas + olds.reduce((n, rs) => n + replicasOf(rs), 0);
  const newUnavailable = Math.max(0, newRs.replicas - newRs.available);
  let budget = allReplicas - (desired - maxUnavailable) - newUnavailable;
  const byAge = [...olds].sort((a, b) =>
    String(a.metadata.creationTimestamp).localeCompare(String(b.metadata.creationTimestamp)),
  );
  const out: Array<{ rs: KubeObject; replicas: number }> = [];
  for (const rs of byAge) {
    if (budget <= 0) break;
    const cut = Math.min(replicasOf(rs), budget);
    out.push({ rs, replicas: replicasOf(rs) - cut });
    budget -= cut;
  }
  return out;
}

/**
 * GetTerminatingReplicaCountForReplicaSets: the ReplicaSets' terminating pods, unless one the
 * controller has synced does not report them (then none is reported).
 */
function terminatingReplicas(rss: KubeObject[]): Obj {
  let sum = 0;
  for (const rs of rss) {
    const st = rec(rs.status);
    if (typeof st.terminatingReplicas === 'number') sum += st.terminatingReplicas;
    else if (num(st.observedGeneration) !== 0) return {};
  }
  return { terminatingReplicas: sum };
}

/** A condition as NewDeploymentCondition makes it: both of its times now. */
export function newCondition(
  type: string,
  status: string,
  reason: string,
  message: string,
  now: string,
): Obj {
  return { type, status, lastUpdateTime: now, lastTransitionTime: now, reason, message };
}

/**
 * SetDeploymentCondition: a condition of the same status and reason is left as it is; otherwise
 * the new one replaces it at the end of the list, keeping its lastTransitionTime while the status
 * stays the same. (So the order of a Deployment's conditions says which changed last.)
 */
export function setCondition(conditions: Obj[], c: Obj): Obj[] {
  const current = conditions.find((x) => x.type === c.type);
  if (current && current.status === c.status && current.reason === c.reason) return conditions;
  const next =
    current && current.status === c.status
      ? { ...c, lastTransitionTime: current.lastTransitionTime }
      : c;
  return [...conditions.filter((x) => x.type !== c.type), next];
}

export function conditionOf(d: KubeObject, type: string): Obj | undefined {
  return conditionsOf(rec(d.status)).find((c) => c.type === type);
}

/** A status's conditions (none when it has no list). */
export function conditionsOf(status: Obj): Obj[] {
  return Array.isArray(status.conditions) ? (status.conditions as Obj[]) : [];
}

/** HasProgressDeadline: progressDeadlineSeconds set (the apiserver defaults 600) and not MaxInt32. */
export function hasProgressDeadline(d: KubeObject): boolean {
  const s = rec(d.spec).progressDeadlineSeconds;
  return typeof s === 'number' && s !== 2147483647;
}

/** MaxUnavailable: none for Recreate or zero replicas, else the rolling budget's, at most all. */
function maxUnavailableOf(d: KubeObject): number {
  const desired = desiredReplicas(d);
  if (rec(rec(d.spec).strategy).type === 'Recreate' || desired === 0) return 0;
  return Math.min(rollingBudget(d).maxUnavailable, desired);
}

/**
 * calculateStatus: the counts summed over the Deployment's ReplicaSets, its conditions carried
 * over, and Available set by minimum availability. Zero counts are left out, as omitempty does.
 */
export function calculateStatus(
  d: KubeObject,
  rss: KubeObject[],
  newRs: KubeObject | undefined,
  now: string,
): Obj {
  const sum = (k: string, list = rss) => list.reduce((n, rs) => n + num(rec(rs.status)[k]), 0);
  const available = sum('availableReplicas');
  // GetReplicaCountForReplicaSets: the replicas they are asked for, not those they have.
  const total = rss.reduce((n, rs) => n + replicasOf(rs), 0);
  const collisionCount = rec(d.status).collisionCount;
  const status: Obj = {
    observedGeneration: d.metadata.generation,
    replicas: sum('replicas'),
    updatedReplicas: newRs ? sum('replicas', [newRs]) : 0,
    readyReplicas: sum('readyReplicas'),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, total - available),
    ...terminatingReplicas(rss),
    ...(collisionCount !== undefined ? { collisionCount } : {}),
  };
  let conditions = [...conditionsOf(rec(d.status))];
  conditions =
    available >= desiredReplicas(d) - maxUnavailableOf(d)
      ? setCondition(
          conditions,
          newCondition(
            'Available',
            'True',
            'MinimumReplicasAvailable',
            'Deployment has minimum availability.',
            now,
          ),
        )
      : setCondition(
          conditions,
          newCondition(
            'Available',
            'False',
            'MinimumReplicasUnavailable',
            'Deployment does not have minimum availability.',
            now,
          ),
        );
  if (conditions.length) status.conditions = conditions;
  for (const k of [
    'replicas',
    'updatedReplicas',
    'readyReplicas',
    'availableReplicas',
    'unavailableReplicas',
  ])
    if (status[k] === 0) delete status[k];
  return status;
}

/** DeploymentComplete: every desired replica updated and available, none old, generation seen. */
function deploymentComplete(d: KubeObject, st: Obj): boolean {
  const desired = desiredReplicas(d);
  return (
    num(st.updatedReplicas) === desired &&
    num(st.replicas) === desired &&
    num(st.availableReplicas) === desired &&
    num(st.observedGeneration) >= num(d.metadata.generation)
  );
}

/**
 * DeploymentProgressing: against the status the Deployment has now, more pods updated, ready or
 * available, or fewer old ones.
 */
function deploymentProgressing(d: KubeObject, st: Obj): boolean {
  const old = rec(d.status);
  return (
    num(st.updatedReplicas) > num(old.updatedReplicas) ||
    num(st.replicas) - num(st.updatedReplicas) < num(old.replicas) - num(old.updatedReplicas) ||
    num(st.readyReplicas) > num(old.readyReplicas) ||
    num(st.availableReplicas) > num(old.availableReplicas)
  );
}

/** DeploymentTimedOut: the Progressing condition last updated more than the deadline ago. */
function deploymentTimedOut(d: KubeObject, st: Obj, nowMs: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = conditionsOf(st).find((x) => x.type === 'Progressing');
  if (!c || c.reason === 'NewReplicaSetAvailable') return false;
  if (c.reason === 'ProgressDeadlineExceeded') return true;
  const from = Date.parse(String(c.lastUpdateTime));
  return from + num(rec(d.spec).progressDeadlineSeconds) * 1000 < nowMs;
}

export interface RolloutStatus {
  status: Obj;
  /**
   * requeueStuckDeployment: when to look again for a rollout that made no progress, so it times
   * out at its deadline (ms from now; 0 for at once); undefined when it need not be.
   */
  recheckInMs?: number;
}

/**
 * syncRolloutStatus's status: calculateStatus, then Progressing as the rollout stands (complete,
 * progressing since the status the Deployment has, or past its deadline), without it when there
 * is no deadline, and the ReplicaSets' ReplicaFailure (the new one's first).
 */
export function rolloutStatus(
  d: KubeObject,
  rss: KubeObject[],
  newRs: KubeObject | undefined,
  now: string,
): RolloutStatus {
  const status = calculateStatus(d, rss, newRs, now);
  let conditions = conditionsOf(status);
  const deadline = hasProgressDeadline(d);
  if (!deadline) conditions = conditions.filter((c) => c.type !== 'Progressing');
  const current = conditionOf(d, 'Progressing');
  const complete =
    num(status.replicas) === num(status.updatedReplicas) &&
    current?.reason === 'NewReplicaSetAvailable';
  const name = newRs ? `ReplicaSet "${newRs.metadata.name}"` : `Deployment "${d.metadata.name}"`;
  const nowMs = Date.parse(now);
  if (deadline && !complete) {
    const withConditions = { ...status, conditions };
    if (deploymentComplete(d, withConditions)) {
      conditions = setCondition(
        conditions,
        newCondition(
          'Progressing',
          'True',
          'NewReplicaSetAvailable',
          `${name} has successfully progressed.`,
          now,
        ),
      );
    } else if (deploymentProgressing(d, withConditions)) {
      // The same reason with a new lastUpdateTime: progress seen again (SetDeploymentCondition
      // alone would leave a condition of the same reason as it was).
      const c = newCondition(
        'Progressing',
        'True',
        'ReplicaSetUpdated',
        `${name} is progressing.`,
        now,
      );
      if (current?.status === 'True') c.lastTransitionTime = current.lastTransitionTime;
      if (current) conditions = conditions.filter((x) => x.type !== 'Progressing');
      conditions = setCondition(conditions, c);
    } else if (deploymentTimedOut(d, withConditions, nowMs)) {
      conditions = setCondition(
        conditions,
        newCondition(
          'Progressing',
          'False',
          'ProgressDeadlineExceeded',
          `${name} has timed out progressing.`,
          now,
        ),
      );
    }
  }
  const failure = replicaFailure(rss, newRs);
  conditions = failure
    ? setCondition(conditions, failure)
    : conditions.filter((c) => c.type !== 'ReplicaFailure');
  const out = { ...status };
  if (conditions.length) out.conditions = conditions;
  else delete out.conditions;
  if (!deepEqual(out, d.status ?? {})) return { status: out };
  return { status: out, ...recheck(d, out, nowMs) };
}

/** getReplicaFailures: the new ReplicaSet's ReplicaFailure, else the first old one's. */
function replicaFailure(rss: KubeObject[], newRs: KubeObject | undefined): Obj | undefined {
  for (const rs of newRs ? [newRs, ...rss] : rss) {
    const c = conditionsOf(rec(rs.status)).find((x) => x.type === 'ReplicaFailure');
    if (c)
      return {
        type: 'ReplicaFailure',
        status: c.status,
        lastUpdateTime: c.lastTransitionTime,
        lastTransitionTime: c.lastTransitionTime,
        reason: c.reason,
        message: c.message,
      };
  }
  return undefined;
}

/** requeueStuckDeployment, for a status that did not change. */
function recheck(d: KubeObject, st: Obj, nowMs: number): { recheckInMs?: number } {
  const c = conditionOf(d, 'Progressing');
  if (!hasProgressDeadline(d) || !c) return {};
  if (deploymentComplete(d, st) || c.reason === 'ProgressDeadlineExceeded') return {};
  const after =
    Date.parse(String(c.lastUpdateTime)) + num(rec(d.spec).progressDeadlineSeconds) * 1000 - nowMs;
  // Less than a second left: now (rate limited, in the controller); else a second after it.
  return { recheckInMs: after < 1000 ? 0 : after + 1000 };
}
