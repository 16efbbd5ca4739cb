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
 * calculateStatus and the conditions of syncRolloutStatus: the counts summed over the
 * Deployment's ReplicaSets, Available (minimum availability) and Progressing (the new ReplicaSet
 * progressing or complete, Unknown while paused without one), and ReplicaFailure copied from the
 * new ReplicaSet. A condition keeps its times while it does not change.
 */
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

export function calculateStatus(
  d: KubeObject,
  rss: KubeObject[],
  newRs: KubeObject | undefined,
  now: string,
): Obj {
  const desired = desiredReplicas(d);
  const sum = (k: string, list = rss) => list.reduce((s, rs) => s + num(rec(rs.status)[k]), 0);
  const replicas = sum('replicas');
  const updated = newRs ? sum('replicas', [newRs]) : 0;
  const ready = sum('readyReplicas');
  const available = sum('availableReplicas');
  const maxUnavailable = resolveFraction(
    rec(rec(rec(d.spec).strategy).rollingUpdate).maxUnavailable ?? '25%',
    desired,
    false,
  );
  const prev = Array.isArray(rec(d.status).conditions) ? (rec(d.status).conditions as Obj[]) : [];
  const cond = (type: string, status: string, reason: string, message: string): Obj => {
    const p = prev.find((c) => c.type === type);
    const changed = !p || p.status !== status;
    return {
      type,
      status,
      lastUpdateTime: p && p.reason === reason && p.message === message ? p.lastUpdateTime : now,
      lastTransitionTime: changed ? now : p.lastTransitionTime,
      reason,
      message,
    };
  };
  const conditions: Obj[] = [
    available >= desired - maxUnavailable
      ? cond(
          'Available',
          'True',
          'MinimumReplicasAvailable',
          'Deployment has minimum availability.',
        )
      : cond(
          'Available',
          'False',
          'MinimumReplicasUnavailable',
          'Deployment does not have minimum availability.',
        ),
  ];
  const complete = newRs && updated === desired && replicas === desired && available === desired;
  conditions.push(
    complete
      ? cond(
          'Progressing',
          'True',
          'NewReplicaSetAvailable',
          `ReplicaSet "${newRs!.metadata.name}" has successfully progressed.`,
        )
      : newRs
        ? cond(
            'Progressing',
            'True',
            'ReplicaSetUpdated',
            `ReplicaSet "${newRs.metadata.name}" is progressing.`,
          )
        : cond('Progressing', 'Unknown', 'DeploymentPaused', 'Deployment is paused'),
  );
  const failure =
    newRs &&
    (rec(newRs.status).conditions as Obj[] | undefined)?.find((c) => c.type === 'ReplicaFailure');
  if (failure)
    conditions.push(
      cond('ReplicaFailure', 'True', String(failure.reason), String(failure.message)),
    );
  const status: Obj = {
    observedGeneration: d.metadata.generation,
    replicas,
    updatedReplicas: updated,
    readyReplicas: ready,
    availableReplicas: available,
    unavailableReplicas: Math.max(0, desired - available),
    ...terminatingReplicas(rss),
    conditions,
  };
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
