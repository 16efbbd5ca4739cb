/**
 * The Deployment controller: one ReplicaSet per pod template (named and labelled with the
 * pod-template-hash), rollouts by RollingUpdate (maxSurge / maxUnavailable, paced by pods becoming
 * ready) or Recreate, revision annotations, ScalingReplicaSet events, and status with the
 * Available and Progressing conditions `kubectl rollout status` reads. Not modelled: the
 * progress deadline (ProgressDeadlineExceeded), revisionHistoryLimit cleanup, rollbacks.
 */
import { scaledValueFromIntOrPercent } from './intstr';
import type { Cluster } from './cluster';
import { clone } from './clone';
import { StatusError } from './errors';
import { deepEqual, isObject } from './patch';
import { controllerOf } from './replicaset';
import type { KubeObject } from './types';
import { WorkQueue } from './workqueue';

type Obj = Record<string, unknown>;
const DEPLOY = { apiVersion: 'apps/v1', kind: 'Deployment' };
const RS = { apiVersion: 'apps/v1', kind: 'ReplicaSet' };
const SOURCE = 'deployment-controller';
const HASH_LABEL = 'pod-template-hash';
const REVISION = 'deployment.kubernetes.io/revision';

function rec(v: unknown): Obj {
  return isObject(v) ? v : {};
}

function fnv32a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** controller.ComputeHash + rand.SafeEncodeString: a short, vowel-free hash of the pod template. */
export function podTemplateHash(template: unknown, collisionCount = 0): string {
  const digits = String(
    fnv32a(stableStringify(template) + (collisionCount ? String(collisionCount) : '')),
  );
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let out = '';
  for (const d of digits) out += alphabet[d.charCodeAt(0) % alphabet.length];
  return out;
}

function stableStringify(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(',')}]`;
  if (isObject(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableStringify(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

function templateWithoutHash(t: unknown): unknown {
  const c = clone(rec(t));
  const md = rec(c.metadata);
  if (isObject(md.labels)) {
    delete md.labels[HASH_LABEL];
  }
  return c;
}

export function startDeploymentController(cluster: Cluster): () => void {
  const q = new WorkQueue('deployment-controller', cluster.clock, (key) => sync(key));

  function ownedReplicaSets(d: KubeObject): KubeObject[] {
    const out: KubeObject[] = [];
    for (const rs of cluster.scan(RS, d.metadata.namespace))
      if (controllerOf(rs)?.uid === d.metadata.uid) out.push(rs);
    return out;
  }

  function sync(key: string): void {
    const [ns, name] = key.split('/');
    const d = cluster.peek(DEPLOY, { namespace: ns, name });
    if (!d || d.metadata.deletionTimestamp) return;
    const spec = rec(d.spec);
    const desired = typeof spec.replicas === 'number' ? spec.replicas : 1;
    const template = rec(spec.template);
    const hash = podTemplateHash(
      template,
      typeof rec(d.status).collisionCount === 'number'
        ? (rec(d.status).collisionCount as number)
        : 0,
    );
    const all = ownedReplicaSets(d);
    let newRs = all.find((rs) => deepEqual(templateWithoutHash(rec(rs.spec).template), template));
    const old = all.filter((rs) => rs !== newRs);
    const maxRevision = all.reduce(
      (m, rs) => Math.max(m, Number(rs.metadata.annotations?.[REVISION] ?? 0)),
      0,
    );
    const paused = spec.paused === true;
    if (!newRs && !paused) {
      const labels = {
        ...(rec(template.metadata).labels as Record<string, string>),
        [HASH_LABEL]: hash,
      };
      const selector = clone(rec(spec.selector));
      selector.matchLabels = { ...rec(selector.matchLabels), [HASH_LABEL]: hash };
      const tmpl = clone(template);
      tmpl.metadata = { ...rec(tmpl.metadata), labels };
      try {
        newRs = cluster.create(
          {
            apiVersion: 'apps/v1',
            kind: 'ReplicaSet',
            metadata: {
              name: `${name}-${hash}`,
              namespace: ns,
              labels,
              annotations: {
                [REVISION]: String(maxRevision + 1),
                'deployment.kubernetes.io/desired-replicas': String(desired),
                'deployment.kubernetes.io/max-replicas': String(desired),
              },
              ownerReferences: [
                {
                  apiVersion: 'apps/v1',
                  kind: 'Deployment',
                  name,
                  uid: d.metadata.uid!,
                  controller: true,
                  blockOwnerDeletion: true,
                },
              ],
            },
            spec: {
              replicas: 0,
              minReadySeconds: spec.minReadySeconds ?? 0,
              selector,
              template: tmpl,
            },
          },
          { fieldManager: 'kube-controller-manager' },
        );
      } catch (err) {
        if (err instanceof StatusError && err.code === 409) {
          q.addRateLimited(key);
          return;
        }
        throw err;
      }
    }
    if (newRs && !paused) {
      rollout(d, newRs, old, desired);
      const rev = newRs.metadata.annotations?.[REVISION];
      if (rev && d.metadata.annotations?.[REVISION] !== rev) {
        const next = clone(cluster.peek(DEPLOY, { namespace: ns, name })!);
        next.metadata.annotations = { ...(next.metadata.annotations ?? {}), [REVISION]: rev };
        try {
          cluster.update(next, { fieldManager: 'kube-controller-manager' });
        } catch (err) {
          if (!(err instanceof StatusError && (err.code === 409 || err.code === 404))) throw err;
          q.addRateLimited(key);
        }
      }
    }
    writeStatus(key, newRs?.metadata.name);
  }

  /**
   * One step of the rollout, as rolling.go / recreate.go do: RollingUpdate surges the new
   * ReplicaSet up to maxSurge above the desired count and scales old ones down as far as
   * maxUnavailable allows, so old and new pods overlap until the new ones are ready; Recreate
   * scales the old ones to zero first. Each ready pod resyncs the Deployment for the next step.
   */
  function rollout(d: KubeObject, newRs: KubeObject, old: KubeObject[], desired: number): void {
    const spec = rec(d.spec);
    const strategy = rec(spec.strategy);
    const replicasOf = (rs: KubeObject) =>
      typeof rec(rs.spec).replicas === 'number' ? (rec(rs.spec).replicas as number) : 0;
    const availableOf = (rs: KubeObject) =>
      typeof rec(rs.status).availableReplicas === 'number'
        ? (rec(rs.status).availableReplicas as number)
        : 0;
    const podsOf = (rs: KubeObject) =>
      typeof rec(rs.status).replicas === 'number' ? (rec(rs.status).replicas as number) : 0;
    const live = (rs: KubeObject) =>
      cluster.peek(RS, { namespace: rs.metadata.namespace, name: rs.metadata.name! }) ?? rs;
    const olds = old.map(live).filter((rs) => replicasOf(rs) > 0 || podsOf(rs) > 0);
    if (strategy.type === 'Recreate') {
      for (const rs of olds) scale(d, rs, 0);
      if (olds.every((rs) => podsOf(live(rs)) === 0)) scale(d, newRs, desired);
      return;
    }
    const ru = rec(strategy.rollingUpdate);
    const maxSurge = resolveFraction(ru.maxSurge ?? '25%', desired, true);
    let maxUnavailable = resolveFraction(ru.maxUnavailable ?? '25%', desired, false);
    if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
    let current = live(newRs);
    if (!olds.length) {
      scale(d, current, desired);
      return;
    }
    // Scale up the new ReplicaSet within the surge budget.
    const total = replicasOf(current) + olds.reduce((n, rs) => n + replicasOf(rs), 0);
    if (replicasOf(current) < desired) {
      const room = desired + maxSurge - total;
      if (room > 0) scale(d, current, Math.min(desired, replicasOf(current) + room));
    } else if (replicasOf(current) > desired) scale(d, current, desired);
    current = live(newRs);
    // Scale down old ReplicaSets, oldest first, as far as availability allows.
    const allReplicas = replicasOf(current) + olds.reduce((n, rs) => n + replicasOf(rs), 0);
    const newUnavailable = Math.max(0, replicasOf(current) - availableOf(current));
    let budget = allReplicas - (desired - maxUnavailable) - newUnavailable;
    const byAge = [...olds].sort((a, b) =>
      String(a.metadata.creationTimestamp).localeCompare(String(b.metadata.creationTimestamp)),
    );
    for (const rs of byAge) {
      if (budget <= 0) break;
      const cut = Math.min(replicasOf(rs), budget);
      scale(d, rs, replicasOf(rs) - cut);
      budget -= cut;
    }
  }

  function scale(d: KubeObject, rs: KubeObject, replicas: number): void {
    const current = cluster.peek(RS, { namespace: rs.metadata.namespace, name: rs.metadata.name! });
    if (!current || rec(current.spec).replicas === replicas) return;
    const before = rec(current.spec).replicas as number;
    const next = clone(current);
    rec(next.spec).replicas = replicas;
    next.metadata.annotations = {
      ...(next.metadata.annotations ?? {}),
      'deployment.kubernetes.io/desired-replicas': String(rec(d.spec).replicas ?? 1),
    };
    cluster.update(next, { fieldManager: 'kube-controller-manager' });
    cluster.recordEvent(
      d,
      'Normal',
      'ScalingReplicaSet',
      `Scaled ${replicas > before ? 'up' : 'down'} replica set ${rs.metadata.name} from ${before} to ${replicas}`,
      SOURCE,
    );
  }

  function writeStatus(key: string, newRsName: string | undefined): void {
    const [ns, name] = key.split('/');
    const d = cluster.peek(DEPLOY, { namespace: ns, name });
    if (!d) return;
    const desired = typeof rec(d.spec).replicas === 'number' ? (rec(d.spec).replicas as number) : 1;
    const all = ownedReplicaSets(d);
    const newRs = all.find((rs) => rs.metadata.name === newRsName);
    const sum = (k: string, list = all) =>
      list.reduce(
        (s, rs) => s + (typeof rec(rs.status)[k] === 'number' ? (rec(rs.status)[k] as number) : 0),
        0,
      );
    const replicas = sum('replicas');
    const updated = newRs ? sum('replicas', [newRs]) : 0;
    const ready = sum('readyReplicas');
    const available = sum('availableReplicas');
    const maxUnavailable = resolveFraction(
      rec(rec(rec(d.spec).strategy).rollingUpdate).maxUnavailable ?? '25%',
      desired,
      false,
    );
    const now = cluster.now();
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
    if (deepEqual(status, d.status)) return;
    const next = clone(d);
    next.status = status;
    try {
      cluster.update(next, { subresource: 'status', fieldManager: 'kube-controller-manager' });
    } catch (err) {
      if (err instanceof StatusError && err.code === 409) q.add(key);
      else if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  }

  const unsub = cluster.store.subscribe((c) => {
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

/** intstr.GetScaledValueFromIntOrPercent; an invalid value (validation refuses it) counts as 0. */
function resolveFraction(v: unknown, total: number, roundUp: boolean): number {
  try {
    return scaledValueFromIntOrPercent(v, total, roundUp);
  } catch {
    return 0;
  }
}
