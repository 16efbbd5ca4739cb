import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEPLOY, EVENT, POD, RS, deployment, flush, newCluster } from '../helpers';

type Obj = Record<string, unknown>;

test('a Deployment gets a ReplicaSet named with the pod-template-hash and its pods', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 1000 });
  cluster.create(deployment('web', 2));
  await flush(clock);
  const rss = cluster.list(RS, { namespace: 'default' }).items;
  assert.equal(rss.length, 1);
  const hash = rss[0].metadata.labels!['pod-template-hash'];
  assert.equal(rss[0].metadata.name, `web-${hash}`);
  assert.equal(rss[0].metadata.ownerReferences![0].kind, 'Deployment');
  const pods = cluster.list(POD, { namespace: 'default', labelSelector: 'app=web' }).items;
  assert.equal(pods.length, 2);
  assert.ok(pods.every((p) => (p.status as Obj).phase === 'Pending'));
  cluster.close();
});

test('pods become Running and Ready after the readiness delay, on the injected clock', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 2000 });
  cluster.create(deployment('web', 2));
  await flush(clock);
  await clock.advance(1999);
  assert.equal(
    (cluster.get(DEPLOY, { namespace: 'default', name: 'web' }).status as Obj).readyReplicas,
    undefined,
  );
  await clock.advance(1);
  await flush(clock);
  const pods = cluster.list(POD, { namespace: 'default' }).items;
  assert.ok(pods.every((p) => (p.status as Obj).phase === 'Running'));
  const st = cluster.get(DEPLOY, { namespace: 'default', name: 'web' }).status as {
    readyReplicas: number;
    availableReplicas: number;
    updatedReplicas: number;
    observedGeneration: number;
    conditions: Array<{ type: string; status: string; reason: string }>;
  };
  assert.equal(st.readyReplicas, 2);
  assert.equal(st.availableReplicas, 2);
  assert.equal(st.updatedReplicas, 2);
  assert.equal(st.observedGeneration, 1);
  assert.ok(st.conditions.some((c) => c.type === 'Available' && c.status === 'True'));
  assert.ok(
    st.conditions.some((c) => c.type === 'Progressing' && c.reason === 'NewReplicaSetAvailable'),
  );
  cluster.close();
});

test('scaling down deletes pods; a new template makes a new ReplicaSet and scales the old one to zero', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 10 });
  cluster.create(deployment('web', 3));
  await flush(clock);
  await clock.advance(10);
  let d = cluster.get(DEPLOY, { namespace: 'default', name: 'web' });
  (d.spec as { replicas: number }).replicas = 1;
  cluster.update(d);
  await flush(clock);
  assert.equal(cluster.list(POD, { namespace: 'default' }).items.length, 1);
  d = cluster.get(DEPLOY, { namespace: 'default', name: 'web' });
  (
    (d.spec as Obj).template as { spec: { containers: Array<{ image: string }> } }
  ).spec.containers[0].image = 'nginx:1.28';
  cluster.update(d);
  await flush(clock);
  await clock.advance(10);
  await flush(clock);
  const rss = cluster.list(RS, { namespace: 'default' }).items;
  assert.equal(rss.length, 2);
  const replicas = rss.map((r) => (r.spec as { replicas: number }).replicas).sort();
  assert.deepEqual(replicas, [0, 1]);
  const pods = cluster.list(POD, { namespace: 'default' }).items;
  assert.equal(pods.length, 1);
  assert.equal(
    ((pods[0].spec as Obj).containers as Array<{ image: string }>)[0].image,
    'nginx:1.28',
  );
  assert.equal(
    cluster.get(DEPLOY, { namespace: 'default', name: 'web' }).metadata.annotations![
      'deployment.kubernetes.io/revision'
    ],
    '2',
  );
  cluster.close();
});

test('deleting a Deployment garbage-collects its ReplicaSets and pods', async () => {
  const { cluster, clock } = newCluster();
  cluster.create(deployment('web', 2));
  await flush(clock);
  cluster.delete(DEPLOY, { namespace: 'default', name: 'web' });
  await flush(clock);
  assert.equal(cluster.list(RS, { namespace: 'default' }).items.length, 0);
  assert.equal(cluster.list(POD, { namespace: 'default' }).items.length, 0);
  cluster.close();
});

test('with controllers off nothing creates ReplicaSets', async () => {
  const { cluster, clock } = newCluster({ controllers: false });
  cluster.create(deployment('web', 2));
  await flush(clock);
  assert.equal(cluster.list(RS, { namespace: 'default' }).items.length, 0);
  cluster.close();
});

test('ScalingReplicaSet and SuccessfulCreate events are recorded', async () => {
  const { cluster, clock } = newCluster();
  cluster.create(deployment('web', 1));
  await flush(clock);
  const reasons = cluster.list(EVENT, { namespace: 'default' }).items.map((e) => e.reason);
  assert.ok(reasons.includes('ScalingReplicaSet'));
  assert.ok(reasons.includes('SuccessfulCreate'));
  cluster.close();
});

test('a RollingUpdate surges the new ReplicaSet and drains the old one as new pods become ready', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 1000 });
  cluster.create(deployment('web', 4));
  await flush(clock);
  await clock.advance(1000);
  await flush(clock);
  const d = cluster.get(DEPLOY, { namespace: 'default', name: 'web' });
  (
    (d.spec as Obj).template as { spec: { containers: Array<{ image: string }> } }
  ).spec.containers[0].image = 'nginx:1.28';
  cluster.update(d);
  await flush(clock);
  const sizes = () =>
    cluster
      .list(RS, { namespace: 'default' })
      .items.sort(
        (a, b) =>
          Number(a.metadata.annotations!['deployment.kubernetes.io/revision']) -
          Number(b.metadata.annotations!['deployment.kubernetes.io/revision']),
      )
      .map((r) => (r.spec as { replicas: number }).replicas);
  // maxSurge 25% of 4 = 1 pod over, maxUnavailable 25% = 1: old 4 -> 3 and new up to 2 (five pods,
  // three of them available) until new pods become ready.
  assert.deepEqual(sizes(), [3, 2]);
  for (let i = 0; i < 10; i++) {
    await clock.advance(1000);
    await flush(clock);
  }
  assert.deepEqual(sizes(), [0, 4]);
  const pods = cluster.list(POD, { namespace: 'default' }).items;
  assert.equal(pods.length, 4);
  assert.ok(
    pods.every(
      (p) => ((p.spec as Obj).containers as Array<{ image: string }>)[0].image === 'nginx:1.28',
    ),
  );
  cluster.close();
});

test("a new Deployment's first status write is its revision and Progressing NewReplicaSetCreated; the counts come after, as kube-controller-manager writes them", async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 1000 });
  const seen: Obj[] = [];
  const w = cluster.watch(DEPLOY, { namespace: 'default' }, (ev) => seen.push(ev.object as Obj));
  cluster.create(deployment('web', 0));
  await flush(clock);
  w.stop();
  const [, first, second] = seen as Array<{
    metadata: { annotations?: Record<string, string> };
    status?: { observedGeneration?: number; conditions?: Array<Obj> };
  }>;
  assert.equal(first?.metadata.annotations?.['deployment.kubernetes.io/revision'], '1');
  assert.deepEqual(
    first?.status?.conditions?.map((c) => [c.type, c.status, c.reason]),
    [['Progressing', 'True', 'NewReplicaSetCreated']],
  );
  assert.equal(first?.status?.observedGeneration, undefined);
  assert.equal(second?.status?.observedGeneration, 1);
  assert.deepEqual(
    second?.status?.conditions?.map((c) => [c.type, c.status, c.reason]),
    [
      ['Available', 'True', 'MinimumReplicasAvailable'],
      ['Progressing', 'True', 'NewReplicaSetAvailable'],
    ],
    'the condition changed last comes last',
  );
  cluster.close();
});

test('a paused Deployment says so in Progressing, and resumed says that, with no rollout while paused', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 10 });
  cluster.create(deployment('web', 1));
  await flush(clock);
  let d = cluster.get(DEPLOY, { namespace: 'default', name: 'web' });
  (d.spec as Obj).paused = true;
  cluster.update(d);
  await flush(clock);
  const progressing = () =>
    (
      (cluster.get(DEPLOY, { namespace: 'default', name: 'web' }).status as Obj).conditions as Obj[]
    ).find((c) => c.type === 'Progressing');
  assert.deepEqual(
    [progressing()?.status, progressing()?.reason, progressing()?.message],
    ['Unknown', 'DeploymentPaused', 'Deployment is paused'],
  );
  d = cluster.get(DEPLOY, { namespace: 'default', name: 'web' });
  (d.spec as Obj).paused = false;
  cluster.update(d);
  await flush(clock);
  await clock.advance(10);
  await flush(clock);
  assert.notEqual(progressing()?.reason, 'DeploymentPaused');
  cluster.close();
});

test('a rollout that makes no progress times out at its progress deadline', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 1000 });
  const d = deployment('web', 1);
  (d.spec as Obj).progressDeadlineSeconds = 30;
  // A quota of no pods: the ReplicaSet can create none, so the rollout never progresses.
  cluster.create({
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: 'none', namespace: 'default' },
    spec: { hard: { pods: '0' } },
  });
  await flush(clock);
  cluster.create(d);
  await flush(clock);
  const p0 = (
    (cluster.get(DEPLOY, { namespace: 'default', name: 'web' }).status as Obj).conditions as Obj[]
  ).find((c) => c.type === 'Progressing');
  assert.notEqual(p0?.reason, 'ProgressDeadlineExceeded');
  await clock.advance(31_000);
  await flush(clock);
  await clock.advance(2_000);
  await flush(clock);
  const p = (
    (cluster.get(DEPLOY, { namespace: 'default', name: 'web' }).status as Obj).conditions as Obj[]
  ).find((c) => c.type === 'Progressing');
  assert.equal(p?.reason, 'ProgressDeadlineExceeded');
  cluster.close();
});
