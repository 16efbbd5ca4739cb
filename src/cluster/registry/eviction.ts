/**
 * The `pods/eviction` subresource, after kube-apiserver's EvictionREST (pkg/registry/core/pod/
 * storage/eviction.go): a policy/v1 (or v1beta1) Eviction POSTed for a pod deletes it
 * gracefully unless a PodDisruptionBudget covering it allows no disruption — then 429 with the
 * DisruptionBudget cause. A pod that is not running (Pending, Succeeded, Failed) or already
 * terminating is deleted without asking any budget; a budget whose status lags its generation is
 * a 429 "still being processed"; two budgets over one pod are the 500 Status the apiserver
 * answers. An allowed eviction decrements the budget's disruptionsAllowed, records the pod in
 * its disruptedPods, marks the pod with the DisruptionTarget condition, then deletes it with the
 * Eviction's deleteOptions (and the pod's resourceVersion as a precondition, as there).
 */
import type { Cluster } from '../cluster';
import { clone } from '../apimachinery/clone';
import { deleteOptionsOf } from '../endpoints/decode';
import { PDB, updateDisruptionAllowedCondition } from '../controllers/disruption';
import {
  StatusError,
  newBadRequest,
  newConflict,
  newForbidden,
  newTooManyRequests,
  newUnknownStorageError,
} from '../apimachinery/errors';
import { isObject } from '../apimachinery/patch';
import { isPodReady } from '../controllers/replicaset';
import { fromLabelSelector, matchesLabels } from '../apimachinery/selector';
import type { DeleteOptions, KubeObject } from '../apimachinery/types';

type Obj = Record<string, unknown>;
const POD = { apiVersion: 'v1', kind: 'Pod' };
const rec = (v: unknown): Obj => (isObject(v) ? v : {});
/** The most disruptedPods entries a budget may hold before evictions are refused. */
export const MAX_DISRUPTED_POD_SIZE = 2000;
const VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";

/** The Status an eviction answers (201 with it, even for the 500 of two budgets). */
export interface EvictionStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  code: number;
}

function tooManyRequests(detail: string, retryAfterSeconds: number): StatusError {
  const err = newTooManyRequests(VIOLATION, retryAfterSeconds);
  // StatusDetails' field order: causes before retryAfterSeconds.
  err.status.details = {
    causes: [{ reason: 'DisruptionBudget', message: detail }],
    ...err.status.details,
  };
  return err;
}

/** createTooManyRequestsError: the budget's controller has not caught up with its spec. */
function stillProcessing(pdbName: string): StatusError {
  return tooManyRequests(
    `The disruption budget ${pdbName} is still being processed by the server.`,
    10,
  );
}

/** The Eviction body, checked as the create handler and EvictionREST check it. */
function decodeEviction(ev: KubeObject, name: string, namespace: string): Obj {
  if (
    ev.apiVersion !== undefined &&
    !['policy/v1', 'policy/v1beta1'].includes(String(ev.apiVersion))
  )
    throw newBadRequest(
      `the API version in the data (${String(ev.apiVersion)}) does not match the expected API version (policy/v1)`,
    );
  if (ev.kind !== undefined && ev.kind !== 'Eviction')
    throw newBadRequest(`not a Eviction object: ${String(ev.kind)}`);
  if (ev.metadata.namespace && ev.metadata.namespace !== namespace)
    throw newBadRequest(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  if (ev.metadata.name !== name)
    throw newBadRequest('name in URL does not match name in Eviction object');
  const opts = (ev as Obj).deleteOptions;
  if (opts !== undefined && opts !== null && !isObject(opts))
    throw newBadRequest(
      `json: cannot unmarshal ${typeof opts} into Go struct field Eviction.deleteOptions of type v1.DeleteOptions`,
    );
  return isObject(opts) ? opts : {};
}

/** propagateDryRun: the query's dryRun and the Eviction's must agree when both are given. */
function propagateDryRun(fromBody: Obj, queryDryRun: string[]): DeleteOptions {
  const bodyDryRun = Array.isArray(fromBody.dryRun) ? fromBody.dryRun.map(String) : [];
  if (bodyDryRun.length && queryDryRun.length && bodyDryRun.join() !== queryDryRun.join())
    throw newUnknownStorageError(
      `Non-matching dry-run options in request and content: [${queryDryRun.join(' ')}] and [${bodyDryRun.join(' ')}]`,
    );
  const q = new URLSearchParams();
  for (const d of bodyDryRun.length ? bodyDryRun : queryDryRun) q.append('dryRun', d);
  return deleteOptionsOf(q, { ...fromBody, dryRun: undefined });
}

/** canIgnorePDB: a pod that is not running, or already going, disrupts nothing more. */
function canIgnoreBudget(pod: KubeObject): boolean {
  const phase = rec(pod.status).phase;
  return (
    phase === 'Succeeded' ||
    phase === 'Failed' ||
    phase === 'Pending' ||
    !!pod.metadata.deletionTimestamp
  );
}

/** shouldEnforceResourceVersion: a running pod must not become ready behind the check's back. */
function enforceResourceVersion(pod: KubeObject): boolean {
  const phase = rec(pod.status).phase;
  return !(phase === 'Succeeded' || phase === 'Failed' || pod.metadata.deletionTimestamp);
}

/** The budgets over a pod; an empty or invalid selector covers nothing here. */
function budgetsOf(cluster: Cluster, pod: KubeObject): KubeObject[] {
  return [...cluster.scan(PDB, pod.metadata.namespace)].filter((pdb) => {
    const sel = fromLabelSelector(rec(pdb.spec).selector);
    return sel !== undefined && sel.length > 0 && matchesLabels(sel, pod.metadata.labels);
  });
}

/** checkAndDecrement: takes one disruption from the budget, or refuses. */
function checkAndDecrement(cluster: Cluster, podName: string, pdb: KubeObject, dryRun: boolean) {
  const status = rec(pdb.status);
  const name = pdb.metadata.name!;
  const allowed = Number(status.disruptionsAllowed ?? 0);
  if (Number(status.observedGeneration ?? 0) < (pdb.metadata.generation ?? 0))
    throw stillProcessing(name);
  const gr = { group: 'policy', resource: 'poddisruptionbudget' };
  if (allowed < 0) throw newForbidden(gr, name, 'pdb disruptions allowed is negative');
  if (Object.keys(rec(status.disruptedPods)).length > MAX_DISRUPTED_POD_SIZE)
    throw newForbidden(
      gr,
      name,
      'DisruptedPods map too big - too many evictions not confirmed by PDB controller',
    );
  if (allowed === 0)
    throw tooManyRequests(
      `The disruption budget ${name} needs ${Number(status.desiredHealthy ?? 0)} healthy pods and has ${Number(status.currentHealthy ?? 0)} currently`,
      0,
    );
  if (dryRun) return;
  const next = clone(pdb);
  const nextStatus = rec(next.status);
  nextStatus.disruptionsAllowed = allowed - 1;
  if (allowed - 1 === 0) updateDisruptionAllowedCondition(nextStatus, cluster.now());
  nextStatus.disruptedPods = { ...rec(status.disruptedPods), [podName]: cluster.now() };
  next.status = nextStatus;
  cluster.update(next, { subresource: 'status', fieldManager: 'kube-apiserver' });
}

/**
 * addConditionAndDeletePod: the DisruptionTarget condition on the latest pod (the options'
 * preconditions checked against it first), then the delete.
 */
function markAndDelete(
  cluster: Cluster,
  key: { namespace: string; name: string },
  opts: DeleteOptions,
) {
  let options = opts;
  if (!opts.dryRun) {
    const latest = cluster.get(POD, key);
    const pre = opts.preconditions;
    const gr = { group: '', resource: 'Pod' };
    if (pre?.uid && pre.uid !== latest.metadata.uid)
      throw newConflict(
        gr,
        key.name,
        `the UID in the precondition (${pre.uid}) does not match the UID in record (${latest.metadata.uid}). The object might have been deleted and then recreated`,
      );
    if (pre?.resourceVersion && pre.resourceVersion !== latest.metadata.resourceVersion)
      throw newConflict(
        gr,
        key.name,
        `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${latest.metadata.resourceVersion}). The object might have been modified`,
      );
    const next = clone(latest);
    const status = rec(next.status);
    const conds = Array.isArray(status.conditions) ? (status.conditions as Obj[]) : [];
    const now = cluster.now();
    const old = conds.find((c) => c.type === 'DisruptionTarget');
    const cond = {
      type: 'DisruptionTarget',
      status: 'True',
      lastProbeTime: null,
      lastTransitionTime: old && old.status === 'True' ? old.lastTransitionTime : now,
      reason: 'EvictionByEvictionAPI',
      message: 'Eviction API: evicting',
    };
    status.conditions = old ? conds.map((c) => (c === old ? cond : c)) : [...conds, cond];
    next.status = status;
    const updated = cluster.update(next, { subresource: 'status', fieldManager: 'kube-apiserver' });
    // The update moved the resourceVersion a precondition names.
    if (pre?.resourceVersion)
      options = {
        ...opts,
        preconditions: { ...pre, resourceVersion: updated.metadata.resourceVersion },
      };
  }
  cluster.delete(POD, key, options);
}

/** setPreconditionsResourceVersion: delete only the pod as it was checked. */
function withResourceVersion(opts: DeleteOptions, pod: KubeObject): DeleteOptions {
  return {
    ...opts,
    preconditions: { ...opts.preconditions, resourceVersion: pod.metadata.resourceVersion! },
  };
}

const SUCCESS: EvictionStatus = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Success',
  code: 201,
};

/** POST pods/NAME/eviction: the Status to answer with 201, or a StatusError. */
export function evictPod(
  cluster: Cluster,
  key: { namespace: string; name: string },
  eviction: KubeObject,
  queryDryRun: string[],
): EvictionStatus {
  const original = propagateDryRun(decodeEviction(eviction, key.name, key.namespace), queryDryRun);
  const dryRun = !!original.dryRun;
  const pod = cluster.get(POD, key);
  if (canIgnoreBudget(pod)) {
    const racing = enforceResourceVersion(pod) && !original.preconditions?.resourceVersion;
    markAndDelete(cluster, key, racing ? withResourceVersion(original, pod) : original);
    return SUCCESS;
  }
  const budgets = budgetsOf(cluster, pod);
  if (budgets.length > 1)
    return {
      ...SUCCESS,
      status: 'Failure',
      message:
        'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      code: 500,
    };
  const pdb = budgets[0];
  if (pdb) {
    const status = rec(pdb.status);
    const current = Number(status.currentHealthy ?? 0);
    const desired = Number(status.desiredHealthy ?? 0);
    const unhealthy = !isPodReady(pod);
    if (
      unhealthy &&
      (rec(pdb.spec).unhealthyPodEvictionPolicy === 'AlwaysAllow' ||
        (current >= desired && desired > 0))
    ) {
      // An unready pod is not counted as healthy: deleting it takes nothing from the budget,
      // as long as it is still the pod that was checked.
      try {
        markAndDelete(cluster, key, withResourceVersion(original, pod));
      } catch (err) {
        if (
          err instanceof StatusError &&
          err.code === 409 &&
          !original.preconditions?.resourceVersion
        )
          throw stillProcessing(pdb.metadata.name!);
        throw err;
      }
      return SUCCESS;
    }
    checkAndDecrement(cluster, key.name, pdb, dryRun);
  }
  markAndDelete(cluster, key, original);
  return SUCCESS;
}
