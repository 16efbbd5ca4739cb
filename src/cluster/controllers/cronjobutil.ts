/**
 * The CronJob controller's decisions, as pure functions (pkg/controller/cronjob/utils.go): which
 * scheduled time is due, when to look again, and the Job a scheduled time makes.
 */
import { clone } from '../apimachinery/clone';
import { newControllerRef } from '../apimachinery/controllerref';
import { isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';
import type { CronSchedule } from '../../util/cron';
import { formatRfc3339InZone } from '../../util/cron';
import { rec } from '../apimachinery/unstructured';

export const SCHEDULED_TIMESTAMP_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
/** nextScheduleDelta: a requeue lands 100 ms after the scheduled time, against clock skew. */
export const NEXT_SCHEDULE_DELTA_MS = 100;

/** The missed-schedule count that makes the controller warn (TooManyMissedTimes). */
const MANY_MISSED = 100;

export interface MostRecent {
  earliest: number;
  mostRecent?: number;
  missed: 'none' | 'few' | 'many';
}

/**
 * mostRecentScheduleTime: from the last schedule time (or creation; or, with the deadline, no
 * earlier than now - startingDeadlineSeconds), the latest scheduled time not after now.
 */
export function mostRecentScheduleTime(
  cj: KubeObject,
  now: number,
  schedule: CronSchedule,
  includeDeadline: boolean,
): MostRecent {
  const spec = rec(cj.spec);
  const last = rec(cj.status).lastScheduleTime;
  let earliest = Date.parse(String(last ?? cj.metadata.creationTimestamp));
  if (includeDeadline && typeof spec.startingDeadlineSeconds === 'number')
    earliest = Math.max(earliest, now - spec.startingDeadlineSeconds * 1000);
  const t1 = schedule.next(earliest);
  if (t1 === undefined || now < t1) return { earliest, missed: 'none' };
  const t2 = schedule.next(t1);
  if (t2 === undefined || now < t2) return { earliest, mostRecent: t1, missed: 'none' };
  const between = Math.round((t2 - t1) / 1000);
  if (between < 1) throw new Error('time difference between two schedules is less than 1 second');
  const missedCount = Math.floor((now - t1) / 1000 / between) + 1;
  let mostRecent: number | undefined;
  for (
    let t = schedule.next(t1 + (missedCount - 2) * between * 1000);
    t !== undefined && t <= now;
    t = schedule.next(t)
  )
    mostRecent = t;
  return { earliest, mostRecent, missed: missedCount > MANY_MISSED ? 'many' : 'few' };
}

/** nextScheduleTimeDuration: how long until the next scheduled time (plus the delta). */
export function nextScheduleDelay(
  cj: KubeObject,
  now: number,
  schedule: CronSchedule,
): number | undefined {
  let from: number;
  try {
    const r = mostRecentScheduleTime(cj, now, schedule, false);
    from = r.mostRecent ?? (r.missed === 'none' ? r.earliest : now);
  } catch {
    from = now;
  }
  const next = schedule.next(from);
  return next === undefined ? undefined : next + NEXT_SCHEDULE_DELTA_MS - now;
}

/** getJobName: the CronJob's name and the scheduled time in minutes since the epoch. */
export function jobName(cj: KubeObject, scheduled: number): string {
  return `${cj.metadata.name}-${Math.floor(scheduled / 60_000)}`;
}

/**
 * getJobFromTemplate2: the jobTemplate's labels, annotations (plus the scheduled time, RFC 3339
 * in the CronJob's time zone) and spec, named for the scheduled time, controlled by the CronJob.
 */
export function jobFromCronJob(cj: KubeObject, scheduled: number, zone: string): KubeObject {
  const tmpl = rec(rec(cj.spec).jobTemplate);
  const md = rec(tmpl.metadata);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobName(cj, scheduled),
      namespace: cj.metadata.namespace,
      ...(isObject(md.labels) && Object.keys(md.labels).length
        ? { labels: { ...(md.labels as Record<string, string>) } }
        : {}),
      annotations: {
        ...(md.annotations as Record<string, string>),
        [SCHEDULED_TIMESTAMP_ANNOTATION]: formatRfc3339InZone(scheduled, zone),
      },
      ownerReferences: [newControllerRef(cj, 'batch/v1', 'CronJob')],
    },
    spec: clone(rec(tmpl.spec)),
  };
}

/** byJobStartTime: started before not started, then by start time, then by name. */
export function byStartTime(a: KubeObject, b: KubeObject): number {
  const sa = rec(a.status).startTime;
  const sb = rec(b.status).startTime;
  if (!sa && sb) return 1;
  if (sa && !sb) return -1;
  if (sa === sb) return String(a.metadata.name).localeCompare(String(b.metadata.name));
  return Date.parse(String(sa)) - Date.parse(String(sb));
}
