import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Cluster } from '../../../src/cluster/cluster';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { EVENT, flush, newCluster } from '../helpers';

type Obj = Record<string, unknown>;
const CRONJOB = { apiVersion: 'batch/v1', kind: 'CronJob' };
const JOB = { apiVersion: 'batch/v1', kind: 'Job' };
/** The helpers' clock starts at 2026-01-01T00:00:00Z: minute 29453760 since the epoch. */
const MINUTE0 = Date.parse('2026-01-01T00:00:00Z') / 60_000;

function cronJob(spec: Obj = {}, runSeconds?: number): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'c', namespace: 'default' },
    spec: {
      schedule: '*/1 * * * *',
      ...spec,
      jobTemplate: {
        metadata: { labels: { team: 'a' } },
        spec: {
          template: {
            ...(runSeconds !== undefined
              ? {
                  metadata: { annotations: { 'reconcile-studio/run-seconds': String(runSeconds) } },
                }
              : {}),
            spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] },
          },
        },
      },
    },
  };
}

function jobs(cluster: Cluster): KubeObject[] {
  return cluster.list(JOB, { namespace: 'default' }).items;
}

function status(cluster: Cluster): Obj {
  return cluster.get(CRONJOB, { namespace: 'default', name: 'c' }).status as Obj;
}

function events(cluster: Cluster): string[] {
  return cluster
    .list(EVENT, { namespace: 'default' })
    .items.filter((e) => (e.involvedObject as Obj).kind === 'CronJob')
    .map((e) => `${String(e.reason)}: ${String(e.message)}`);
}

test('a CronJob creates the Job of each scheduled minute, named and annotated as the controller names it', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 0, podRunTimeMs: 1000 });
  const cj = cluster.create(cronJob());
  await flush(clock);
  assert.equal(jobs(cluster).length, 0, 'nothing before the first scheduled time');
  await clock.advance(60_000 + 100);
  await flush(clock);
  const [j] = jobs(cluster);
  assert.equal(j.metadata.name, `c-${MINUTE0 + 1}`);
  assert.deepEqual(j.metadata.labels, { team: 'a' });
  assert.equal(
    j.metadata.annotations!['batch.kubernetes.io/cronjob-scheduled-timestamp'],
    '2026-01-01T00:01:00Z',
  );
  assert.equal(j.metadata.ownerReferences![0].uid, cj.metadata.uid);
  assert.equal(j.metadata.ownerReferences![0].kind, 'CronJob');
  let st = status(cluster);
  assert.equal(st.lastScheduleTime, '2026-01-01T00:01:00Z');
  assert.deepEqual(
    (st.active as Obj[]).map((a) => [a.kind, a.name, a.uid]),
    [['Job', j.metadata.name, j.metadata.uid]],
  );
  await clock.advance(2000);
  await flush(clock);
  st = status(cluster);
  assert.equal(st.active, undefined, 'the completed Job left the active list');
  assert.equal(st.lastSuccessfulTime, '2026-01-01T00:01:01Z');
  assert.deepEqual(events(cluster), [
    `SuccessfulCreate: Created job c-${MINUTE0 + 1}`,
    `SawCompletedJob: Saw completed job: c-${MINUTE0 + 1}, condition: Complete`,
  ]);
  cluster.close();
});

test('an hour of schedule on the virtual clock keeps only the successful history limit', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 0, podRunTimeMs: 1000 });
  cluster.create(cronJob({ schedule: '@every 5m', successfulJobsHistoryLimit: 2 }));
  await flush(clock);
  for (let i = 0; i < 12; i++) {
    await clock.advance(5 * 60_000);
    await flush(clock);
  }
  const names = jobs(cluster).map((j) => j.metadata.name);
  // The 01:00 run is due 100 ms after 01:00 (nextScheduleDelta): the last two are 00:50 and 00:55.
  assert.deepEqual(names, [`c-${MINUTE0 + 50}`, `c-${MINUTE0 + 55}`]);
  assert.ok(events(cluster).includes(`SuccessfulDelete: Deleted job c-${MINUTE0 + 5}`));
  cluster.close();
});

test('concurrencyPolicy Forbid skips a run while the last Job is active', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 0 });
  cluster.create(cronJob({ concurrencyPolicy: 'Forbid' }, 90));
  await flush(clock);
  await clock.advance(2 * 60_000 + 100);
  await flush(clock);
  assert.deepEqual(
    jobs(cluster).map((j) => j.metadata.name),
    [`c-${MINUTE0 + 1}`],
  );
  assert.ok(
    events(cluster).includes(
      'JobAlreadyActive: Not starting job because prior execution is running and concurrency policy is Forbid',
    ),
  );
  cluster.close();
});

test('concurrencyPolicy Replace deletes the running Job and starts the new one', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 0 });
  cluster.create(cronJob({ concurrencyPolicy: 'Replace' }, 90));
  await flush(clock);
  await clock.advance(2 * 60_000 + 100);
  await flush(clock);
  assert.deepEqual(
    jobs(cluster).map((j) => j.metadata.name),
    [`c-${MINUTE0 + 2}`],
  );
  assert.deepEqual(
    (status(cluster).active as Obj[]).map((a) => a.name),
    [`c-${MINUTE0 + 2}`],
  );
  assert.ok(events(cluster).includes(`SuccessfulDelete: Deleted job c-${MINUTE0 + 1}`));
  cluster.close();
});

test('startingDeadlineSeconds: a resumed CronJob runs the latest missed time only within the deadline', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 0, podRunTimeMs: 1000 });
  cluster.create(cronJob({ suspend: true, startingDeadlineSeconds: 10 }));
  await flush(clock);
  await clock.advance(5 * 60_000 + 30_000);
  let cj = cluster.get(CRONJOB, { namespace: 'default', name: 'c' });
  (cj.spec as Obj).suspend = false;
  cluster.update(cj);
  await flush(clock);
  // 00:05:00 was 30 s ago, beyond the 10 s deadline: nothing until 00:06.
  assert.equal(jobs(cluster).length, 0);
  await clock.advance(30_000 + 100);
  await flush(clock);
  assert.deepEqual(
    jobs(cluster).map((j) => j.metadata.name),
    [`c-${MINUTE0 + 6}`],
  );
  cj = cluster.get(CRONJOB, { namespace: 'default', name: 'c' });
  assert.equal((cj.status as Obj).lastScheduleTime, '2026-01-01T00:06:00Z');
  cluster.close();
});

test('timeZone: the schedule runs on the zone’s clock and the annotation carries its offset', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 0 });
  cluster.create(cronJob({ schedule: '0 9 * * *', timeZone: 'Asia/Tokyo' }));
  await flush(clock);
  await clock.advance(24 * 3_600_000 + 100);
  await flush(clock);
  const [j] = jobs(cluster);
  // 09:00 in Tokyo is 00:00 UTC: the next day's midnight.
  assert.equal(j.metadata.name, `c-${MINUTE0 + 24 * 60}`);
  assert.equal(
    j.metadata.annotations!['batch.kubernetes.io/cronjob-scheduled-timestamp'],
    '2026-01-02T09:00:00+09:00',
  );
  cluster.close();
});

test('the apiserver refuses a bad schedule or time zone with the cron parser’s message', () => {
  const cluster = new Cluster();
  assert.throws(
    () => cluster.create(cronJob({ schedule: 'every minute' })),
    /spec\.schedule: Invalid value: "every minute": expected exactly 5 fields, found 2: \[every minute\]/,
  );
  assert.throws(
    () => cluster.create(cronJob({ schedule: 'TZ=UTC * * * * *' })),
    /cannot use TZ or CRON_TZ in schedule, use timeZone field instead/,
  );
  assert.throws(
    () => cluster.create(cronJob({ timeZone: 'Mars/Olympus' })),
    /spec\.timeZone: Invalid value: "Mars\/Olympus": unknown time zone Mars\/Olympus/,
  );
  const cj = cluster.create(cronJob());
  const spec = cj.spec as Obj;
  assert.equal(spec.concurrencyPolicy, 'Allow');
  assert.equal(spec.successfulJobsHistoryLimit, 3);
  assert.equal(spec.failedJobsHistoryLimit, 1);
  // The template's metadata, a struct in Go, is {} when absent.
  const bare = cluster.create({
    ...cronJob(),
    metadata: { name: 'bare' },
    spec: {
      schedule: '@daily',
      jobTemplate: {
        spec: {
          template: {
            spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] },
          },
        },
      },
    },
  });
  const tmpl = (bare.spec as Obj).jobTemplate as Obj;
  assert.deepEqual(tmpl.metadata, {});
  assert.deepEqual(((tmpl.spec as Obj).template as Obj).metadata, {});
  cluster.close();
});
