/**
 * The disruption controller: a PodDisruptionBudget's status from the pods it covers and their
 * controllers' scale — expectedPods, desiredHealthy, currentHealthy, disruptionsAllowed, the
 * DisruptionAllowed condition and observedGeneration — and its fail-safe when the expected count
 * cannot be computed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Cluster } from '../../../src/cluster/cluster';
import { PDB } from '../../../src/cluster/controllers/disruption';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { EVENT, POD, deployment, flush, newCluster } from '../helpers';
import type { VirtualClock } from '../../../src/util/clock';

type Obj = Record<string, unknown>;

function budget(name: string, spec: Obj): KubeObject {
  return { ...PDB, metadata: { name, namespace: 'default' }, spec };
}

async function readyDeployment(cluster: Cluster, clock: VirtualClock, name: string, n: number) {
  cluster.create(deployment(name, n));
  await flush(clock);
  await clock.advance(1000);
  await flush(clock);
}

const statusOf = (cluster: Cluster, name: string) =>
  cluster.get(PDB, { namespace: 'default', name }).status as Obj;

test('an integer minAvailable over a ready Deployment allows the surplus', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 1000 });
  await readyDeployment(cluster, clock, 'web', 3);
  const created = cluster.create(
    budget('web-pdb', { minAvailable: 2, selector: { matchLabels: { app: 'web' } } }),
  );
  assert.deepEqual(created.status, {
    disruptionsAllowed: 0,
    currentHealthy: 0,
    desiredHealthy: 0,
    expectedPods: 0,
  });
  await flush(clock);
  const st = statusOf(cluster, 'web-pdb');
  assert.deepEqual(
    { ...st, conditions: undefined },
    {
      observedGeneration: 1,
      disruptionsAllowed: 1,
      currentHealthy: 3,
      desiredHealthy: 2,
      expectedPods: 3,
      conditions: undefined,
    },
  );
  assert.deepEqual(st.conditions, [
    {
      type: 'DisruptionAllowed',
      status: 'True',
      observedGeneration: 1,
      lastTransitionTime: '2026-01-01T00:00:01Z',
      reason: 'SufficientPods',
      message: '',
    },
  ]);
  cluster.close();
});

test('maxUnavailable as a percent of the Deployment scale, rounded up; generation observed', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 1000 });
  await readyDeployment(cluster, clock, 'web', 3);
  cluster.create(
    budget('web-pdb', { maxUnavailable: '34%', selector: { matchLabels: { app: 'web' } } }),
  );
  await flush(clock);
  let st = statusOf(cluster, 'web-pdb');
  assert.equal(st.expectedPods, 3);
  assert.equal(st.desiredHealthy, 1);
  assert.equal(st.disruptionsAllowed, 2);
  // A new spec: the controller observes generation 2 and recomputes.
  const cur = cluster.get(PDB, { namespace: 'default', name: 'web-pdb' });
  cluster.update({ ...cur, spec: { ...(cur.spec as Obj), maxUnavailable: 0 } });
  await flush(clock);
  st = statusOf(cluster, 'web-pdb');
  assert.equal(st.observedGeneration, 2);
  assert.equal(st.disruptionsAllowed, 0);
  assert.equal((st.conditions as Obj[])[0].reason, 'InsufficientPods');
  assert.equal((st.conditions as Obj[])[0].status, 'False');
  cluster.close();
});

test('pods without a controller under maxUnavailable are unmanaged: nothing allowed, a warning', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 1000 });
  cluster.create({
    ...POD,
    metadata: { name: 'lone', namespace: 'default', labels: { app: 'lone' } },
    spec: { containers: [{ name: 'c', image: 'i:1' }] },
  });
  await clock.advance(1000);
  cluster.create(
    budget('lone-pdb', { maxUnavailable: 1, selector: { matchLabels: { app: 'lone' } } }),
  );
  await flush(clock);
  const st = statusOf(cluster, 'lone-pdb');
  assert.equal(st.expectedPods, 0);
  assert.equal(st.currentHealthy, 1);
  assert.equal(st.disruptionsAllowed, 0);
  const ev = cluster
    .list(EVENT, { namespace: 'default' })
    .items.find((e) => e.reason === 'UnmanagedPods');
  assert.equal(
    ev?.message,
    'Pods selected by this PodDisruptionBudget (selector: &LabelSelector{MatchLabels:map[string]string{app: lone,},MatchExpressions:[]LabelSelectorRequirement{},}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.',
  );
  cluster.close();
});

test('a controller without a scale subresource fails safe with the reason', async () => {
  const { cluster, clock } = newCluster({ podReadyDelayMs: 1000 });
  const cm = cluster.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'owner', namespace: 'default' },
  });
  cluster.create({
    ...POD,
    metadata: {
      name: 'owned',
      namespace: 'default',
      labels: { app: 'owned' },
      ownerReferences: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: 'owner',
          uid: cm.metadata.uid!,
          controller: true,
        },
      ],
    },
    spec: { containers: [{ name: 'c', image: 'i:1' }] },
  });
  await clock.advance(1000);
  cluster.create(
    budget('owned-pdb', { maxUnavailable: '50%', selector: { matchLabels: { app: 'owned' } } }),
  );
  await flush(clock);
  const st = statusOf(cluster, 'owned-pdb');
  assert.equal(st.disruptionsAllowed, 0);
  const cond = (st.conditions as Obj[])[0];
  assert.equal(cond.reason, 'SyncFailed');
  assert.equal(cond.status, 'False');
  assert.equal(cond.message, 'configmaps does not implement the scale subresource');
  const ev = cluster
    .list(EVENT, { namespace: 'default' })
    .items.find((e) => e.reason === 'CalculateExpectedPodCountFailed');
  assert.equal(
    ev?.message,
    'Failed to calculate the number of expected pods: configmaps does not implement the scale subresource',
  );
  cluster.close();
});

test('a budget over no pods allows nothing and says so', async () => {
  const { cluster, clock } = newCluster();
  cluster.create(budget('none', { minAvailable: 1, selector: { matchLabels: { app: 'x' } } }));
  await flush(clock);
  const st = statusOf(cluster, 'none');
  assert.equal(st.expectedPods, 0);
  assert.equal(st.disruptionsAllowed, 0);
  assert.ok(
    cluster
      .list(EVENT, { namespace: 'default' })
      .items.some((e) => e.reason === 'NoPods' && e.message === 'No matching pods found'),
  );
  cluster.close();
});

test('minAvailable and maxUnavailable together, or a bad percent, are refused', () => {
  const { cluster } = newCluster();
  assert.throws(
    () =>
      cluster.create(
        budget('both', {
          minAvailable: 1,
          maxUnavailable: 1,
          selector: { matchLabels: { a: 'b' } },
        }),
      ),
    /minAvailable and maxUnavailable cannot be both set/,
  );
  assert.throws(
    () => cluster.create(budget('pct', { minAvailable: '150%' })),
    /spec.minAvailable: Invalid value: "150%": must not be greater than 100%/,
  );
  assert.throws(
    () => cluster.create(budget('str', { maxUnavailable: 'one' })),
    /spec.maxUnavailable: Invalid value: "one": a valid percent string must be a numeric string/,
  );
  cluster.close();
});
