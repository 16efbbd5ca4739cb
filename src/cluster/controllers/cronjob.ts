/**
 * The CronJob controller (kube-controller-manager's cronjob-controller, ControllerV2): on the
 * cluster's clock, creates the Job of each scheduled time (`<cronjob>-<minutes since epoch>`,
 * annotated with batch.kubernetes.io/cronjob-scheduled-timestamp), honours concurrencyPolicy
 * (Allow, Forbid, Replace), startingDeadlineSeconds and suspend, keeps status.active /
 * lastScheduleTime / lastSuccessfulTime, deletes finished Jobs beyond the history limits, and
 * records the real events. Each sync requeues itself for the next scheduled time, so a virtual
 * clock runs an hour of schedule in a moment. The decisions are in cronjobutil.ts.
 */
import type { ControllerHost } from './controllerhost';
import { clone } from '../apimachinery/clone';
import { controllerOf } from '../apimachinery/controllerref';
import { StatusError } from '../apimachinery/errors';
import { deepEqual } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';
import { isKnownTimeZone, parseCronSchedule } from '../../util/cron';
import type { CronSchedule } from '../../util/cron';
import {
  byStartTime,
  jobFromCronJob,
  jobName,
  mostRecentScheduleTime,
  nextScheduleDelay,
} from './cronjobutil';
import { JOB } from './job';
import { conditionsOf, finishedType } from './jobutil';
import { WorkQueue } from './workqueue';
import { rec } from '../apimachinery/unstructured';

const CRONJOB = { apiVersion: 'batch/v1', kind: 'CronJob' };
const SOURCE = 'cronjob-controller';
const MANAGER = { fieldManager: 'kube-controller-manager' };

interface ActiveRef {
  kind: string;
  namespace?: string;
  name: string;
  uid: string;
  apiVersion: string;
  resourceVersion?: string;
}

/** time.RFC1123Z in UTC, as the MissSchedule event prints the scheduled time. */
export function rfc1123z(t: number): string {
  const d = new Date(t);
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = [
    'Jan',
    'Feb',
    'Mar',
    'Apr',
    'May',
    'Jun',
    'Jul',
    'Aug',
    'Sep',
    'Oct',
    'Nov',
    'Dec',
  ];
  const p = (n: number) => String(n).padStart(2, '0');
  return `${days[d.getUTCDay()]}, ${p(d.getUTCDate())} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
}

function rfc3339(t: number): string {
  return new Date(Math.floor(t / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export function startCronJobController(cluster: ControllerHost): () => void {
  const q = new WorkQueue(SOURCE, cluster.clock, (key) => sync(key));

  function activeOf(cj: KubeObject): ActiveRef[] {
    const a = rec(cj.status).active;
    return Array.isArray(a) ? (a as ActiveRef[]) : [];
  }

  function setActive(cj: KubeObject, active: ActiveRef[]): void {
    const status = rec(cj.status);
    if (active.length) status.active = active;
    else delete status.active;
    cj.status = status;
  }

  /** getJobsToBeReconciled: the Jobs this CronJob controls. */
  function jobsOf(cj: KubeObject): KubeObject[] {
    const out: KubeObject[] = [];
    for (const j of cluster.scan(JOB, cj.metadata.namespace)) {
      const ref = controllerOf(j);
      if (ref?.kind === 'CronJob' && ref.uid === cj.metadata.uid) out.push(j);
    }
    return out;
  }

  function sync(key: string): void {
    const [ns, name] = key.split('/');
    const shared = cluster.peek(CRONJOB, { namespace: ns, name });
    if (!shared) return;
    const jobs = jobsOf(shared);
    const cj = clone(shared);
    cj.status = rec(cj.status);
    const cleaned = cleanupFinishedJobs(cj, jobs);
    const { requeueMs, updated } = syncCronJob(cj, jobs);
    if (cleaned || updated) {
      if (!deepEqual(cj.status, shared.status)) {
        try {
          cluster.update(cj, { subresource: 'status', ...MANAGER });
        } catch (err) {
          if (!(err instanceof StatusError && (err.code === 409 || err.code === 404))) throw err;
          if (err.code === 409) q.addRateLimited(key);
          return;
        }
      }
    }
    if (requeueMs !== undefined) q.addAfter(key, requeueMs);
  }

  /** syncCronJob: the active list against the Jobs, then the due scheduled time, if any. */
  function syncCronJob(
    cj: KubeObject,
    jobs: KubeObject[],
  ): { requeueMs?: number; updated: boolean } {
    let updated = false;
    const now = cluster.clock.now();
    const status = rec(cj.status);
    const children = new Set<string>();
    for (const j of jobs) {
      children.add(j.metadata.uid!);
      const found = activeOf(cj).some((a) => a.uid === j.metadata.uid);
      const done = finishedType(j);
      if (!found && !done)
        cluster.recordEvent(
          cj,
          'Warning',
          'UnexpectedJob',
          `Saw a job that the controller did not create or forgot: ${j.metadata.name}`,
          SOURCE,
        );
      else if (done) {
        if (found) {
          setActive(
            cj,
            activeOf(cj).filter((a) => a.uid !== j.metadata.uid),
          );
          cluster.recordEvent(
            cj,
            'Normal',
            'SawCompletedJob',
            `Saw completed job: ${j.metadata.name}, condition: ${done}`,
            SOURCE,
          );
          updated = true;
        }
        const completion = rec(j.status).completionTime;
        if (done === 'Complete' && typeof completion === 'string') {
          const last = status.lastSuccessfulTime;
          if (!last || Date.parse(completion) > Date.parse(String(last))) {
            status.lastSuccessfulTime = completion;
            updated = true;
          }
        }
      }
    }
    // An active Job that no longer exists leaves the list.
    for (const a of activeOf(cj)) {
      if (children.has(a.uid)) continue;
      if (cluster.peek(JOB, { namespace: a.namespace, name: a.name })) continue;
      cluster.recordEvent(cj, 'Normal', 'MissingJob', `Active job went missing: ${a.name}`, SOURCE);
      setActive(
        cj,
        activeOf(cj).filter((x) => x.uid !== a.uid),
      );
      updated = true;
    }
    if (cj.metadata.deletionTimestamp) return { updated };

    const spec = rec(cj.spec);
    const tz = typeof spec.timeZone === 'string' ? spec.timeZone : undefined;
    if (tz !== undefined && !isKnownTimeZone(tz)) {
      cluster.recordEvent(
        cj,
        'Warning',
        'UnknownTimeZone',
        `invalid timeZone: ${JSON.stringify(tz)}: unknown time zone ${tz}`,
        SOURCE,
      );
      return { updated };
    }
    if (spec.suspend === true) return { updated };
    const scheduleText = String(spec.schedule ?? '');
    if (scheduleText.includes('TZ'))
      cluster.recordEvent(
        cj,
        'Warning',
        'UnsupportedSchedule',
        `CRON_TZ or TZ used in schedule ${JSON.stringify(scheduleText)} is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details`,
        SOURCE,
      );
    const zone = tz && tz !== 'Local' ? tz : 'UTC';
    let schedule: CronSchedule;
    try {
      schedule = parseCronSchedule(scheduleText, zone);
    } catch (err) {
      cluster.recordEvent(
        cj,
        'Warning',
        'UnparseableSchedule',
        `unparseable schedule: ${JSON.stringify(scheduleText)} : ${(err as Error).message}`,
        SOURCE,
      );
      return { updated };
    }
    let scheduled: number | undefined;
    try {
      const r = mostRecentScheduleTime(cj, now, schedule, true);
      scheduled = r.mostRecent;
      if (scheduled !== undefined && r.missed === 'many')
        cluster.recordEvent(
          cj,
          'Warning',
          'TooManyMissedTimes',
          'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew',
          SOURCE,
        );
    } catch (err) {
      cluster.recordEvent(
        cj,
        'Warning',
        'InvalidSchedule',
        `invalid schedule: ${scheduleText} : ${(err as Error).message}`,
        SOURCE,
      );
      return { updated };
    }
    const requeueMs = nextScheduleDelay(cj, now, schedule);
    if (scheduled === undefined) return { requeueMs, updated };
    const deadline = spec.startingDeadlineSeconds;
    if (typeof deadline === 'number' && scheduled + deadline * 1000 < now) {
      cluster.recordEvent(
        cj,
        'Warning',
        'MissSchedule',
        `Missed scheduled time to start a job: ${rfc1123z(scheduled)}`,
        SOURCE,
      );
      return { requeueMs, updated };
    }
    const name = jobName(cj, scheduled);
    if (
      activeOf(cj).some((a) => a.name === name && a.namespace === cj.metadata.namespace) ||
      (status.lastScheduleTime && Date.parse(String(status.lastScheduleTime)) === scheduled)
    )
      return { requeueMs, updated };
    if (spec.concurrencyPolicy === 'Forbid' && activeOf(cj).length) {
      cluster.recordEvent(
        cj,
        'Normal',
        'JobAlreadyActive',
        'Not starting job because prior execution is running and concurrency policy is Forbid',
        SOURCE,
      );
      return { requeueMs, updated };
    }
    if (spec.concurrencyPolicy === 'Replace')
      for (const a of activeOf(cj)) {
        const j = cluster.peek(JOB, { namespace: a.namespace, name: a.name });
        if (!j) {
          cluster.recordEvent(
            cj,
            'Warning',
            'FailedGet',
            `Get job: jobs.batch "${a.name}" not found`,
            SOURCE,
          );
          q.addRateLimited(`${cj.metadata.namespace}/${cj.metadata.name}`);
          return { updated };
        }
        if (!deleteJob(cj, j)) return { updated };
        updated = true;
      }

    let created: KubeObject;
    try {
      created = cluster.create(jobFromCronJob(cj, scheduled, zone), MANAGER);
      cluster.recordEvent(cj, 'Normal', 'SuccessfulCreate', `Created job ${name}`, SOURCE);
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
      if (err.code !== 409 || err.status.reason !== 'AlreadyExists') {
        if (!err.message.includes('because it is being terminated'))
          cluster.recordEvent(
            cj,
            'Warning',
            'FailedCreate',
            `Error creating job: ${err.message}`,
            SOURCE,
          );
        q.addRateLimited(`${cj.metadata.namespace}/${cj.metadata.name}`);
        return { updated };
      }
      // Created before (the status write was lost): take it back into the active list if ours.
      const existing = cluster.peek(JOB, { namespace: cj.metadata.namespace, name });
      if (!existing || controllerOf(existing)?.uid !== cj.metadata.uid) return { updated };
      if (activeOf(cj).some((a) => a.uid === existing.metadata.uid)) return { updated };
      created = existing;
    }
    setActive(cj, [
      ...activeOf(cj),
      {
        kind: 'Job',
        namespace: created.metadata.namespace,
        name: created.metadata.name!,
        uid: created.metadata.uid!,
        apiVersion: 'batch/v1',
        resourceVersion: created.metadata.resourceVersion,
      },
    ]);
    rec(cj.status).lastScheduleTime = rfc3339(scheduled);
    return { requeueMs: nextScheduleDelay(cj, now, schedule), updated: true };
  }

  /** cleanupFinishedJobs: the oldest finished Jobs beyond each history limit are deleted. */
  function cleanupFinishedJobs(cj: KubeObject, jobs: KubeObject[]): boolean {
    const spec = rec(cj.spec);
    let updated = false;
    for (const [type, limit] of [
      ['Complete', spec.successfulJobsHistoryLimit],
      ['Failed', spec.failedJobsHistoryLimit],
    ] as const) {
      if (typeof limit !== 'number') continue;
      const finished = jobs.filter((j) => finishedType(j) === type).sort(byStartTime);
      for (const j of finished.slice(0, Math.max(0, finished.length - limit)))
        if (deleteJob(cj, j)) updated = true;
    }
    return updated;
  }

  /** deleteJob: the Job (its pods in the background) and its entry in the active list. */
  function deleteJob(cj: KubeObject, j: KubeObject): boolean {
    try {
      cluster.delete(
        JOB,
        { namespace: j.metadata.namespace, name: j.metadata.name! },
        { propagationPolicy: 'Background' },
      );
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
      cluster.recordEvent(cj, 'Warning', 'FailedDelete', `Deleted job: ${err.message}`, SOURCE);
      return false;
    }
    setActive(
      cj,
      activeOf(cj).filter((a) => a.uid !== j.metadata.uid),
    );
    cluster.recordEvent(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${j.metadata.name}`, SOURCE);
    return true;
  }

  const unsub = cluster.subscribe((c) => {
    if (c.storageKey === 'batch/cronjobs') {
      if (c.type !== 'DELETED') q.add(`${c.object.metadata.namespace}/${c.object.metadata.name}`);
      return;
    }
    if (c.storageKey === 'batch/jobs') {
      const ref = controllerOf(c.object);
      if (ref?.kind !== 'CronJob') return;
      // A Job's own status churn (counters) matters only once it finishes or goes.
      if (
        c.type === 'MODIFIED' &&
        c.old &&
        conditionsOf(c.old).length === conditionsOf(c.object).length
      )
        return;
      q.add(`${c.object.metadata.namespace}/${ref.name}`);
    }
  });
  return () => {
    unsub();
    q.stop();
  };
}
