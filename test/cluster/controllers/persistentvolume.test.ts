import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { EVENT, flush, newCluster } from '../helpers';

type Obj = Record<string, unknown>;
const PVC = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' };
const PV = { apiVersion: 'v1', kind: 'PersistentVolume' };
const SC = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass' };

function claim(name: string, spec: Obj = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'default' },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '2Gi' } },
      ...spec,
    },
  };
}

test('a claim without a class gets the default StorageClass, `standard`, at admission', () => {
  const { cluster } = newCluster();
  const c = cluster.create(claim('data'));
  assert.equal((c.spec as Obj).storageClassName, 'standard');
  assert.equal((c.spec as Obj).volumeMode, 'Filesystem');
  assert.deepEqual(c.status, { phase: 'Pending' });
  // An empty class name is a class ("none"): not defaulted.
  const none = cluster.create(claim('none', { storageClassName: '' }));
  assert.equal((none.spec as Obj).storageClassName, '');
  cluster.close();
});

test('of several default classes the newest wins', async () => {
  const { cluster, clock } = newCluster();
  await clock.advance(1000);
  cluster.create({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {
      name: 'fast',
      annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
    },
    provisioner: 'example.com/fast',
  });
  const c = cluster.create(claim('data'));
  assert.equal((c.spec as Obj).storageClassName, 'fast');
  cluster.close();
});

test('a claim of the standard class is provisioned a volume and both become Bound', async () => {
  const { cluster } = newCluster();
  const c = cluster.create(claim('data'));
  await flush();
  const bound = cluster.get(PVC, { namespace: 'default', name: 'data' });
  const pvName = `pvc-${c.metadata.uid}`;
  assert.equal((bound.spec as Obj).volumeName, pvName);
  assert.deepEqual(bound.status, {
    phase: 'Bound',
    accessModes: ['ReadWriteOnce'],
    capacity: { storage: '2Gi' },
  });
  assert.equal(bound.metadata.annotations?.['pv.kubernetes.io/bind-completed'], 'yes');
  assert.equal(bound.metadata.annotations?.['pv.kubernetes.io/bound-by-controller'], 'yes');
  assert.equal(
    bound.metadata.annotations?.['volume.kubernetes.io/storage-provisioner'],
    'reconcile-studio.io/hostpath',
  );
  const pv = cluster.get(PV, { name: pvName });
  assert.equal((pv.status as Obj).phase, 'Bound');
  assert.equal(((pv.spec as Obj).claimRef as Obj).uid, c.metadata.uid);
  assert.equal((pv.spec as Obj).storageClassName, 'standard');
  const reasons = cluster
    .list(EVENT, { namespace: 'default' })
    .items.filter((e) => (e.involvedObject as Obj).name === 'data')
    .map((e) => e.reason);
  assert.deepEqual(reasons, ['ExternalProvisioning', 'Provisioning', 'ProvisioningSucceeded']);
  cluster.close();
});

test('a claim of a class whose provisioner is not the cluster’s waits for it', async () => {
  const { cluster } = newCluster();
  cluster.create({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'ext' },
    provisioner: 'example.com/ext',
  });
  cluster.create(claim('data', { storageClassName: 'ext' }));
  await flush();
  const c = cluster.get(PVC, { namespace: 'default', name: 'data' });
  assert.equal((c.status as Obj).phase, 'Pending');
  assert.equal(
    c.metadata.annotations?.['volume.kubernetes.io/storage-provisioner'],
    'example.com/ext',
  );
  assert.equal(cluster.list(PV).items.length, 0);
  cluster.close();
});

test('deleting the claim deletes its volume (reclaimPolicy Delete)', async () => {
  const { cluster } = newCluster();
  const c = cluster.create(claim('data'));
  await flush();
  cluster.delete(PVC, { namespace: 'default', name: 'data' });
  await flush();
  assert.equal(
    cluster.list(PV).items.some((v) => v.metadata.name === `pvc-${c.metadata.uid}`),
    false,
  );
  cluster.close();
});

test('envtest’s control plane has no StorageClass, so claims keep no class', () => {
  const { cluster } = newCluster({ controllerManager: false });
  assert.equal(cluster.list(SC).items.length, 0);
  const c = cluster.create(claim('data'));
  assert.equal((c.spec as Obj).storageClassName, undefined);
  cluster.close();
});
