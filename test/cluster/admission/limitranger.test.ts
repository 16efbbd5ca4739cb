/**
 * The LimitRanger admission plugin: a namespace's LimitRanges default a new pod's container
 * resources (annotated as the plugin annotates them) and refuse pods and claims outside their
 * min, max and ratio, in the plugin's words.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { newCluster } from '../helpers';

type Obj = Record<string, unknown>;

function limitRange(limits: Obj[]): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'LimitRange',
    metadata: { name: 'l', namespace: 'default' },
    spec: { limits },
  };
}

function pod(name: string, resources?: Obj): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { containers: [{ name: 'c', image: 'nginx', ...(resources ? { resources } : {}) }] },
  };
}

const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (err) {
    return (err as Error).message;
  }
  return 'admitted';
};

test("a new pod's containers get the LimitRange's default request and limit, and an annotation saying so", () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(
    limitRange([{ type: 'Container', default: { cpu: '500m' }, defaultRequest: { cpu: '100m' } }]),
  );
  const p = cluster.create(pod('p'));
  const c = (p.spec as { containers: Array<{ resources: Obj }> }).containers[0]!;
  assert.deepEqual(c.resources, { limits: { cpu: '500m' }, requests: { cpu: '100m' } });
  assert.equal(
    p.metadata.annotations?.['kubernetes.io/limit-ranger'],
    'LimitRanger plugin set: cpu request for container c; cpu limit for container c',
  );
  // What a container sets is kept; only the missing one is defaulted.
  const q = cluster.create(pod('q', { requests: { cpu: '200m' } }));
  assert.deepEqual((q.spec as { containers: Array<{ resources: Obj }> }).containers[0]!.resources, {
    limits: { cpu: '500m' },
    requests: { cpu: '200m' },
  });
  assert.equal(
    q.metadata.annotations?.['kubernetes.io/limit-ranger'],
    'LimitRanger plugin set: cpu limit for container c',
  );
  cluster.close();
});

test('a pod outside the min or max of a Container item is forbidden, in the plugin’s words', () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(limitRange([{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '1' } }]));
  // The max is the default limit and the min the default request (the LimitRange's defaulting).
  assert.equal(
    refusal(() => cluster.create(pod('ok'))),
    'admitted',
  );
  assert.equal(
    refusal(() => cluster.create(pod('small', { requests: { cpu: '50m' } }))),
    'pods "small" is forbidden: minimum cpu usage per Container is 100m, but request is 50m',
  );
  assert.equal(
    refusal(() => cluster.create(pod('big', { limits: { cpu: '2' }, requests: { cpu: '2' } }))),
    'pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2',
  );
  cluster.close();
});

test('a limit-to-request ratio above the maximum is forbidden', () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(limitRange([{ type: 'Container', maxLimitRequestRatio: { memory: '2' } }]));
  assert.equal(
    refusal(() =>
      cluster.create(pod('r', { requests: { memory: '100Mi' }, limits: { memory: '300Mi' } })),
    ),
    'pods "r" is forbidden: memory max limit to request ratio per Container is 2, but provided ratio is 3.000000',
  );
  cluster.close();
});

test("a claim above a PersistentVolumeClaim item's max is forbidden, on create and update", () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(limitRange([{ type: 'PersistentVolumeClaim', max: { storage: '1Gi' } }]));
  const claim = (storage: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'c', namespace: 'default' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } },
  });
  assert.equal(
    refusal(() => cluster.create(claim('2Gi'))),
    'persistentvolumeclaims "c" is forbidden: maximum storage usage per PersistentVolumeClaim is 1Gi, but request is 2Gi',
  );
  assert.equal(
    refusal(() => cluster.create(claim('500Mi'))),
    'admitted',
  );
  cluster.close();
});
