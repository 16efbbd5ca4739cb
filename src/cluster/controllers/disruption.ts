/**
 * The disruption controller (kube-controller-manager's pkg/controller/disruption): keeps each
 * PodDisruptionBudget's status — expectedPods, desiredHealthy, currentHealthy,
 * disruptionsAllowed, the DisruptionAllowed condition, observedGeneration — and forgets the
 * `disruptedPods` the eviction subresource recorded once the pod is gone or DELETION_TIMEOUT_MS
 * has passed. The expected count comes from the pods' controllers (a Deployment through its
 * ReplicaSet, or anything with a scale subresource) for `maxUnavailable` and percentages, and is
 * the matching pods for an integer `minAvailable`, as there.
 */
import type { ControllerHost } from './controllerhost';
import { resourceAt } from './controllerhost';
import { clone } from '../apimachinery/clone';
import { StatusError } from '../apimachinery/errors';
import { scaledValueFromIntOrPercent } from '../apimachinery/intstr';
import { deepEqual, isObject } from '../apimachinery/patch';
import { controllerOf } from '../apimachinery/controllerref';
import { isPodReady } from './replicaset';
import { fromLabelSelector, matchesLabels } from '../apimachinery/selector';
import type { KubeObject } from '../apimachinery/types';
import { splitApiVersion } from '../apimachinery/types';
import { WorkQueue } from './workqueue';

type Obj = Record<string, unknown>;
export const PDB = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' };
const POD = { apiVersion: 'v1', kind: 'Pod' };
const PDB_STORAGE = 'policy/poddisruptionbudgets';
/** How long an eviction's entry in disruptedPods waits for the pod to go (DeletionTimeout). */
export const DELETION_TIMEOUT_MS = 2 * 60 * 1000;
const SOURCE = 'controllermanager';
const rec = (v: unknown): Obj => (isObject(v) ? v : {});

/** The pods a budget's selector covers; a nil selector covers none, an empty one all. */
export function podsOfBudget(cluster: ControllerHost, pdb: KubeObject): KubeObject[] {
  const sel = fromLabelSelector(rec(pdb.spec).selector);
  if (!sel) return [];
  return [...cluster.scan(POD, pdb.metadata.namespace)].filter((p) =>
    matchesLabels(sel, p.metadata.labels),
  );
}

/** The scale of a pod's controller: a Deployment through its ReplicaSet, else a scale subresource. */
function controllerScale(
  cluster: ControllerHost,
  ref: { apiVersion?: string; kind: string; name: string; uid: string },
  ns: string,
): { uid: string; scale: number } | undefined {
  const apiVersion = ref.apiVersion ?? '';
  if (ref.kind === 'ReplicaSet' && splitApiVersion(apiVersion).group === 'apps') {
    const rs = cluster.peek(
      { apiVersion: 'apps/v1', kind: 'ReplicaSet' },
      { namespace: ns, name: ref.name },
    );
    const owner = rs && rs.metadata.uid === ref.uid ? controllerOf(rs) : undefined;
    if (owner?.kind === 'Deployment') {
      const d = cluster.peek(
        { apiVersion: 'apps/v1', kind: 'Deployment' },
        { namespace: ns, name: owner.name },
      );
      if (!d || d.metadata.uid !== owner.uid) return undefined;
      return { uid: d.metadata.uid, scale: Number(rec(d.spec).replicas ?? 1) };
    }
  }
  const t = cluster.resourceFor({ apiVersion, kind: ref.kind });
  if (!t) throw new Error(`no matches for kind "${ref.kind}" in version "${apiVersion}"`);
  if (!t.scale) {
    const gr = t.gr.group ? `${t.gr.resource}.${t.gr.group}` : t.gr.resource;
    throw new Error(`${gr} does not implement the scale subresource`);
  }
  const type = { apiVersion: t.apiVersion, kind: t.info.kind };
  const owner = cluster.peek(type, { namespace: ns, name: ref.name });
  if (!owner || owner.metadata.uid !== ref.uid) return undefined;
  const scale = cluster.getScale(type, { namespace: ns, name: ref.name });
  return { uid: ref.uid, scale: Number(rec(scale.spec).replicas ?? 0) };
}

/** metav1.LabelSelector's String(), as `%v` prints it in the controller's events. */
function selectorString(sel: unknown): string {
  if (!isObject(sel)) return 'nil';
  const labels = rec(sel.matchLabels);
  const ml = Object.keys(labels)
    .sort()
    .map((k) => `${k}: ${String(labels[k])},`)
    .join('');
  const me = (Array.isArray(sel.matchExpressions) ? sel.matchExpressions : [])
    .map((e) => {
      const r = rec(e);
      const values = Array.isArray(r.values) ? r.values.join(' ') : '';
      return `LabelSelectorRequirement{Key:${String(r.key)},Operator:${String(r.operator)},Values:[${values}],},`;
    })
    .join('');
  return `&LabelSelector{MatchLabels:map[string]string{${ml}},MatchExpressions:[]LabelSelectorRequirement{${me}},}`;
}

/**
 * getExpectedScale: the sum of the pods' controllers' scales. A pod with no controller is
 * unmanaged (named in `unmanaged`); one whose controller is not found fails the count.
 */
function expectedScale(cluster: ControllerHost, pods: KubeObject[], unmanaged: string[]): number {
  const scales = new Map<string, number>();
  for (const p of pods) {
    const ref = controllerOf(p);
    if (!ref) {
      unmanaged.push(p.metadata.name!);
      continue;
    }
    if (scales.has(ref.uid)) continue;
    const found = controllerScale(cluster, ref, p.metadata.namespace!);
    if (!found) throw new Error(`found no controllers for pod ${JSON.stringify(p.metadata.name)}`);
    scales.set(found.uid, found.scale);
  }
  return [...scales.values()].reduce((a, b) => a + b, 0);
}

/** getExpectedPodCount: [expectedCount, desiredHealthy]. */
function expectedPodCount(
  cluster: ControllerHost,
  pdb: KubeObject,
  pods: KubeObject[],
  unmanaged: string[],
): [number, number] {
  const spec = rec(pdb.spec);
  if (spec.maxUnavailable !== undefined) {
    const expected = expectedScale(cluster, pods, unmanaged);
    const max = scaledValueFromIntOrPercent(spec.maxUnavailable, expected, true);
    return [expected, Math.max(0, expected - max)];
  }
  if (typeof spec.minAvailable === 'number') return [pods.length, spec.minAvailable];
  if (typeof spec.minAvailable === 'string') {
    const expected = expectedScale(cluster, pods, unmanaged);
    return [expected, scaledValueFromIntOrPercent(spec.minAvailable, expected, true)];
  }
  return [0, 0];
}

/** metav1 SetStatusCondition for DisruptionAllowed (lastTransitionTime moves with the status). */
function setDisruptionAllowed(status: Obj, now: string, ok: boolean, reason: string, message = '') {
  const conds = Array.isArray(status.conditions) ? (status.conditions as Obj[]) : [];
  const old = conds.find((c) => c.type === 'DisruptionAllowed');
  const want = ok ? 'True' : 'False';
  const cond = {
    type: 'DisruptionAllowed',
    status: want,
    ...(status.observedGeneration ? { observedGeneration: status.observedGeneration } : {}),
    lastTransitionTime: old && old.status === want ? old.lastTransitionTime : now,
    reason,
    message,
  };
  status.conditions = old ? conds.map((c) => (c === old ? cond : c)) : [...conds, cond];
}

/** pdbhelper.UpdateDisruptionAllowedCondition. */
export function updateDisruptionAllowedCondition(status: Obj, now: string): void {
  const ok = Number(status.disruptionsAllowed ?? 0) > 0;
  setDisruptionAllowed(status, now, ok, ok ? 'SufficientPods' : 'InsufficientPods');
}

export function startDisruptionController(cluster: ControllerHost): () => void {
  const q = new WorkQueue('disruption', cluster.clock, (key) => sync(key));

  function writeStatus(pdb: KubeObject, status: Obj): void {
    const next = clone(pdb);
    next.status = status;
    try {
      cluster.update(next, { subresource: 'status', fieldManager: 'kube-controller-manager' });
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
      if (err.code === 409) q.add(`${pdb.metadata.namespace}/${pdb.metadata.name}`);
    }
  }

  function sync(key: string): void {
    const [namespace, name] = key.split('/');
    const pdb = cluster.peek(PDB, { namespace, name });
    if (!pdb || pdb.metadata.deletionTimestamp) return;
    const pods = podsOfBudget(cluster, pdb);
    if (!pods.length)
      cluster.recordEvent(pdb, 'Normal', 'NoPods', 'No matching pods found', SOURCE);
    const old = rec(pdb.status);
    let expected: number;
    let desired: number;
    const unmanaged: string[] = [];
    try {
      [expected, desired] = expectedPodCount(cluster, pdb, pods, unmanaged);
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      cluster.recordEvent(
        pdb,
        'Warning',
        'CalculateExpectedPodCountFailed',
        `Failed to calculate the number of expected pods: ${msg}`,
        SOURCE,
      );
      // failSafe: no disruptions until the budget can be computed.
      const status = { ...clone(old), disruptionsAllowed: 0 };
      setDisruptionAllowed(status, cluster.now(), false, 'SyncFailed', msg);
      if (!deepEqual(status, old)) writeStatus(pdb, status);
      return;
    }
    if (unmanaged.length)
      cluster.recordEvent(
        pdb,
        'Warning',
        'UnmanagedPods',
        `Pods selected by this PodDisruptionBudget (selector: ${selectorString(rec(pdb.spec).selector)}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.`,
        SOURCE,
      );
    // buildDisruptedPodMap: evicted pods not deleted yet count as gone for DELETION_TIMEOUT_MS.
    const now = cluster.clock.now();
    const disrupted: Record<string, string> = {};
    let recheck: number | undefined;
    for (const p of pods) {
      const at = rec(old.disruptedPods)[p.metadata.name!];
      if (p.metadata.deletionTimestamp || typeof at !== 'string') continue;
      const expires = Date.parse(at) + DELETION_TIMEOUT_MS;
      if (expires < now) {
        cluster.recordEvent(
          p,
          'Warning',
          'NotDeleted',
          `Pod was expected by PDB ${namespace}/${namespace} to be deleted but it wasn't`,
          SOURCE,
        );
        continue;
      }
      disrupted[p.metadata.name!] = at;
      recheck = Math.min(recheck ?? expires, expires);
    }
    const healthy = pods.filter(
      (p) => !p.metadata.deletionTimestamp && !(p.metadata.name! in disrupted) && isPodReady(p),
    ).length;
    const allowed = expected <= 0 ? 0 : Math.max(0, healthy - desired);
    const generation = pdb.metadata.generation ?? 0;
    const status: Obj = {
      ...(generation ? { observedGeneration: generation } : {}),
      ...(Object.keys(disrupted).length ? { disruptedPods: disrupted } : {}),
      disruptionsAllowed: allowed,
      currentHealthy: healthy,
      desiredHealthy: desired,
      expectedPods: expected,
      ...(old.conditions ? { conditions: clone(old.conditions) } : {}),
    };
    updateDisruptionAllowedCondition(status, cluster.now());
    if (!deepEqual(status, old)) writeStatus(pdb, status);
    if (recheck !== undefined) q.addAfter(key, recheck - now);
  }

  /** Every budget of a namespace: any pod or controller change there may move their counts. */
  function enqueueNamespace(ns: string | undefined): void {
    for (const pdb of cluster.scan(PDB, ns))
      q.add(`${pdb.metadata.namespace}/${pdb.metadata.name}`);
  }

  const unsub = cluster.subscribe((c) => {
    const md = c.object.metadata;
    if (c.storageKey === PDB_STORAGE) q.add(`${md.namespace}/${md.name}`);
    else if (c.storageKey === '/pods' || resourceAt(cluster, c.storageKey)?.scale)
      enqueueNamespace(md.namespace);
  });
  enqueueNamespace(undefined);
  return () => {
    unsub();
    q.stop();
  };
}
