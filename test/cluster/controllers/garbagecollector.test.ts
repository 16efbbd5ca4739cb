import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isNotFound } from '../../../src/cluster/apimachinery/errors';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { CM, flush, newCluster } from '../helpers';

function owner(cluster: ReturnType<typeof newCluster>['cluster'], name: string): KubeObject {
  return cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
}
function child(
  cluster: ReturnType<typeof newCluster>['cluster'],
  name: string,
  o: KubeObject,
  block = false,
): KubeObject {
  return cluster.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      ownerReferences: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: o.metadata.name!,
          uid: o.metadata.uid!,
          controller: true,
          blockOwnerDeletion: block,
        },
      ],
    },
  });
}

test('background deletion: dependents of a deleted owner are collected', async () => {
  const { cluster, clock } = newCluster();
  const o = owner(cluster, 'owner');
  child(cluster, 'kid', o);
  cluster.delete(CM, { namespace: 'default', name: 'owner' });
  await flush(clock);
  assert.throws(() => cluster.get(CM, { namespace: 'default', name: 'kid' }), isNotFound);
  cluster.close();
});

test('foreground deletion: the owner waits with foregroundDeletion until blocking dependents are gone', async () => {
  const { cluster, clock } = newCluster();
  const o = owner(cluster, 'owner');
  const k = child(cluster, 'kid', o, true);
  // A finalizer on the child holds the owner.
  k.metadata.finalizers = ['example.com/hold'];
  cluster.update(k);
  const d = cluster.delete(
    CM,
    { namespace: 'default', name: 'owner' },
    { propagationPolicy: 'Foreground' },
  );
  assert.deepEqual(d.metadata.finalizers, ['foregroundDeletion']);
  await flush(clock);
  assert.ok(cluster.get(CM, { namespace: 'default', name: 'owner' }).metadata.deletionTimestamp);
  const kid = cluster.get(CM, { namespace: 'default', name: 'kid' });
  assert.ok(kid.metadata.deletionTimestamp);
  kid.metadata.finalizers = [];
  cluster.update(kid);
  await flush(clock);
  assert.throws(() => cluster.get(CM, { namespace: 'default', name: 'owner' }), isNotFound);
  cluster.close();
});

test('orphan deletion: dependents lose the owner reference and stay', async () => {
  const { cluster, clock } = newCluster();
  const o = owner(cluster, 'owner');
  child(cluster, 'kid', o);
  cluster.delete(CM, { namespace: 'default', name: 'owner' }, { propagationPolicy: 'Orphan' });
  await flush(clock);
  assert.throws(() => cluster.get(CM, { namespace: 'default', name: 'owner' }), isNotFound);
  assert.equal(
    cluster.get(CM, { namespace: 'default', name: 'kid' }).metadata.ownerReferences,
    undefined,
  );
  cluster.close();
});

test('a dependent with another live owner only loses the reference to the deleted one', async () => {
  const { cluster, clock } = newCluster();
  const a = owner(cluster, 'a');
  const b = owner(cluster, 'b');
  cluster.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'kid',
      ownerReferences: [
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'a', uid: a.metadata.uid! },
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'b', uid: b.metadata.uid! },
      ],
    },
  });
  cluster.delete(CM, { namespace: 'default', name: 'a' });
  await flush(clock);
  assert.deepEqual(
    cluster
      .get(CM, { namespace: 'default', name: 'kid' })
      .metadata.ownerReferences!.map((r) => r.name),
    ['b'],
  );
  cluster.close();
});

test('a v1 ReplicationController deleted without a policy orphans its dependents (its default), unless told otherwise', async () => {
  const { cluster, clock } = newCluster();
  const RC = { apiVersion: 'v1', kind: 'ReplicationController' };
  const rc = (name: string) =>
    cluster.create({
      ...RC,
      metadata: { name, namespace: 'default' },
      spec: {
        replicas: 0,
        selector: { app: name },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: 'c', image: 'x' }] },
        },
      },
    });
  const kidOf = (o: KubeObject, name: string) =>
    cluster.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name,
        namespace: 'default',
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'ReplicationController',
            name: o.metadata.name!,
            uid: o.metadata.uid!,
          },
        ],
      },
    });
  kidOf(rc('a'), 'kid-a');
  kidOf(rc('b'), 'kid-b');
  // rcStrategy.DefaultGarbageCollectionPolicy: OrphanDependents, as the orphan finalizer.
  const a = cluster.delete(RC, { namespace: 'default', name: 'a' });
  assert.deepEqual(a.metadata.finalizers, ['orphan']);
  assert.ok(a.metadata.deletionTimestamp);
  cluster.delete(RC, { namespace: 'default', name: 'b' }, { orphanDependents: false });
  await flush(clock);
  assert.throws(() => cluster.get(RC, { namespace: 'default', name: 'a' }), isNotFound);
  assert.equal(
    cluster.get(CM, { namespace: 'default', name: 'kid-a' }).metadata.ownerReferences,
    undefined,
  );
  assert.throws(() => cluster.get(CM, { namespace: 'default', name: 'kid-b' }), isNotFound);
  cluster.close();
});
