import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { POD, flush, newCluster } from '../helpers';

const PVC = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' };

const claim: KubeObject = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data', namespace: 'default' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
};

test('a created claim carries the pvc-protection finalizer', () => {
  const { cluster } = newCluster({ controllerManager: false });
  assert.deepEqual(cluster.create(claim).metadata.finalizers, ['kubernetes.io/pvc-protection']);
  cluster.close();
});

test('a claim a pod mounts stays Terminating until the pod is gone', async () => {
  const { cluster } = newCluster();
  cluster.create(claim);
  cluster.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default' },
    spec: {
      containers: [{ name: 'c', image: 'nginx' }],
      volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }],
    },
  });
  await flush();
  cluster.delete(PVC, { namespace: 'default', name: 'data' });
  await flush();
  const left = cluster.get(PVC, { namespace: 'default', name: 'data' });
  assert.ok(left.metadata.deletionTimestamp);
  cluster.delete(POD, { namespace: 'default', name: 'p' });
  await flush();
  assert.equal(cluster.list(PVC, { namespace: 'default' }).items.length, 0);
  cluster.close();
});

test('without the controller manager (envtest) a deleted claim stays Terminating', async () => {
  const { cluster } = newCluster({ controllerManager: false });
  cluster.create(claim);
  cluster.delete(PVC, { namespace: 'default', name: 'data' });
  await flush();
  assert.ok(cluster.get(PVC, { namespace: 'default', name: 'data' }).metadata.deletionTimestamp);
  cluster.close();
});
