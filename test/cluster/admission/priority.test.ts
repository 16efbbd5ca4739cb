import { test } from 'node:test';
import assert from 'node:assert/strict';
import { POD, newCluster } from '../helpers';

type Obj = Record<string, unknown>;

function pod(name: string, spec: Obj = {}) {
  return {
    ...POD,
    metadata: { name, namespace: 'default' },
    spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
  };
}

test('a pod without a class gets priority 0 and PreemptLowerPriority, which nobody manages', () => {
  const { cluster } = newCluster({ controllers: false });
  const p = cluster.create(pod('p'), { fieldManager: 'me' });
  const spec = p.spec as Obj;
  assert.equal(spec.priority, 0);
  assert.equal(spec.preemptionPolicy, 'PreemptLowerPriority');
  assert.equal(spec.priorityClassName, undefined);
  const owned = JSON.stringify(p.metadata.managedFields);
  assert.ok(!owned.includes('f:priority') && !owned.includes('f:preemptionPolicy'), owned);
  assert.ok(!owned.includes('f:serviceAccountName'), owned);
  assert.equal(spec.serviceAccountName, 'default');
  cluster.close();
});

test('the system classes exist in every cluster and give their values', () => {
  const { cluster } = newCluster({ controllers: false });
  const p = cluster.create(pod('p', { priorityClassName: 'system-cluster-critical' }));
  assert.equal((p.spec as Obj).priority, 2000000000);
  cluster.close();
});

test('a global default class is used, and a class or priority that does not fit is refused', () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create({
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'high' },
    value: 1000,
    globalDefault: true,
    preemptionPolicy: 'Never',
  });
  const p = cluster.create(pod('p'));
  assert.deepEqual(
    [(p.spec as Obj).priorityClassName, (p.spec as Obj).priority, (p.spec as Obj).preemptionPolicy],
    ['high', 1000, 'Never'],
  );
  assert.throws(
    () => cluster.create(pod('q', { priorityClassName: 'nope' })),
    (err: Error & { code?: number }) =>
      err.code === 403 &&
      err.message === 'pods "q" is forbidden: no PriorityClass with name nope was found',
  );
  assert.throws(
    () => cluster.create(pod('r', { priority: 5 })),
    /the integer value of priority \(5\) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name/,
  );
  cluster.close();
});
