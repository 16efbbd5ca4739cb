/**
 * The Job controller (kube-controller-manager's job-controller, NonIndexed completion): creates
 * pods from the template up to parallelism and the remaining completions, counts them as they
 * finish through the batch.kubernetes.io/job-tracking finalizer (each finished pod goes through
 * status.uncountedTerminatedPods, loses its finalizer, then is counted in succeeded / failed),
 * deletes the active pods of a Job that failed (backoffLimit, activeDeadlineSeconds) or is
 * suspended, backs off pod re-creation after failures (10 s doubling to 10 min), and reports
 * active / ready / terminating, startTime / completionTime and the conditions: the interim
 * SuccessCriteriaMet or FailureTarget first, Complete or Failed once no pod is terminating, with
 * the real reasons, messages and events. Not modelled: Indexed completion, podFailurePolicy,
 * successPolicy, backoffLimitPerIndex, adopting orphan pods that match the selector.
 * The decisions are pure functions in jobutil.ts.
 */
import type { ControllerHost } from './controllerhost';
import { clone } from '../apimachinery/clone';
import { controllerOf } from '../apimachinery/controllerref';
import { StatusError } from '../apimachinery/errors';
import { deepEqual } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';
import type { BackoffRecord, JobCondition } from './jobutil';
import {
  JOB_TRACKING_FINALIZER,
  MAX_POD_CREATE_DELETE_PER_SYNC,
  activePodsForRemoval,
  backoffRemainingMs,
  conditionsOf,
  countReady,
  ensureCondition,
  hasTrackingFinalizer,
  isComplete,
  isJobFinished,
  isPodActive,
  isPodFailed,
  isPodTerminating,
  isSuspended,
  newCondition,
  nextBackoffRecord,
  podFromJob,
  pastBackoffLimitOnFailure,
  specOf,
  wantActive,
} from './jobutil';
import { isPodReady } from './replicaset';
import { WorkQueue } from './workqueue';
import { rec } from '../apimachinery/unstructured';
import { createPod as createOwnedPod } from './podcontrol';

type Obj = Record<string, unknown>;
export const JOB = { apiVersion: 'batch/v1', kind: 'Job' };
const POD = { apiVersion: 'v1', kind: 'Pod' };
const SOURCE = 'job-controller';
const MANAGER = { fieldManager: 'kube-controller-manager' };
const JOB_CONTROLLER_NAME = 'kubernetes.io/job-controller';

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

/** JobStatus as Go serializes it: the int32 counters are omitempty, ready and terminating are pointers. */
function tidy(status: Obj): Obj {
  for (const k of ['active', 'succeeded', 'failed']) if (status[k] === 0) delete status[k];
  if (Array.isArray(status.conditions) && !status.conditions.length) delete status.conditions;
  const u = rec(status.uncountedTerminatedPods);
  for (const k of ['succeeded', 'failed'])
    if (Array.isArray(u[k]) && !(u[k] as unknown[]).length) delete u[k];
  return status;
}

/** One sync's view of a Job (syncJobCtx). */
interface SyncCtx {
  job: KubeObject;
  status: Obj;
  pods: KubeObject[];
  active: number;
  ready: number;
  terminating: number;
  succeeded: number;
  failed: number;
  finished?: JobCondition;
  backoff: BackoffRecord;
}

export function startJobController(cluster: ControllerHost): () => void {
  const q = new WorkQueue(SOURCE, cluster.clock, (key) => sync(key));
  /** The pod-failure backoff of each Job (podBackoffStore). */
  const backoffs = new Map<string, BackoffRecord>();

  /** getPodsForJob: the pods this Job controls, deleted ones included. */
  function podsOf(job: KubeObject): KubeObject[] {
    const out: KubeObject[] = [];
    for (const p of cluster.scan(POD, job.metadata.namespace))
      if (controllerOf(p)?.uid === job.metadata.uid) out.push(p);
    return out;
  }

  function uncounted(status: Obj): { succeeded: string[]; failed: string[] } {
    const u = rec(status.uncountedTerminatedPods);
    return {
      succeeded: Array.isArray(u.succeeded) ? (u.succeeded as string[]) : [],
      failed: Array.isArray(u.failed) ? (u.failed as string[]) : [],
    };
  }

  /** syncJob. */
  function sync(key: string): void {
    const [ns, name] = key.split('/');
    const shared = cluster.peek(JOB, { namespace: ns, name });
    if (!shared) {
      backoffs.delete(key);
      return;
    }
    const managedBy = specOf(shared).managedBy;
    if (typeof managedBy === 'string' && managedBy !== JOB_CONTROLLER_NAME) return;
    if (isJobFinished(shared)) {
      backoffs.delete(key);
      return;
    }
    const job = clone(shared);
    const status = clone(rec(job.status));
    status.uncountedTerminatedPods ??= {};
    const pods = podsOf(job);
    const activePods = pods.filter(isPodActive);
    const u = uncounted(status);
    const fresh = (p: KubeObject) =>
      hasTrackingFinalizer(p) &&
      !u.succeeded.includes(p.metadata.uid!) &&
      !u.failed.includes(p.metadata.uid!);
    const newSucceeded = pods.filter((p) => fresh(p) && rec(p.status).phase === 'Succeeded');
    const newFailed = pods.filter((p) => fresh(p) && isPodFailed(p, job));
    const ctx: SyncCtx = {
      job,
      status,
      pods,
      active: activePods.length,
      ready: countReady(activePods),
      terminating: pods.filter(isPodTerminating).length,
      succeeded: num(status.succeeded) + newSucceeded.length + u.succeeded.length,
      failed: num(status.failed) + newFailed.length + u.failed.length,
      backoff: nextBackoffRecord(
        backoffs.get(key) ?? { failuresAfterLastSuccess: 0 },
        newSucceeded,
        newFailed,
      ),
    };
    if (!status.startTime && !isSuspended(job)) status.startTime = cluster.now();
    const now = cluster.now();
    const conds = conditionsOf({ ...job, status });
    const spec = specOf(job);

    // The end state, in the controller's order: earlier interim conditions, then failures, then success.
    const met = conds.find((c) => c.type === 'SuccessCriteriaMet' && c.status === 'True');
    const target = conds.find((c) => c.type === 'FailureTarget' && c.status === 'True');
    if (met) ctx.finished = met;
    else if (target)
      ctx.finished = newCondition('Failed', 'True', target.reason ?? '', target.message ?? '', now);
    else if (ctx.failed > num(spec.backoffLimit ?? 6) || pastBackoffLimitOnFailure(job, pods))
      ctx.finished = newCondition(
        'FailureTarget',
        'True',
        'BackoffLimitExceeded',
        'Job has reached the specified backoff limit',
        now,
      );
    else if (typeof spec.activeDeadlineSeconds === 'number' && !isSuspended(job)) {
      const left =
        spec.activeDeadlineSeconds * 1000 -
        (cluster.clock.now() - Date.parse(String(status.startTime)));
      if (left <= 0)
        ctx.finished = newCondition(
          'FailureTarget',
          'True',
          'DeadlineExceeded',
          'Job was active longer than specified deadline',
          now,
        );
      else q.addAfter(key, left);
    }

    let suspendChanged = false;
    if (ctx.finished) {
      // A failed Job's active pods go; it is not finished until they are gone.
      const { deleted, deletedReady } = deletePods(job, activePods, false);
      if (deleted !== ctx.active) ctx.finished = undefined;
      ctx.active -= deleted;
      ctx.terminating += deleted;
      ctx.ready -= deletedReady;
    } else {
      if (!job.metadata.deletionTimestamp) manageJob(key, ctx, activePods);
      if (isComplete(job, ctx.succeeded, ctx.active))
        ctx.finished = newCondition(
          'SuccessCriteriaMet',
          'True',
          'CompletionsReached',
          'Reached expected number of succeeded pods',
          now,
        );
      else if (!job.metadata.deletionTimestamp) suspendChanged = syncSuspended(ctx, now);
    }
    const needsUpdate =
      suspendChanged ||
      ctx.active !== num(status.active) ||
      ctx.ready !== status.ready ||
      ctx.terminating !== status.terminating;
    status.active = ctx.active;
    status.ready = ctx.ready;
    status.terminating = ctx.terminating;
    trackStatusAndRemoveFinalizers(key, ctx, needsUpdate);
  }

  /** The JobSuspended condition and the Suspended / Resumed events; whether status changed. */
  function syncSuspended(ctx: SyncCtx, now: string): boolean {
    const conds = [...conditionsOf({ ...ctx.job, status: ctx.status })];
    const suspended = isSuspended(ctx.job);
    const changed = suspended
      ? ensureCondition(conds, 'Suspended', 'True', 'JobSuspended', 'Job suspended', now)
      : ensureCondition(conds, 'Suspended', 'False', 'JobResumed', 'Job resumed', now);
    if (!changed) return false;
    ctx.status.conditions = conds;
    if (suspended) {
      cluster.recordEvent(ctx.job, 'Normal', 'Suspended', 'Job suspended', SOURCE);
      // MutableSchedulingDirectivesForSuspendedJobs: a suspended Job has not started.
      delete ctx.status.startTime;
    } else {
      cluster.recordEvent(ctx.job, 'Normal', 'Resumed', 'Job resumed', SOURCE);
      // activeDeadlineSeconds counts from the resume.
      ctx.status.startTime = now;
    }
    return true;
  }

  /** manageJob: delete pods beyond what the Job wants, or create the missing ones (after the backoff). */
  function manageJob(key: string, ctx: SyncCtx, activePods: KubeObject[]): void {
    const { job } = ctx;
    if (isSuspended(job)) {
      const { deleted, deletedReady } = deletePods(job, activePods, true);
      ctx.active -= deleted;
      ctx.terminating += deleted;
      ctx.ready -= deletedReady;
      return;
    }
    const want = wantActive(job, ctx.active, ctx.succeeded);
    const extra = Math.min(Math.max(0, ctx.active - want), MAX_POD_CREATE_DELETE_PER_SYNC);
    if (extra > 0) {
      const { deleted, deletedReady } = deletePods(
        job,
        activePodsForRemoval(activePods, extra),
        true,
      );
      ctx.active -= deleted;
      ctx.terminating += deleted;
      ctx.ready -= deletedReady;
      return;
    }
    // podReplacementPolicy Failed: a terminating pod is replaced only once it has failed.
    const terminating =
      specOf(job).podReplacementPolicy === 'Failed' || specOf(job).podFailurePolicy
        ? ctx.terminating
        : 0;
    let diff = Math.min(want - terminating - ctx.active, MAX_POD_CREATE_DELETE_PER_SYNC);
    if (diff <= 0) return;
    const wait = backoffRemainingMs(ctx.backoff, cluster.clock.now());
    if (wait > 0) {
      q.addAfter(key, wait);
      return;
    }
    // slowStartBatch one call at a time: creating stops at the first failure.
    for (; diff > 0; diff--) {
      if (!createPod(job)) {
        q.addRateLimited(key);
        return;
      }
      ctx.active++;
    }
  }

  function createPod(job: KubeObject): boolean {
    return !(createOwnedPod(cluster, job, podFromJob(job), SOURCE) instanceof StatusError);
  }

  /**
   * deleteActivePods (a finished Job: finalizers kept, so the pods are counted as failed) or
   * deleteJobPods (too many or suspended: the finalizer goes first, the pod is not counted).
   */
  function deletePods(
    job: KubeObject,
    pods: KubeObject[],
    dropFinalizer: boolean,
  ): { deleted: number; deletedReady: number } {
    let deleted = 0;
    let deletedReady = 0;
    for (const p of pods) {
      try {
        if (dropFinalizer) removeFinalizer(p);
        cluster.delete(POD, { namespace: p.metadata.namespace, name: p.metadata.name! });
        cluster.recordEvent(
          job,
          'Normal',
          'SuccessfulDelete',
          `Deleted pod: ${p.metadata.name}`,
          SOURCE,
        );
      } catch (err) {
        if (!(err instanceof StatusError)) throw err;
        if (err.code !== 404) {
          cluster.recordEvent(
            job,
            'Warning',
            'FailedDelete',
            `Error deleting: ${err.message}`,
            SOURCE,
          );
          continue;
        }
      }
      deleted++;
      if (isPodReady(p)) deletedReady++;
    }
    return { deleted, deletedReady };
  }

  /** removeTrackingFinalizerPatch: the pod without the Job's finalizer; false if that failed. */
  function removeFinalizer(p: KubeObject): boolean {
    const cur = cluster.peek(POD, { namespace: p.metadata.namespace, name: p.metadata.name! });
    if (!cur || cur.metadata.uid !== p.metadata.uid) return true;
    if (!hasTrackingFinalizer(cur)) return true;
    const next = clone(cur);
    next.metadata.finalizers = cur.metadata.finalizers!.filter((f) => f !== JOB_TRACKING_FINALIZER);
    try {
      cluster.update(next, MANAGER);
      return true;
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
      return err.code === 404;
    }
  }

  /**
   * trackJobStatusAndRemoveFinalizers: each finished pod still carrying the finalizer is added to
   * uncountedTerminatedPods (written first), loses its finalizer, and then moves into the counters;
   * the interim condition is written before, the final Complete / Failed once nothing is left
   * uncounted or terminating.
   */
  function trackStatusAndRemoveFinalizers(key: string, ctx: SyncCtx, needsUpdate: boolean): void {
    const { job, status } = ctx;
    let flush = needsUpdate;
    const withFinalizer = new Set(
      ctx.pods.filter(hasTrackingFinalizer).map((p) => p.metadata.uid!),
    );
    if (countUncounted(status, withFinalizer)) flush = true;
    const u = uncounted(status);
    const toRemove: KubeObject[] = [];
    const failedFinish = ctx.finished && ctx.finished.type !== 'SuccessCriteriaMet';
    for (const p of ctx.pods) {
      if (!hasTrackingFinalizer(p)) continue;
      const failed = isPodFailed(p, job);
      const succeeded = rec(p.status).phase === 'Succeeded';
      if (!(job.metadata.deletionTimestamp || ctx.finished || succeeded || failed)) continue;
      toRemove.push(p);
      const uid = p.metadata.uid!;
      if (succeeded && !u.failed.includes(uid)) {
        if (!u.succeeded.includes(uid)) {
          u.succeeded.push(uid);
          flush = true;
        }
      } else if ((failed || failedFinish) && !u.failed.includes(uid)) {
        u.failed.push(uid);
        flush = true;
      }
    }
    status.uncountedTerminatedPods = { succeeded: u.succeeded, failed: u.failed };
    const conds = [...conditionsOf({ ...job, status })];
    let finished = ctx.finished;
    if (finished?.type === 'FailureTarget') {
      conds.push(finished);
      flush = true;
      finished = newCondition(
        'Failed',
        'True',
        finished.reason ?? '',
        finished.message ?? '',
        cluster.now(),
      );
    }
    if (finished?.type === 'SuccessCriteriaMet') {
      if (!conds.some((c) => c.type === 'SuccessCriteriaMet' && c.status === 'True')) {
        conds.push(finished);
        flush = true;
      }
      finished = newCondition(
        'Complete',
        'True',
        finished.reason ?? '',
        finished.message ?? '',
        cluster.now(),
      );
    }
    status.conditions = conds;

    // flushUncountedAndRemoveFinalizers.
    let current: KubeObject | undefined = job;
    if (flush) {
      current = writeStatus(key, current, status);
      if (!current) return;
      backoffs.set(key, ctx.backoff);
      flush = false;
    }
    let removeFailed = false;
    for (const p of toRemove) {
      if (removeFinalizer(p)) withFinalizer.delete(p.metadata.uid!);
      else removeFailed = true;
    }
    if (countUncounted(status, withFinalizer)) flush = true;
    if (removeFailed) {
      if (flush) writeStatus(key, current, status);
      q.addRateLimited(key);
      return;
    }

    // enactJobFinished.
    const left = uncounted(status);
    let done = false;
    if (finished && !left.succeeded.length && !left.failed.length && ctx.terminating === 0) {
      const list = conditionsOf({ ...job, status }).slice();
      ensureCondition(
        list,
        finished.type,
        finished.status,
        finished.reason ?? '',
        finished.message ?? '',
        cluster.now(),
      );
      status.conditions = list;
      if (finished.type === 'Complete')
        status.completionTime = list.find((c) => c.type === 'Complete')!.lastTransitionTime;
      done = true;
      flush = true;
    }
    if (!flush) return;
    if (!writeStatus(key, current, status)) return;
    if (!done || !finished) return;
    if (finished.type === 'Complete') {
      const completions = specOf(job).completions;
      if (typeof completions === 'number' && num(status.succeeded) > completions)
        cluster.recordEvent(
          job,
          'Warning',
          'TooManySucceededPods',
          'Too many succeeded pods running after completion count reached',
          SOURCE,
        );
      cluster.recordEvent(job, 'Normal', 'Completed', 'Job completed', SOURCE);
    } else
      cluster.recordEvent(job, 'Warning', finished.reason ?? '', finished.message ?? '', SOURCE);
  }

  /** cleanUncountedPodsWithoutFinalizers: uids whose finalizer is gone move into the counters. */
  function countUncounted(status: Obj, withFinalizer: Set<string>): boolean {
    const u = uncounted(status);
    const s = u.succeeded.filter((id) => withFinalizer.has(id));
    const f = u.failed.filter((id) => withFinalizer.has(id));
    if (s.length === u.succeeded.length && f.length === u.failed.length) return false;
    status.succeeded = num(status.succeeded) + u.succeeded.length - s.length;
    status.failed = num(status.failed) + u.failed.length - f.length;
    status.uncountedTerminatedPods = { succeeded: s, failed: f };
    return true;
  }

  /** UpdateStatus; the Job as written, or undefined when it changed meanwhile (requeued). */
  function writeStatus(key: string, job: KubeObject, status: Obj): KubeObject | undefined {
    const next = clone(job);
    next.status = tidy(clone(status));
    const stored = cluster.peek(JOB, {
      namespace: job.metadata.namespace,
      name: job.metadata.name!,
    });
    if (stored && deepEqual(stored.status, next.status)) return stored;
    try {
      return cluster.update(next, { subresource: 'status', ...MANAGER });
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 409 || err.code === 404))) throw err;
      if (err.code === 409) q.add(key);
      return undefined;
    }
  }

  const keyOf = (o: KubeObject, name = o.metadata.name) => `${o.metadata.namespace}/${name}`;
  const unsub = cluster.subscribe((c) => {
    if (c.storageKey === 'batch/jobs') {
      if (c.type !== 'DELETED') q.add(keyOf(c.object));
      else backoffs.delete(keyOf(c.object));
      return;
    }
    if (c.storageKey === '/pods') {
      const owner = controllerOf(c.object);
      if (owner?.kind === 'Job' && owner.apiVersion.startsWith('batch/'))
        q.add(keyOf(c.object, owner.name));
    }
  });
  return () => {
    unsub();
    q.stop();
  };
}
