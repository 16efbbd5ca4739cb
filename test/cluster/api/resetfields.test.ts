import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resetFields, resetPaths } from '../../../src/cluster/api/resetfields';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { DEPLOY, POD, WIDGET, deployment, newCluster, widget, widgetCrd } from '../helpers';

test('the reset fields are the strategies’ own declarations of the pinned release', () => {
  assert.deepEqual(resetPaths('apps', 'Deployment', 'status', 'apps/v1'), [
    ['spec'],
    ['metadata', 'labels'],
  ]);
  assert.deepEqual(resetPaths('apps', 'Deployment', '', 'apps/v1'), [['status']]);
  assert.deepEqual(resetPaths('', 'Pod', 'status', 'v1'), [
    ['spec'],
    ['metadata', 'deletionTimestamp'],
    ['metadata', 'ownerReferences'],
  ]);
  assert.equal(resetPaths('', 'ConfigMap', '', 'v1'), undefined, 'no strategy declares any');
});

test('resetting puts the old value back, or removes what the old object lacked', () => {
  const next = { spec: { a: 2 }, metadata: { labels: { x: 'new' }, name: 'n' }, extra: 1 };
  const old = { spec: { a: 1 }, metadata: { name: 'n' } };
  resetFields(next, old, [['spec'], ['metadata', 'labels'], ['status', 'conditions']]);
  assert.deepEqual(next, { spec: { a: 1 }, metadata: { name: 'n' }, extra: 1 });
});

test('a Deployment status write keeps a new annotation and drops a new label and spec change', () => {
  const { cluster } = newCluster({ controllers: false });
  const created = cluster.create(deployment('web', 1));
  const sent = structuredClone(created);
  sent.metadata.annotations = { note: 'from the status writer' };
  sent.metadata.labels = { tier: 'front' };
  (sent.spec as { replicas: number }).replicas = 5;
  sent.status = { observedGeneration: 1, replicas: 1 };
  const got = cluster.update(sent, { subresource: 'status' });
  assert.deepEqual(got.metadata.annotations, { note: 'from the status writer' });
  assert.equal(got.metadata.labels, undefined);
  assert.equal((got.spec as { replicas: number }).replicas, 1);
  assert.deepEqual(got.status, { observedGeneration: 1, replicas: 1 });
  const stored = cluster.get(DEPLOY, { namespace: 'default', name: 'web' });
  assert.deepEqual(stored.metadata.annotations, { note: 'from the status writer' });
});

test('a Pod status write cannot change its owner references', () => {
  const { cluster } = newCluster({ controllers: false });
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default' },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  };
  const created = cluster.create(pod);
  const sent = structuredClone(created);
  sent.metadata.ownerReferences = [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'owner',
      uid: '00000000-0000-0000-0000-000000000001',
    },
  ];
  sent.metadata.annotations = { kept: 'yes' };
  cluster.update(sent, { subresource: 'status' });
  const stored = cluster.get(POD, { namespace: 'default', name: 'p' });
  assert.equal(stored.metadata.ownerReferences, undefined);
  assert.deepEqual(stored.metadata.annotations, { kept: 'yes' });
});

test('a custom resource status write keeps only the status', async () => {
  const { cluster, clock } = newCluster({ controllers: false });
  cluster.create(widgetCrd({ status: true }));
  await clock.advance(0);
  const created = cluster.create(widget('w'));
  const sent = structuredClone(created);
  sent.metadata.annotations = { dropped: 'yes' };
  sent.status = { ready: true };
  cluster.update(sent, { subresource: 'status' });
  const stored = cluster.get(WIDGET, { namespace: 'default', name: 'w' });
  assert.equal(stored.metadata.annotations, undefined);
  assert.deepEqual(stored.status, { ready: true });
});
