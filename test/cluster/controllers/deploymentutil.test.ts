import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  REVISION,
  calculateStatus,
  newCondition,
  rolloutStatus,
  setCondition,
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

test('status sums the ReplicaSets: unavailable counts the replicas asked for, not those there', () => {
  const d = deployment({ replicas: 2 });
  const rs = replicaSet('web-new', 3, { replicas: 2, readyReplicas: 2, availableReplicas: 2 });
  const status = calculateStatus(d, [rs], rs, '2026-01-01T00:00:10Z');
  assert.equal(status.observedGeneration, 3);
  assert.equal(status.replicas, 2);
  assert.equal(status.updatedReplicas, 2);
  assert.equal(status.availableReplicas, 2);
  assert.equal(status.unavailableReplicas, 1, 'GetReplicaCountForReplicaSets: spec.replicas');
  assert.equal(status.readyReplicas, 2);
  assert.deepEqual(
    (status.conditions as Obj[]).map((c) => [c.type, c.status, c.reason]),
    [['Available', 'True', 'MinimumReplicasAvailable']],
    'calculateStatus sets Available alone; Progressing is syncRolloutStatus',
  );
});

test('a condition set again keeps its place and times; a changed one moves last, keeping its transition while its status holds', () => {
  const a = newCondition('Available', 'True', 'MinimumReplicasAvailable', 'm', 't0');
  const p = newCondition('Progressing', 'True', 'NewReplicaSetCreated', 'created', 't0');
  const same = setCondition(
    [p, a],
    newCondition('Progressing', 'True', 'NewReplicaSetCreated', 'other', 't1'),
  );
  assert.deepEqual(same, [p, a], 'same status and reason: left as it was');
  const moved = setCondition(
    [p, a],
    newCondition('Progressing', 'True', 'NewReplicaSetAvailable', 'done', 't2'),
  );
  assert.deepEqual(
    moved.map((c) => [c.type, c.reason, c.lastUpdateTime, c.lastTransitionTime]),
    [
      ['Available', 'MinimumReplicasAvailable', 't0', 't0'],
      ['Progressing', 'NewReplicaSetAvailable', 't2', 't0'],
    ],
  );
  const flipped = setCondition(
    [a],
    newCondition('Available', 'False', 'MinimumReplicasUnavailable', 'm', 't3'),
  );
  assert.equal(flipped[0]!.lastTransitionTime, 't3', 'True to False is a transition');
});

test('a new ReplicaSet created: Progressing moves from NewReplicaSetCreated to NewReplicaSetAvailable once it is complete', () => {
  const created = newCondition(
    'Progressing',
    'True',
    'NewReplicaSetCreated',
    'Created new replica set "web-new"',
    't0',
  );
  const d = deployment({ replicas: 2, progressDeadlineSeconds: 600 }, { conditions: [created] });
  const rs = replicaSet('web-new', 2, { replicas: 2, readyReplicas: 2, availableReplicas: 2 });
  const { status, recheckInMs } = rolloutStatus(d, [rs], rs, '2026-01-01T00:00:10Z');
  assert.deepEqual(
    (status.conditions as Obj[]).map((c) => [c.type, c.status, c.reason, c.message]),
    [
      ['Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'],
      [
        'Progressing',
        'True',
        'NewReplicaSetAvailable',
        'ReplicaSet "web-new" has successfully progressed.',
      ],
    ],
  );
  assert.equal((status.conditions as Obj[])[1]!.lastTransitionTime, 't0', 'still True');
  assert.equal(recheckInMs, undefined);
});

test('progress since the status the Deployment has is ReplicaSetUpdated with a new update time; none keeps the condition and rechecks by the deadline', () => {
  const before = {
    replicas: 4,
    updatedReplicas: 4,
    conditions: [
      newCondition('Progressing', 'True', 'NewReplicaSetCreated', 'c', '2026-01-01T00:00:00Z'),
    ],
  };
  const d = deployment({ progressDeadlineSeconds: 600 }, before);
  const rs = replicaSet('web-new', 4, { replicas: 4, readyReplicas: 1 });
  const moving = rolloutStatus(d, [rs], rs, '2026-01-01T00:01:00Z').status;
  const p = (moving.conditions as Obj[]).find((c) => c.type === 'Progressing')!;
  assert.deepEqual(
    [p.reason, p.message, p.lastUpdateTime, p.lastTransitionTime],
    [
      'ReplicaSetUpdated',
      'ReplicaSet "web-new" is progressing.',
      '2026-01-01T00:01:00Z',
      '2026-01-01T00:00:00Z',
    ],
  );
  const stuck = deployment({ progressDeadlineSeconds: 600 }, moving);
  const still = rolloutStatus(stuck, [rs], rs, '2026-01-01T00:02:00Z');
  assert.deepEqual(still.status, moving, 'no progress: nothing to write');
  assert.equal(still.recheckInMs, 540_000 + 1000, 'looked at again a second after the deadline');
});

test('past its deadline without progress a rollout is ProgressDeadlineExceeded; without a deadline it has no Progressing', () => {
  const last = newCondition(
    'Progressing',
    'True',
    'ReplicaSetUpdated',
    'u',
    '2026-01-01T00:00:00Z',
  );
  const d = deployment(
    { progressDeadlineSeconds: 60 },
    { replicas: 4, updatedReplicas: 4, conditions: [last] },
  );
  const rs = replicaSet('web-new', 4, { replicas: 4 });
  const late = rolloutStatus(d, [rs], rs, '2026-01-01T00:02:00Z').status;
  const p = (late.conditions as Obj[]).find((c) => c.type === 'Progressing')!;
  assert.deepEqual(
    [p.status, p.reason, p.message],
    ['False', 'ProgressDeadlineExceeded', 'ReplicaSet "web-new" has timed out progressing.'],
  );
  const none = rolloutStatus(
    deployment({ progressDeadlineSeconds: 2147483647 }, { conditions: [last] }),
    [rs],
    rs,
    'now',
  ).status;
  assert.deepEqual(
    (none.conditions as Obj[]).map((c) => c.type),
    ['Available'],
  );
});

test('a failing ReplicaSet carries its ReplicaFailure onto the Deployment, and it goes with the failure', () => {
  const failing = replicaSet('web-new', 4, {
    conditions: [
      {
        type: 'ReplicaFailure',
        status: 'True',
        reason: 'FailedCreate',
        message: 'quota',
        lastTransitionTime: 't0',
      },
    ],
  });
  const { status } = rolloutStatus(
    deployment({ progressDeadlineSeconds: 600 }),
    [failing],
    failing,
    '2026-01-01T00:00:00Z',
  );
  const failure = (status.conditions as Obj[]).find((c) => c.type === 'ReplicaFailure');
  assert.deepEqual([failure?.message, failure?.lastUpdateTime], ['quota', 't0']);
  const healed = replicaSet('web-new', 4, { replicas: 4 });
  const after = rolloutStatus(
    deployment({ progressDeadlineSeconds: 600 }, status),
    [healed],
    healed,
    '2026-01-01T00:00:01Z',
  ).status;
  assert.equal(
    (after.conditions as Obj[]).some((c) => c.type === 'ReplicaFailure'),
    false,
  );
});
