/**
 * The DaemonSet controller (kube-controller-manager's daemonset controller): one pod per node that
 * should run it (the template's nodeSelector and required node affinity match the node, its taints
 * are tolerated), pinned to that node by the node affinity the real controller writes
 * (matchFields metadata.name In [node]) and carrying the daemon tolerations, the
 * controller-revision-hash and pod-template-generation labels; failed pods replaced, pods on nodes
 * that should not run them deleted; a ControllerRevision per template; RollingUpdate within
 * maxUnavailable; status (desired / current / misscheduled / ready / updated / available /
 * unavailable) and the real events. The revision hash is controller.ComputeHash's, as upstream's
 * snapshot names the revision (podtemplatehash.ts: the same function as the Deployment's). Not
 * modelled: maxSurge (pods surge only with maxSurge > 0), OnDelete's history, the failed-pod
 * backoff.
 */
import type { ControllerHost } from './controllerhost';
import { clone } from '../apimachinery/clone';
import { controllerOf, newControllerRef } from '../apimachinery/controllerref';
import { StatusError } from '../apimachinery/errors';
import { scaledValueFromIntOrPercent } from '../apimachinery/intstr';
import { deepEqual, isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';
import { computeHash } from './podtemplatehash';
import { isPodReady } from './replicaset';
import { isAvailable, revisionPatch, sortRevisions } from './statefulsetutil';
import { WorkQueue } from './workqueue';
import { rec } from '../apimachinery/unstructured';
import { createPod as createOwnedPod } from './podcontrol';

type Obj = Record<string, unknown>;
const DS = { apiVersion: 'apps/v1', kind: 'DaemonSet' };
const POD = { apiVersion: 'v1', kind: 'Pod' };
const NODE = { apiVersion: 'v1', kind: 'Node' };
const REVISION = { apiVersion: 'apps/v1', kind: 'ControllerRevision' };
const SOURCE = 'daemonset-controller';
const MANAGER = { fieldManager: 'kube-controller-manager' };
const HASH_LABEL = 'controller-revision-hash';
const GENERATION_LABEL = 'pod-template-generation';
const GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

/** AddOrUpdateDaemonPodTolerations: what a daemon pod tolerates on every node. */
function daemonTolerations(spec: Obj): Obj[] {
  const out: Array<[string, string]> = [
    ['node.kubernetes.io/not-ready', 'NoExecute'],
    ['node.kubernetes.io/unreachable', 'NoExecute'],
    ['node.kubernetes.io/disk-pressure', 'NoSchedule'],
    ['node.kubernetes.io/memory-pressure', 'NoSchedule'],
    ['node.kubernetes.io/pid-pressure', 'NoSchedule'],
    ['node.kubernetes.io/unschedulable', 'NoSchedule'],
  ];
  if (spec.hostNetwork === true) out.push(['node.kubernetes.io/network-unavailable', 'NoSchedule']);
  return out.map(([key, effect]) => ({ key, operator: 'Exists', effect }));
}

/** AddOrUpdateTolerationInPodSpec for each daemon toleration: one of the same key and effect is replaced. */
function withDaemonTolerations(spec: Obj): void {
  let list = Array.isArray(spec.tolerations) ? [...(spec.tolerations as Obj[])] : [];
  for (const t of daemonTolerations(spec)) {
    const i = list.findIndex((x) => x.key === t.key && x.effect === t.effect);
    if (i < 0) list.push(t);
    else if (!deepEqual(list[i], t)) list = list.map((x, j) => (j === i ? t : x));
  }
  spec.tolerations = list;
}

/** The node a daemon pod is for: its nodeName, or the metadata.name its node affinity requires. */
export function targetNode(pod: KubeObject): string | undefined {
  const spec = rec(pod.spec);
  if (typeof spec.nodeName === 'string' && spec.nodeName) return spec.nodeName;
  const terms = rec(
    rec(rec(spec.affinity).nodeAffinity).requiredDuringSchedulingIgnoredDuringExecution,
  ).nodeSelectorTerms;
  if (!Array.isArray(terms)) return undefined;
  for (const t of terms)
    for (const f of (rec(t).matchFields as Obj[] | undefined) ?? [])
      if (f.key === 'metadata.name' && f.operator === 'In' && Array.isArray(f.values))
        return String(f.values[0]);
  return undefined;
}

/** ReplaceDaemonSetPodNodeNameNodeAffinity. */
function pinToNode(spec: Obj, node: string): void {
  const required = {
    nodeSelectorTerms: [
      { matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] },
    ],
  };
  const affinity = rec(spec.affinity);
  const nodeAffinity = rec(affinity.nodeAffinity);
  nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = required;
  affinity.nodeAffinity = nodeAffinity;
  spec.affinity = affinity;
}

function matchExpression(labels: Record<string, string>, e: Obj): boolean {
  const v = labels[String(e.key)];
  const values = Array.isArray(e.values) ? (e.values as string[]) : [];
  switch (e.operator) {
    case 'In':
      return v !== undefined && values.includes(v);
    case 'NotIn':
      return v === undefined || !values.includes(v);
    case 'Exists':
      return v !== undefined;
    case 'DoesNotExist':
      return v === undefined;
    case 'Gt':
      return v !== undefined && Number(v) > Number(values[0]);
    case 'Lt':
      return v !== undefined && Number(v) < Number(values[0]);
    default:
      return false;
  }
}

/**
 * NodeShouldRunDaemonPod: the template's nodeSelector and required node affinity select the node,
 * and the pod tolerates the node's NoSchedule and NoExecute taints.
 */
export function shouldRun(node: KubeObject, template: Obj): boolean {
  const labels = node.metadata.labels ?? {};
  const spec = clone(rec(template.spec));
  withDaemonTolerations(spec);
  const selector = rec(spec.nodeSelector) as Record<string, string>;
  if (!Object.entries(selector).every(([k, v]) => labels[k] === v)) return false;
  const terms = rec(
    rec(rec(spec.affinity).nodeAffinity).requiredDuringSchedulingIgnoredDuringExecution,
  ).nodeSelectorTerms;
  if (Array.isArray(terms) && terms.length) {
    const fields: Record<string, string> = { 'metadata.name': node.metadata.name! };
    const ok = terms.some((t) => {
      const exprs = (rec(t).matchExpressions as Obj[] | undefined) ?? [];
      const fieldExprs = (rec(t).matchFields as Obj[] | undefined) ?? [];
      if (!exprs.length && !fieldExprs.length) return false;
      return (
        exprs.every((e) => matchExpression(labels, e)) &&
        fieldExprs.every((e) => matchExpression(fields, e))
      );
    });
    if (!ok) return false;
  }
  const tolerations = spec.tolerations as Obj[];
  const taints = Array.isArray(rec(node.spec).taints) ? (rec(node.spec).taints as Obj[]) : [];
  return taints
    .filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute')
    .every((taint) =>
      tolerations.some(
        (t) =>
          (!t.effect || t.effect === taint.effect) &&
          (t.operator === 'Exists'
            ? !t.key || t.key === taint.key
            : t.key === taint.key && (t.value ?? '') === (taint.value ?? '')),
      ),
    );
}

export function startDaemonSetController(cluster: ControllerHost): () => void {
  const q = new WorkQueue(SOURCE, cluster.clock, (key) => sync(key));

  const owned = (ds: KubeObject, o: KubeObject) => controllerOf(o)?.uid === ds.metadata.uid;

  /** getNodesToDaemonPods: the daemon's live pods by the node they are for. */
  function podsByNode(ds: KubeObject): Map<string, KubeObject[]> {
    const out = new Map<string, KubeObject[]>();
    for (const p of cluster.scan(POD, ds.metadata.namespace)) {
      if (!owned(ds, p) || p.metadata.deletionTimestamp) continue;
      const node = targetNode(p);
      if (!node) continue;
      out.set(node, [...(out.get(node) ?? []), p]);
    }
    // podByCreationTimestampAndPhase: the oldest first.
    for (const list of out.values())
      list.sort((a, b) =>
        String(a.metadata.creationTimestamp).localeCompare(String(b.metadata.creationTimestamp)),
      );
    return out;
  }

  /** constructHistory: the revision of the current template (created, or renumbered to the newest). */
  function currentRevision(ds: KubeObject): { hash: string } | undefined {
    const collision = rec(ds.status).collisionCount;
    const hash = computeHash(
      rec(ds.spec).template,
      typeof collision === 'number' ? collision : undefined,
    );
    const name = `${ds.metadata.name}-${hash}`;
    const revisions = sortRevisions(
      [...cluster.scan(REVISION, ds.metadata.namespace)].filter((r) => owned(ds, r)),
    );
    const max = revisions.reduce((m, r) => Math.max(m, Number(r.revision ?? 0)), 0);
    const existing = revisions.find((r) => r.metadata.name === name);
    try {
      if (!existing)
        cluster.create(
          {
            apiVersion: 'apps/v1',
            kind: 'ControllerRevision',
            metadata: {
              name,
              namespace: ds.metadata.namespace,
              labels: {
                ...(rec(rec(rec(ds.spec).template).metadata).labels as Record<string, string>),
                [HASH_LABEL]: hash,
              },
              ...(ds.metadata.annotations ? { annotations: { ...ds.metadata.annotations } } : {}),
              ownerReferences: [newControllerRef(ds, 'apps/v1', 'DaemonSet')],
            },
            data: revisionPatch(ds),
            revision: max + 1,
          },
          MANAGER,
        );
      else if (Number(existing.revision) < max) {
        const next = clone(existing);
        next.revision = max + 1;
        cluster.update(next, MANAGER);
      }
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
      return undefined;
    }
    return { hash };
  }

  /** IsPodUpdated: the pod has the current hash or template generation. */
  function isUpdated(ds: KubeObject, pod: KubeObject, hash: string): boolean {
    const gen = ds.metadata.annotations?.[GENERATION_ANNOTATION];
    return (
      pod.metadata.labels?.[HASH_LABEL] === hash ||
      (gen !== undefined && pod.metadata.labels?.[GENERATION_LABEL] === gen)
    );
  }

  function newPod(ds: KubeObject, node: string, hash: string): KubeObject {
    const tmpl = clone(rec(rec(ds.spec).template));
    const md = rec(tmpl.metadata);
    const spec = rec(tmpl.spec);
    withDaemonTolerations(spec);
    pinToNode(spec, node);
    const gen = ds.metadata.annotations?.[GENERATION_ANNOTATION];
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        generateName: `${ds.metadata.name}-`,
        namespace: ds.metadata.namespace,
        labels: {
          ...(md.labels as Record<string, string>),
          ...(gen !== undefined ? { [GENERATION_LABEL]: gen } : {}),
          [HASH_LABEL]: hash,
        },
        ...(isObject(md.annotations) ? { annotations: { ...(md.annotations as object) } } : {}),
        ownerReferences: [newControllerRef(ds, 'apps/v1', 'DaemonSet')],
      },
      spec,
    };
  }

  function createPod(ds: KubeObject, node: string, hash: string): boolean {
    return !(createOwnedPod(cluster, ds, newPod(ds, node, hash), SOURCE) instanceof StatusError);
  }

  function deletePod(ds: KubeObject, pod: KubeObject): void {
    try {
      cluster.delete(POD, { namespace: pod.metadata.namespace, name: pod.metadata.name! });
      cluster.recordEvent(
        ds,
        'Normal',
        'SuccessfulDelete',
        `Deleted pod: ${pod.metadata.name}`,
        SOURCE,
      );
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
      if (err.code !== 404)
        cluster.recordEvent(
          ds,
          'Warning',
          'FailedDelete',
          `Error deleting: ${err.message}`,
          SOURCE,
        );
    }
  }

  /** syncDaemonSet: manage, then roll, then status. */
  function sync(key: string): void {
    const [ns, name] = key.split('/');
    const ds = cluster.peek(DS, { namespace: ns, name });
    if (!ds || ds.metadata.deletionTimestamp) return;
    const cur = currentRevision(ds);
    if (!cur) return q.addRateLimited(key);
    const { hash } = cur;
    const nodes = [...cluster.scan(NODE)];
    const template = rec(rec(ds.spec).template);
    const minReady = Number(rec(ds.spec).minReadySeconds ?? 0);
    const now = cluster.clock.now();
    let failed = false;

    // manage: a pod where one should run, none where none should, failed ones replaced.
    const byNode = podsByNode(ds);
    for (const node of nodes) {
      const pods = byNode.get(node.metadata.name!) ?? [];
      if (!shouldRun(node, template)) {
        for (const p of pods) deletePod(ds, p);
        continue;
      }
      const live = pods.filter((p) => {
        if (rec(p.status).phase !== 'Failed') return true;
        cluster.recordEvent(
          ds,
          'Warning',
          'FailedDaemonPod',
          `Found failed daemon pod ${p.metadata.namespace}/${p.metadata.name} on node ${node.metadata.name}, will try to kill it`,
          SOURCE,
        );
        deletePod(ds, p);
        return false;
      });
      if (!live.length) {
        if (!createPod(ds, node.metadata.name!, hash)) failed = true;
      } else if (live.length > 1) for (const p of live.slice(1)) deletePod(ds, p);
    }

    // rollingUpdate (maxSurge 0): old pods go within maxUnavailable; manage then recreates them.
    const strategy = rec(rec(ds.spec).updateStrategy);
    if (strategy.type !== 'OnDelete') {
      const after = podsByNode(ds);
      const desired = nodes.filter((n) => shouldRun(n, template));
      const maxUnavailable = Math.max(
        scaledValueFromIntOrPercent(
          rec(strategy.rollingUpdate).maxUnavailable ?? 1,
          desired.length,
          true,
        ),
        1,
      );
      let unavailable = 0;
      const oldAvailable: KubeObject[] = [];
      const oldUnavailable: KubeObject[] = [];
      for (const n of desired) {
        const pods = after.get(n.metadata.name!) ?? [];
        const pod = pods[0];
        if (!pod) {
          unavailable++;
          continue;
        }
        const available = isAvailable(pod, minReady, now);
        if (!available) unavailable++;
        if (isUpdated(ds, pod, hash)) continue;
        (available ? oldAvailable : oldUnavailable).push(pod);
      }
      for (const p of oldUnavailable) deletePod(ds, p);
      for (const p of oldAvailable) {
        if (unavailable >= maxUnavailable) break;
        deletePod(ds, p);
        unavailable++;
      }
    }

    updateStatus(key, nodes, hash, minReady, now);
    if (failed) q.addRateLimited(key);
    else q.forget(key);
  }

  /** updateDaemonSetStatus. */
  function updateStatus(
    key: string,
    nodes: KubeObject[],
    hash: string,
    minReady: number,
    now: number,
  ) {
    const [ns, name] = key.split('/');
    const ds = cluster.peek(DS, { namespace: ns, name });
    if (!ds) return;
    const template = rec(rec(ds.spec).template);
    const byNode = podsByNode(ds);
    let desired = 0;
    let current = 0;
    let misscheduled = 0;
    let ready = 0;
    let updated = 0;
    let available = 0;
    for (const node of nodes) {
      const pods = byNode.get(node.metadata.name!) ?? [];
      if (!shouldRun(node, template)) {
        if (pods.length) misscheduled++;
        continue;
      }
      desired++;
      if (!pods.length) continue;
      current++;
      const pod = pods[0];
      if (isPodReady(pod)) {
        ready++;
        if (isAvailable(pod, minReady, now)) available++;
      }
      if (isUpdated(ds, pod, hash)) updated++;
    }
    const old = rec(ds.status);
    const status: Obj = {
      currentNumberScheduled: current,
      numberMisscheduled: misscheduled,
      desiredNumberScheduled: desired,
      numberReady: ready,
      observedGeneration: ds.metadata.generation,
      ...(updated ? { updatedNumberScheduled: updated } : {}),
      ...(available ? { numberAvailable: available } : {}),
      ...(desired - available ? { numberUnavailable: desired - available } : {}),
      ...(old.collisionCount !== undefined ? { collisionCount: old.collisionCount } : {}),
      ...(Array.isArray(old.conditions) && old.conditions.length
        ? { conditions: old.conditions }
        : {}),
    };
    if (minReady > 0 && ready !== available) q.addAfter(key, minReady * 1000);
    if (deepEqual(status, ds.status)) return;
    const next = clone(ds);
    next.status = status;
    try {
      cluster.update(next, { subresource: 'status', ...MANAGER });
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 409 || err.code === 404))) throw err;
      if (err.code === 409) q.add(key);
    }
  }

  const all = () => {
    for (const ds of cluster.scan(DS)) q.add(`${ds.metadata.namespace}/${ds.metadata.name}`);
  };
  const unsub = cluster.subscribe((c) => {
    if (c.storageKey === 'apps/daemonsets') {
      if (c.type !== 'DELETED') q.add(`${c.object.metadata.namespace}/${c.object.metadata.name}`);
      return;
    }
    if (c.storageKey === '/nodes') return all();
    if (c.storageKey === '/pods') {
      const owner = controllerOf(c.object);
      if (owner?.kind === 'DaemonSet' && owner.apiVersion.startsWith('apps/'))
        q.add(`${c.object.metadata.namespace}/${owner.name}`);
    }
  });
  return () => {
    unsub();
    q.stop();
  };
}
