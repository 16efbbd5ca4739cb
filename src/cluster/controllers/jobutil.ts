/**
 * The Job controller's decisions, as pure functions (kube-controller-manager's pkg/controller/job
 * and job/util): the pod a Job creates, which pods are active, finished or failed, the conditions
 * and their reasons, how many pods a Job wants, and the pod-failure backoff. job.ts reads the
 * cluster, calls these and writes the results.
 */
import { clone } from '../apimachinery/clone';
import { newControllerRef } from '../apimachinery/controllerref';
import type { KubeObject } from '../apimachinery/types';
import { isPodReady } from './replicaset';
import { rec } from '../apimachinery/unstructured';

type Obj = Record<string, unknown>;

export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
/** DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff. */
export const POD_FAILURE_BACKOFF_MS = 10_000;
export const MAX_POD_FAILURE_BACKOFF_MS = 600_000;
/** MaxPodCreateDeletePerSync. */
export const MAX_POD_CREATE_DELETE_PER_SYNC = 500;

export interface JobCondition {
  type: string;
  status: string;
  lastProbeTime: string;
  lastTransitionTime: string;
  reason?: string;
  message?: string;
}

function phaseOf(p: KubeObject): unknown {
  return rec(p.status).phase;
}

export function specOf(job: KubeObject): Obj {
  return rec(job.spec);
}

export function conditionsOf(job: KubeObject): JobCondition[] {
  const c = rec(job.status).conditions;
  return Array.isArray(c) ? (c as JobCondition[]) : [];
}

/** IsJobFinished: a Complete or Failed condition that is True. */
export function isJobFinished(job: KubeObject): boolean {
  return conditionsOf(job).some(
    (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
  );
}

/** The finished condition's type (Complete or Failed), if the Job finished. */
export function finishedType(job: KubeObject): string | undefined {
  return conditionsOf(job).find(
    (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
  )?.type;
}

export function hasTrackingFinalizer(p: KubeObject): boolean {
  return !!p.metadata.finalizers?.includes(JOB_TRACKING_FINALIZER);
}

/** controller.IsPodActive. */
export function isPodActive(p: KubeObject): boolean {
  const phase = phaseOf(p);
  return phase !== 'Succeeded' && phase !== 'Failed' && !p.metadata.deletionTimestamp;
}

/** controller.IsPodTerminating. */
export function isPodTerminating(p: KubeObject): boolean {
  const phase = phaseOf(p);
  return phase !== 'Succeeded' && phase !== 'Failed' && !!p.metadata.deletionTimestamp;
}

/**
 * isPodFailed: Failed, or (unless only failed pods are replaced) deleted before it succeeded —
 * an orphan that never reaches Failed still counts.
 */
export function isPodFailed(p: KubeObject, job: KubeObject): boolean {
  if (phaseOf(p) === 'Failed') return true;
  if (onlyReplaceFailedPods(job)) return false;
  return !!p.metadata.deletionTimestamp && phaseOf(p) !== 'Succeeded';
}

/** onlyReplaceFailedPods: podReplacementPolicy Failed, or a podFailurePolicy. */
export function onlyReplaceFailedPods(job: KubeObject): boolean {
  const spec = specOf(job);
  return spec.podReplacementPolicy === 'Failed' || !!spec.podFailurePolicy;
}

export function isSuspended(job: KubeObject): boolean {
  return specOf(job).suspend === true;
}

/** newCondition. */
export function newCondition(
  type: string,
  status: string,
  reason: string,
  message: string,
  now: string,
): JobCondition {
  return {
    type,
    status,
    lastProbeTime: now,
    lastTransitionTime: now,
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
  };
}

/**
 * ensureJobConditionStatus: sets the condition (a new transition time when status, reason or
 * message change); a False condition that does not exist is not added. Returns whether it changed.
 */
export function ensureCondition(
  list: JobCondition[],
  type: string,
  status: string,
  reason: string,
  message: string,
  now: string,
): boolean {
  const i = list.findIndex((c) => c.type === type);
  if (i >= 0) {
    const c = list[i];
    if (c.status === status && (c.reason ?? '') === reason && (c.message ?? '') === message)
      return false;
    list[i] = newCondition(type, status, reason, message, now);
    return true;
  }
  if (status === 'False') return false;
  list.push(newCondition(type, status, reason, message, now));
  return true;
}

/**
 * The pod manageJob creates (GetPodFromTemplate): named from the Job, the template's labels,
 * annotations and finalizers plus the tracking finalizer that keeps a finished pod until the Job
 * has counted it, controlled by the Job.
 */
export function podFromJob(job: KubeObject): KubeObject {
  const tmpl = rec(specOf(job).template);
  const md = rec(tmpl.metadata);
  const finalizers = Array.isArray(md.finalizers) ? [...(md.finalizers as string[])] : [];
  if (!finalizers.includes(JOB_TRACKING_FINALIZER)) finalizers.push(JOB_TRACKING_FINALIZER);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${job.metadata.name}-`,
      namespace: job.metadata.namespace,
      ...(md.labels ? { labels: { ...(md.labels as Record<string, string>) } } : {}),
      ...(md.annotations ? { annotations: { ...(md.annotations as Record<string, string>) } } : {}),
      finalizers,
      ownerReferences: [newControllerRef(job, 'batch/v1', 'Job')],
    },
    spec: clone(rec(tmpl.spec)),
  };
}

/**
 * How many pods should be active: with completions, the remaining ones up to parallelism;
 * without, parallelism until one pod succeeded, then whatever still runs.
 */
export function wantActive(job: KubeObject, active: number, succeeded: number): number {
  const spec = specOf(job);
  const parallelism = typeof spec.parallelism === 'number' ? spec.parallelism : 1;
  if (typeof spec.completions !== 'number') return succeeded > 0 ? active : parallelism;
  return Math.max(0, Math.min(spec.completions - succeeded, parallelism));
}

/** Whether the Job reached its completions (or, without completions, a pod succeeded) with nothing active. */
export function isComplete(job: KubeObject, succeeded: number, active: number): boolean {
  const completions = specOf(job).completions;
  if (typeof completions !== 'number') return succeeded > 0 && active === 0;
  return succeeded >= completions && active === 0;
}

/**
 * pastBackoffLimitOnFailure: with restartPolicy OnFailure the kubelet restarts failed containers
 * in place, so their restart counts (of running and pending pods) are the failures.
 */
export function pastBackoffLimitOnFailure(job: KubeObject, pods: KubeObject[]): boolean {
  if (rec(rec(specOf(job).template).spec).restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const p of pods) {
    const phase = phaseOf(p);
    if (phase !== 'Running' && phase !== 'Pending') continue;
    for (const list of ['initContainerStatuses', 'containerStatuses']) {
      const statuses = rec(p.status)[list];
      if (Array.isArray(statuses))
        for (const s of statuses) restarts += Number(rec(s).restartCount ?? 0);
    }
  }
  const limit = Number(specOf(job).backoffLimit ?? 6);
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

/**
 * getFinishedTime: when a pod finished, from its containers' terminated state, else the Ready
 * condition turning False, else its deletion, else its creation.
 */
export function finishedTime(p: KubeObject): number {
  let latest: number | undefined;
  const statuses = rec(p.status).containerStatuses;
  if (Array.isArray(statuses))
    for (const s of statuses) {
      const at = rec(rec(rec(s).state).terminated).finishedAt;
      if (typeof at !== 'string') return fallbackFinishedTime(p);
      latest = Math.max(latest ?? 0, Date.parse(at));
    }
  return latest ?? fallbackFinishedTime(p);
}

function fallbackFinishedTime(p: KubeObject): number {
  const conds = rec(p.status).conditions;
  const ready = Array.isArray(conds)
    ? (conds as Obj[]).find((c) => c.type === 'Ready' && c.status === 'False')
    : undefined;
  const at =
    ready?.lastTransitionTime ?? p.metadata.deletionTimestamp ?? p.metadata.creationTimestamp;
  return Date.parse(String(at));
}

/** The pod-failure backoff of a Job: failures since the last success, and when the last one was. */
export interface BackoffRecord {
  failuresAfterLastSuccess: number;
  lastFailureTime?: number;
}

/** newBackoffRecord: the record after the newly succeeded and failed pods. */
export function nextBackoffRecord(
  old: BackoffRecord,
  succeeded: KubeObject[],
  failed: KubeObject[],
): BackoffRecord {
  const failedTimes = failed.map(finishedTime).sort((a, b) => a - b);
  if (!succeeded.length) {
    if (!failedTimes.length) return old;
    return {
      failuresAfterLastSuccess: old.failuresAfterLastSuccess + failedTimes.length,
      lastFailureTime: failedTimes[failedTimes.length - 1],
    };
  }
  const lastSuccess = Math.max(...succeeded.map(finishedTime));
  const after = failedTimes.filter((t) => t > lastSuccess);
  return after.length
    ? { failuresAfterLastSuccess: after.length, lastFailureTime: after[after.length - 1] }
    : { failuresAfterLastSuccess: 0 };
}

/** getRemainingTimeForFailuresCount: 10 s doubling per failure up to 10 min, from the last failure. */
export function backoffRemainingMs(record: BackoffRecord, now: number): number {
  if (!record.failuresAfterLastSuccess || record.lastFailureTime === undefined) return 0;
  let backoff = POD_FAILURE_BACKOFF_MS;
  for (let i = 1; i < record.failuresAfterLastSuccess; i++) {
    backoff *= 2;
    if (backoff >= MAX_POD_FAILURE_BACKOFF_MS) {
      backoff = MAX_POD_FAILURE_BACKOFF_MS;
      break;
    }
  }
  const elapsed = now - record.lastFailureTime;
  return backoff < elapsed ? 0 : backoff - elapsed;
}

/** countReadyPods. */
export function countReady(pods: KubeObject[]): number {
  return pods.filter(isPodReady).length;
}

/**
 * activePodsForRemoval for a NonIndexed Job (controller.ActivePods order): unscheduled before
 * scheduled, pending before running, not ready before ready, then the newest first.
 */
export function activePodsForRemoval(pods: KubeObject[], count: number): KubeObject[] {
  const rank = (p: KubeObject): number[] => {
    const phase = phaseOf(p);
    return [
      rec(p.spec).nodeName ? 1 : 0,
      phase === 'Pending' ? 0 : phase === 'Running' ? 2 : 1,
      isPodReady(p) ? 1 : 0,
    ];
  };
  return [...pods]
    .sort((a, b) => {
      const ra = rank(a);
      const rb = rank(b);
      for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return ra[i] - rb[i];
      return String(b.metadata.creationTimestamp).localeCompare(
        String(a.metadata.creationTimestamp),
      );
    })
    .slice(0, count);
}
