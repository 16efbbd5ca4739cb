import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  REVISION,
  calculateStatus,
  findNewReplicaSet,
  maxRevision,
  newRSNewReplicas,
  newReplicaSetFor,
  oldReplicaSetsScaleDown,
  podTemplateHash,
  rollingBudget,
} from '../../../src/cluster/controllers/deploymentutil';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';

type Obj = Record<string, unknown>;

function deployment(spec: Obj = {}, status: Obj = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', uid: 'd-uid', generation: 3 },
    spec: {
      replicas: 4,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
      },
      ...spec,
    },
    status,
  };
}

function replicaSet(
  name: string,
  replicas: number,
  status: Obj = {},
  extra: { created?: string; revision?: number; image?: string } = {},
): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name,
      namespace: 'default',
      creationTimestamp: extra.created ?? '2026-01-01T00:00:00Z',
      annotations: extra.revision ? { [REVISION]: String(extra.revision) } : {},
    },
    spec: {
      replicas,
      template: {
        metadata: { labels: { app: 'web', 'pod-template-hash': 'abc' } },
        spec: { containers: [{ name: 'app', image: extra.image ?? 'nginx:1.27' }] },
      },
    },
    status,
  };
}

test('the new ReplicaSet is the one whose template is the Deployment’s, hash label aside', () => {
  const old = replicaSet('web-old', 2, {}, { image: 'nginx:1.26' });
  const current = replicaSet('web-new', 2);
  assert.equal(findNewReplicaSet(deployment(), [old, current]), current);
  assert.equal(findNewReplicaSet(deployment(), [old]), undefined);
});

test('maxRevision is the highest revision annotation, 0 without any', () => {
  assert.equal(maxRevision([]), 0);
  const rss = [replicaSet('a', 1, {}, { revision: 2 }), replicaSet('b', 1, {}, { revision: 7 })];
  assert.equal(maxRevision(rss), 7);
});

test('a new ReplicaSet is named, labelled and selected by the pod-template-hash, at zero replicas', () => {
  const d = deployment();
  const hash = podTemplateHash((d.spec as Obj).template);
  const rs = newReplicaSetFor(d, 5);
  assert.equal(rs.metadata.name, `web-${hash}`);
  assert.equal(rs.metadata.labels!['pod-template-hash'], hash);
  const spec = rs.spec as Obj;
  assert.deepEqual((spec.selector as Obj).matchLabels, { app: 'web', 'pod-template-hash': hash });
  assert.equal(spec.replicas, 0);
  assert.equal(rs.metadata.annotations![REVISION], '5');
  assert.deepEqual(rs.metadata.ownerReferences, [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'web',
      uid: 'd-uid',
      controller: true,
      blockOwnerDeletion: true,
    },
  ]);
  // The Deployment's own template is not touched.
  assert.deepEqual(((d.spec as Obj).template as Obj).metadata, { labels: { app: 'web' } });
});

test('a collision count changes the hash, so the retry gets another name', () => {
  const a = newReplicaSetFor(deployment(), 1);
  const b = newReplicaSetFor(deployment({}, { collisionCount: 1 }), 1);
  assert.notEqual(a.metadata.name, b.metadata.name);
});

test('the rolling budget resolves percentages (surge rounds up, unavailable down), never both zero', () => {
  assert.deepEqual(rollingBudget(deployment()), { maxSurge: 1, maxUnavailable: 1 });
  assert.deepEqual(rollingBudget(deployment({ replicas: 1 })), { maxSurge: 1, maxUnavailable: 0 });
  assert.deepEqual(
    rollingBudget(
      deployment({ strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: '10%' } } }),
    ),
    { maxSurge: 0, maxUnavailable: 1 },
  );
  assert.deepEqual(
    rollingBudget(
      deployment({ strategy: { rollingUpdate: { maxSurge: '50%', maxUnavailable: 2 } } }),
    ),
    { maxSurge: 2, maxUnavailable: 2 },
  );
});

test('the new ReplicaSet grows within the surge budget and shrinks to the desired count', () => {
  // 4 wanted, 4 old pods, 1 surge: one new pod.
  assert.equal(newRSNewReplicas(4, 1, 0, 4), 1);
  // The surge is used up: no growth.
  assert.equal(newRSNewReplicas(4, 1, 1, 5), 1);
  // Room for more than is wanted: capped at the desired count.
  assert.equal(newRSNewReplicas(4, 10, 0, 0), 4);
  assert.equal(newRSNewReplicas(4, 1, 6, 6), 4);
  assert.equal(newRSNewReplicas(4, 1, 4, 6), 4);
});

test('old ReplicaSets shrink oldest first, keeping desired − maxUnavailable available', () => {
  const older = replicaSet('older', 2, {}, { created: '2026-01-01T00:00:00Z' });
  const newer = replicaSet('newer', 2, {}, { created: '2026-01-02T00:00:00Z' });
  // 4 wanted, 1 may be unavailable, the new ReplicaSet has 1 pod not yet available:
  // 5 replicas − 3 to keep − 1 unready = 1 may go, from the older one.
  assert.deepEqual(
    oldReplicaSetsScaleDown([newer, older], { replicas: 1, available: 0 }, 4, 1).map((c) => [
      c.rs.metadata.name,
      c.replicas,
    ]),
    [['older', 1]],
  );
  // The new pod is available: 2 may go, both from the older one.
  assert.deepEqual(
    oldReplicaSetsScaleDown([newer, older], { replicas: 1, available: 1 }, 4, 1).map((c) => [
      c.rs.metadata.name,
      c.replicas,
    ]),
    [['older', 0]],
  );
  // Nothing may go while the new pods are all unready.
  assert.deepEqual(oldReplicaSetsScaleDown([older], { replicas: 2, available: 0 }, 2, 0), []);
});

test('status sums the ReplicaSets and reports a complete rollout as NewReplicaSetAvailable', () => {
  const d = deployment({ replicas: 2 });
  const rs = replicaSet('web-new', 2, { replicas: 2, readyReplicas: 2, availableReplicas: 2 });
  const status = calculateStatus(d, [rs], rs, '2026-01-01T00:00:10Z');
  assert.equal(status.observedGeneration, 3);
  assert.equal(status.replicas, 2);
  assert.equal(status.updatedReplicas, 2);
  assert.equal(status.availableReplicas, 2);
  assert.equal(status.unavailableReplicas, undefined, 'zero counts are omitted');
  const conds = status.conditions as Obj[];
  assert.deepEqual(
    conds.map((c) => [c.type, c.status, c.reason]),
    [
      ['Available', 'True', 'MinimumReplicasAvailable'],
      ['Progressing', 'True', 'NewReplicaSetAvailable'],
    ],
  );
});

test('status conditions keep their times while they do not change', () => {
  const rs = replicaSet('web-new', 4, { replicas: 4 });
  const first = calculateStatus(deployment(), [rs], rs, '2026-01-01T00:00:00Z');
  const progressing = (first.conditions as Obj[])[1];
  assert.equal(progressing.reason, 'ReplicaSetUpdated');
  const again = calculateStatus(deployment({}, first), [rs], rs, '2026-01-01T00:05:00Z');
  assert.deepEqual(again.conditions, first.conditions);
  const ready = replicaSet('web-new', 4, { replicas: 4, availableReplicas: 4 });
  const done = calculateStatus(deployment({}, first), [ready], ready, '2026-01-01T00:06:00Z');
  const available = (done.conditions as Obj[])[0];
  assert.equal(available.status, 'True');
  assert.equal(
    available.lastTransitionTime,
    '2026-01-01T00:06:00Z',
    'False to True is a transition',
  );
  const p = (done.conditions as Obj[])[1];
  assert.equal(p.reason, 'NewReplicaSetAvailable');
  assert.equal(p.lastUpdateTime, '2026-01-01T00:06:00Z');
  assert.equal(p.lastTransitionTime, '2026-01-01T00:00:00Z', 'still True: no transition');
});

test('a paused Deployment without a new ReplicaSet is Progressing Unknown; a failing one carries ReplicaFailure', () => {
  const paused = calculateStatus(deployment({ paused: true }), [], undefined, 'now');
  assert.deepEqual(
    (paused.conditions as Obj[]).map((c) => [c.type, c.status, c.reason]),
    [
      ['Available', 'False', 'MinimumReplicasUnavailable'],
      ['Progressing', 'Unknown', 'DeploymentPaused'],
    ],
  );
  const failing = replicaSet('web-new', 4, {
    conditions: [
      { type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'quota' },
    ],
  });
  const status = calculateStatus(deployment(), [failing], failing, 'now');
  const failure = (status.conditions as Obj[]).find((c) => c.type === 'ReplicaFailure');
  assert.equal(failure?.message, 'quota');
});
