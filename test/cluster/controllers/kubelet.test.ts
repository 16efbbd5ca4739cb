import { test } from 'node:test';
import assert from 'node:assert/strict';
import { POD, flush, newCluster } from '../helpers';

test('the simulated scheduler binds a pod as kube-scheduler does, through pods/binding', async () => {
  const { cluster, clock } = newCluster();
  cluster.create({
    ...POD,
    metadata: { name: 'p', namespace: 'default' },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  });
  await flush(clock);
  const p = cluster.get(POD, { namespace: 'default', name: 'p' });
  assert.ok((p.spec as { nodeName?: string }).nodeName);
  // A binding is no spec update: the generation stays, and the scheduler owns no fields.
  assert.equal(p.metadata.generation, 1);
  assert.deepEqual(
    (p.metadata.managedFields ?? []).map((e) => e.manager).filter((m) => m === 'default-scheduler'),
    [],
  );
  assert.equal(p.metadata.annotations, undefined);
  // And the pod's own binding is then refused as kube-apiserver refuses a second one.
  assert.throws(
    () => cluster.bindPod({ namespace: 'default', name: 'p' }, 'other'),
    /pod p is already assigned to node/,
  );
  cluster.close();
});
