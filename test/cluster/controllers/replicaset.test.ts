import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Cluster } from '../../../src/cluster/cluster';
import {
  activePodsOf,
  calculateStatus,
  getPodsToDelete,
  podFromTemplate,
} from '../../../src/cluster/controllers/replicaset';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { VirtualClock } from '../../../src/util/clock';
import { EVENT, POD, RS, flush, newCluster } from '../helpers';

type Obj = Record<string, unknown>;

function replicaSet(status: Obj = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'web-abc', namespace: 'default', uid: 'rs-uid', generation: 2 },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' }, annotations: { note: 'x' } },
        spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
      },
    },
    status,
  };
}

function pod(
  name: string,
  created: string,
  ready: boolean,
  labels: Record<string, string> = { app: 'web' },
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', creationTimestamp: created, labels },
    status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

test('a pod from the template is generated from the ReplicaSet’s name and controlled by it', () => {
  const rs = replicaSet();
  const p = podFromTemplate(rs);
  assert.equal(p.metadata.generateName, 'web-abc-');
  assert.equal(p.metadata.namespace, 'default');
  assert.deepEqual(p.metadata.labels, { app: 'web' });
  assert.deepEqual(p.metadata.annotations, { note: 'x' });
  assert.equal(p.metadata.ownerReferences?.[0].uid, 'rs-uid');
  assert.equal(p.metadata.ownerReferences?.[0].controller, true);
  // A copy: the pod does not share the template's objects.
  (p.spec as Obj).containers = [];
  const tmpl = (rs.spec as Obj).template as Obj;
  assert.equal(((tmpl.spec as Obj).containers as unknown[]).length, 1);
});

test('pods to delete: not-ready ones first, then the newest', () => {
  const pods = [
    pod('old-ready', '2026-01-01T00:00:00Z', true),
    pod('new-ready', '2026-01-03T00:00:00Z', true),
    pod('old-unready', '2026-01-01T00:00:00Z', false),
    pod('mid-ready', '2026-01-02T00:00:00Z', true),
  ];
  assert.deepEqual(
    getPodsToDelete(pods, 2).map((p) => p.metadata.name),
    ['old-unready', 'new-ready'],
  );
  assert.deepEqual(getPodsToDelete(pods, 0), []);
});

test('status counts the pods, ready ones as available, fully labelled ones, terminating ones', () => {
  const pods = [pod('a', 't', true), pod('b', 't', false), pod('c', 't', true, { app: 'other' })];
  const status = calculateStatus(replicaSet(), pods, undefined, 'now', 1);
  assert.deepEqual(status, {
    replicas: 3,
    fullyLabeledReplicas: 2,
    readyReplicas: 2,
    availableReplicas: 2,
    observedGeneration: 2,
    terminatingReplicas: 1,
  });
  const none = calculateStatus(replicaSet(), [], undefined, 'now');
  assert.deepEqual(
    none,
    { replicas: 0, observedGeneration: 2, terminatingReplicas: 0 },
    'zero counts are omitted, but terminatingReplicas is a pointer: 0 is written',
  );
});

test('a create failure sets ReplicaFailure once and keeps it until creates succeed', () => {
  const first = calculateStatus(replicaSet(), [], 'pods "web-abc-1" is forbidden', 't1');
  const cond = (first.conditions as Obj[])[0];
  assert.deepEqual(cond, {
    type: 'ReplicaFailure',
    status: 'True',
    lastTransitionTime: 't1',
    reason: 'FailedCreate',
    message: 'pods "web-abc-1" is forbidden',
  });
  const retry = calculateStatus(replicaSet(first), [], 'pods "web-abc-2" is forbidden', 't2');
  assert.deepEqual(retry.conditions, first.conditions);
  const fixed = calculateStatus(replicaSet(retry), [], undefined, 't3');
  assert.equal(fixed.conditions, undefined);
});

test('the active pods are those the ReplicaSet controls and that are not being deleted', () => {
  const cluster = new Cluster({ clock: new VirtualClock(0) });
  const rs = cluster.create(replicaSet());
  const owned = podFromTemplate(rs);
  const mine = cluster.create({ ...owned, spec: { containers: [{ name: 'a', image: 'i' }] } });
  cluster.create({
    ...POD,
    metadata: { name: 'stranger', namespace: 'default', labels: { app: 'web' } },
    spec: { containers: [{ name: 'a', image: 'i' }] },
  });
  const leaving = cluster.create({
    ...owned,
    metadata: { ...owned.metadata, finalizers: ['example.com/hold'] },
    spec: { containers: [{ name: 'a', image: 'i' }] },
  });
  cluster.delete(POD, { namespace: 'default', name: leaving.metadata.name! });
  assert.deepEqual(
    activePodsOf(cluster, cluster.get(RS, { namespace: 'default', name: 'web-abc' })).map(
      (p) => p.metadata.name,
    ),
    [mine.metadata.name],
  );
  cluster.close();
});

test('a ReplicationController gets its pods, events from replication-controller and status without terminatingReplicas', async () => {
  const { cluster, clock } = newCluster();
  const RC = { apiVersion: 'v1', kind: 'ReplicationController' };
  const rc = cluster.create({
    ...RC,
    metadata: { name: 'rc', namespace: 'default' },
    spec: {
      replicas: 2,
      selector: { app: 'rc' },
      template: {
        metadata: { labels: { app: 'rc' } },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      },
    },
  });
  await flush(clock);
  const owned = cluster
    .list(POD, { namespace: 'default' })
    .items.filter((p) => p.metadata.ownerReferences?.[0]?.uid === rc.metadata.uid);
  assert.equal(owned.length, 2);
  assert.deepEqual(
    owned.map((p) => [
      p.metadata.ownerReferences![0].apiVersion,
      p.metadata.ownerReferences![0].kind,
    ]),
    [
      ['v1', 'ReplicationController'],
      ['v1', 'ReplicationController'],
    ],
  );
  const events = cluster
    .list(EVENT, { namespace: 'default' })
    .items.filter((e) => (e.involvedObject as Obj).name === 'rc');
  assert.ok(events.length >= 2);
  for (const e of events) {
    assert.equal(e.reason, 'SuccessfulCreate');
    assert.equal((e.source as Obj).component, 'replication-controller');
  }
  const status = cluster.get(RC, { namespace: 'default', name: 'rc' }).status as Obj;
  assert.equal(status.replicas, 2);
  assert.equal('terminatingReplicas' in status, false);
  // Scaled down, it deletes the pods it no longer needs.
  cluster.patch(RC, { namespace: 'default', name: 'rc' }, { spec: { replicas: 0 } }, 'merge');
  await flush(clock);
  assert.equal(
    (cluster.get(RC, { namespace: 'default', name: 'rc' }).status as Obj).replicas ?? 0,
    0,
  );
  cluster.close();
});

test('a ReplicaSet adopts an orphan its selector matches and releases a pod relabelled away', async () => {
  const { cluster, clock } = newCluster();
  const podOf = (name: string, app: string): KubeObject => ({
    ...POD,
    metadata: { name, namespace: 'default', labels: { app } },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  });
  cluster.create(podOf('lone', 'r'));
  const rs = cluster.create({
    ...RS,
    metadata: { name: 'r', namespace: 'default' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'r' } },
      template: { metadata: { labels: { app: 'r' } }, spec: podOf('x', 'r').spec },
    },
  });
  await flush(clock);
  const pods = () => [...cluster.scan(POD, 'default')];
  // As kube-controller-manager does (differential controller/replicaset-adopts-orphan-pod): the
  // orphan counts toward the replicas, so no pod is created.
  assert.deepEqual(
    pods().map((p) => [p.metadata.name, p.metadata.ownerReferences?.[0]?.uid]),
    [['lone', rs.metadata.uid]],
  );
  const lone = cluster.get(POD, { namespace: 'default', name: 'lone' });
  const entry = lone.metadata.managedFields?.find((e) => e.manager === 'kube-controller-manager');
  assert.deepEqual(entry?.fieldsV1, {
    'f:metadata': {
      'f:ownerReferences': { '.': {}, [`k:{"uid":"${rs.metadata.uid!}"}`]: {} },
    },
  });
  cluster.update({ ...lone, metadata: { ...lone.metadata, labels: { app: 'elsewhere' } } });
  await flush(clock);
  const after = cluster.get(POD, { namespace: 'default', name: 'lone' });
  assert.equal(after.metadata.ownerReferences, undefined, 'released');
  assert.equal(pods().length, 2, 'a replacement was created');
  cluster.close();
});
