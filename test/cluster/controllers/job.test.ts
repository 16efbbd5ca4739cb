import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Cluster } from '../../../src/cluster/cluster';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { EVENT, POD, flush, newCluster } from '../helpers';

type Obj = Record<string, unknown>;
const JOB = { apiVersion: 'batch/v1', kind: 'Job' };

function job(
  spec: Obj = {},
  opts: { annotations?: Record<string, string>; restartPolicy?: string } = {},
): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'j', namespace: 'default' },
    spec: {
      ...spec,
      template: {
        metadata: {
          labels: { app: 'j' },
          ...(opts.annotations ? { annotations: opts.annotations } : {}),
        },
        spec: {
          restartPolicy: opts.restartPolicy ?? 'Never',
          containers: [{ name: 'c', image: 'busybox' }],
        },
      },
    },
  };
}

function status(cluster: Cluster): Obj {
  return cluster.get(JOB, { namespace: 'default', name: 'j' }).status as Obj;
}

function conditions(cluster: Cluster): Array<{ type: string; reason?: string; message?: string }> {
  return (status(cluster).conditions ?? []) as Array<{ type: string; reason?: string }>;
}

function jobEvents(cluster: Cluster): string[] {
  return cluster
    .list(EVENT, { namespace: 'default' })
    .items.filter((e) => (e.involvedObject as Obj).kind === 'Job')
    .map((e) => `${String(e.reason)}: ${String(e.message)}`);
}

function pods(cluster: Cluster): KubeObject[] {
  return cluster.list(POD, { namespace: 'default' }).items;
}

test('the apiserver generates a Job’s selector and its template’s job-name and controller-uid labels', () => {
  const cluster = new Cluster();
  const j = cluster.create(job());
  const uid = j.metadata.uid!;
  const spec = j.spec as Obj;
  assert.deepEqual((spec.selector as Obj).matchLabels, {
    'batch.kubernetes.io/controller-uid': uid,
  });
  assert.deepEqual(((spec.template as Obj).metadata as Obj).labels, {
    app: 'j',
    'job-name': 'j',
    'batch.kubernetes.io/job-name': 'j',
    'controller-uid': uid,
    'batch.kubernetes.io/controller-uid': uid,
  });
  // SetDefaults_Job: a Job without labels takes its template's, the generated ones included.
  assert.deepEqual(j.metadata.labels, ((spec.template as Obj).metadata as Obj).labels);
  const labelled = cluster.create({ ...job(), metadata: { name: 'k', labels: { team: 'a' } } });
  assert.deepEqual(labelled.metadata.labels, { team: 'a' });
  assert.equal(spec.completions, 1);
  assert.equal(spec.parallelism, 1);
  assert.equal(spec.backoffLimit, 6);
  assert.equal(spec.completionMode, 'NonIndexed');
  assert.equal(spec.podReplacementPolicy, 'TerminatingOrFailed');
  cluster.close();
});

test('a Job whose pods would restart for ever is refused, as ValidateJobSpec refuses it', () => {
  const cluster = new Cluster();
  assert.throws(
    () => cluster.create(job({}, { restartPolicy: 'Always' })),
    /spec\.template\.spec\.restartPolicy: Required value: valid values: "OnFailure", "Never"/,
  );
  cluster.close();
});

test('a Job’s pod is named from it, labelled, owned, and carries the job-tracking finalizer', async () => {
  const { cluster, clock } = newCluster();
  const j = cluster.create(job());
  await flush(clock);
  const [p] = pods(cluster);
  assert.match(p.metadata.name!, /^j-[a-z0-9]{5}$/);
  assert.equal(p.metadata.labels!['batch.kubernetes.io/controller-uid'], j.metadata.uid);
  assert.equal(p.metadata.labels!['batch.kubernetes.io/job-name'], 'j');
  assert.deepEqual(p.metadata.finalizers, ['batch.kubernetes.io/job-tracking']);
  assert.deepEqual(p.metadata.ownerReferences, [
    {
      apiVersion: 'batch/v1',
      kind: 'Job',
      name: 'j',
      uid: j.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    },
  ]);
  const st = status(cluster);
  assert.equal(st.active, 1);
  assert.equal(st.ready, 0);
  assert.equal(st.terminating, 0);
  assert.deepEqual(st.uncountedTerminatedPods, {});
  assert.equal(st.startTime, '2026-01-01T00:00:00Z');
  assert.deepEqual(jobEvents(cluster), [`SuccessfulCreate: Created pod: ${p.metadata.name}`]);
  cluster.close();
});

test('pods run to completion after the run time; the Job completes once all completions succeeded', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 1000, podRunTimeMs: 4000 });
  cluster.create(job({ completions: 3, parallelism: 2 }));
  await flush(clock);
  assert.equal(pods(cluster).length, 2, 'parallelism pods at once');
  await clock.advance(1000);
  await flush(clock);
  assert.equal(status(cluster).ready, 2);
  await clock.advance(4000);
  await flush(clock);
  // Two succeeded (counted, finalizers gone); one more for the third completion.
  assert.equal(status(cluster).succeeded, 2);
  assert.equal(status(cluster).active, 1);
  const finished = pods(cluster).filter((p) => (p.status as Obj).phase === 'Succeeded');
  assert.equal(finished.length, 2);
  assert.ok(finished.every((p) => !p.metadata.finalizers?.length));
  const term = ((finished[0].status as Obj).containerStatuses as Obj[])[0].state as Obj;
  assert.equal((term.terminated as Obj).exitCode, 0);
  assert.equal((term.terminated as Obj).reason, 'Completed');
  await clock.advance(5000);
  await flush(clock);
  const st = status(cluster);
  assert.equal(st.succeeded, 3);
  assert.equal(st.active, undefined);
  assert.deepEqual(
    conditions(cluster).map((c) => [c.type, c.reason, c.message]),
    [
      ['SuccessCriteriaMet', 'CompletionsReached', 'Reached expected number of succeeded pods'],
      ['Complete', 'CompletionsReached', 'Reached expected number of succeeded pods'],
    ],
  );
  assert.equal(st.completionTime, '2026-01-01T00:00:10Z');
  assert.ok(jobEvents(cluster).includes('Completed: Job completed'));
  cluster.close();
});

test('failed pods are replaced after the pod-failure backoff until backoffLimit, then the Job fails', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 0 });
  cluster.create(
    job(
      { backoffLimit: 1 },
      { annotations: { 'reconcile-studio/run-seconds': '1', 'reconcile-studio/exit-code': '1' } },
    ),
  );
  await flush(clock);
  await clock.advance(1000);
  await flush(clock);
  assert.equal(status(cluster).failed, 1);
  assert.equal(pods(cluster).length, 1, 'no replacement inside the 10 s backoff');
  await clock.advance(9999);
  await flush(clock);
  assert.equal(pods(cluster).length, 1);
  await clock.advance(1);
  await flush(clock);
  assert.equal(pods(cluster).length, 2, 'the replacement after 10 s');
  await clock.advance(1000);
  await flush(clock);
  const st = status(cluster);
  assert.equal(st.failed, 2);
  assert.deepEqual(
    conditions(cluster).map((c) => [c.type, c.reason, c.message]),
    [
      ['FailureTarget', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
      ['Failed', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
    ],
  );
  assert.equal(st.completionTime, undefined);
  assert.ok(
    jobEvents(cluster).includes(
      'BackoffLimitExceeded: Job has reached the specified backoff limit',
    ),
  );
  cluster.close();
});

test('restartPolicy OnFailure: container restarts count against backoffLimit; the failed Job’s pod is deleted', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 0 });
  cluster.create(
    job(
      { backoffLimit: 2 },
      {
        restartPolicy: 'OnFailure',
        annotations: { 'reconcile-studio/run-seconds': '1', 'reconcile-studio/exit-code': '3' },
      },
    ),
  );
  await flush(clock);
  await clock.advance(1000);
  await flush(clock);
  const [p] = pods(cluster);
  const cs = ((p.status as Obj).containerStatuses as Obj[])[0];
  assert.equal(cs.restartCount, 1);
  assert.equal(((cs.lastState as Obj).terminated as Obj).exitCode, 3);
  assert.equal((p.status as Obj).phase, 'Running');
  await clock.advance(1000);
  await flush(clock);
  assert.deepEqual(pods(cluster), [], 'the active pod of a failed Job is deleted');
  assert.equal(status(cluster).failed, 1);
  assert.ok(conditions(cluster).some((c) => c.type === 'Failed'));
  assert.ok(jobEvents(cluster).some((e) => e.startsWith('SuccessfulDelete: Deleted pod: j-')));
  cluster.close();
});

test('activeDeadlineSeconds fails a Job that runs too long, on the cluster clock', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 0, podRunTimeMs: 60_000 });
  cluster.create(job({ activeDeadlineSeconds: 5 }));
  await flush(clock);
  await clock.advance(4999);
  await flush(clock);
  assert.equal(conditions(cluster).length, 0);
  await clock.advance(1);
  await flush(clock);
  assert.deepEqual(
    conditions(cluster).map((c) => [c.type, c.reason]),
    [
      ['FailureTarget', 'DeadlineExceeded'],
      ['Failed', 'DeadlineExceeded'],
    ],
  );
  assert.equal(pods(cluster).length, 0);
  cluster.close();
});

test('suspending a Job deletes its pods and sets Suspended; resuming starts them again', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 0, podRunTimeMs: 60_000 });
  cluster.create(job());
  await flush(clock);
  let j = cluster.get(JOB, { namespace: 'default', name: 'j' });
  (j.spec as Obj).suspend = true;
  cluster.update(j);
  await flush(clock);
  assert.equal(pods(cluster).length, 0);
  assert.deepEqual(
    conditions(cluster).map((c) => [c.type, c.reason]),
    [['Suspended', 'JobSuspended']],
  );
  assert.equal(status(cluster).startTime, undefined);
  j = cluster.get(JOB, { namespace: 'default', name: 'j' });
  (j.spec as Obj).suspend = false;
  cluster.update(j);
  await flush(clock);
  assert.equal(pods(cluster).length, 1);
  assert.deepEqual(
    conditions(cluster).map((c) => [c.type, (c as Obj).status, c.reason]),
    [['Suspended', 'False', 'JobResumed']],
  );
  assert.ok(jobEvents(cluster).includes('Suspended: Job suspended'));
  assert.ok(jobEvents(cluster).includes('Resumed: Job resumed'));
  cluster.close();
});

test('ttlSecondsAfterFinished deletes the finished Job and, foreground, its pods', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 0, podRunTimeMs: 1000 });
  cluster.create(job({ ttlSecondsAfterFinished: 30 }));
  await flush(clock);
  await clock.advance(1000);
  await flush(clock);
  assert.ok(conditions(cluster).some((c) => c.type === 'Complete'));
  await clock.advance(29_999);
  await flush(clock);
  assert.ok(cluster.peek(JOB, { namespace: 'default', name: 'j' }));
  await clock.advance(1);
  await flush(clock);
  assert.equal(cluster.peek(JOB, { namespace: 'default', name: 'j' }), undefined);
  assert.equal(pods(cluster).length, 0);
  cluster.close();
});

test('without the workload controllers a Job’s pods are never created', async () => {
  const { cluster, clock } = newCluster({ controllers: false });
  cluster.create(job());
  await flush(clock);
  await clock.advance(60_000);
  assert.equal(pods(cluster).length, 0);
  assert.deepEqual(status(cluster), {});
  cluster.close();
});
