/**
 * managedFields recorded by the schema structured-merge-diff uses, read from the release's
 * OpenAPI (x-kubernetes-map-type, list-type, list-map-keys, patch strategy): the expected field
 * sets are what kube-apiserver 1.36 answers for the same creates.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newCluster } from '../helpers';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';

const fieldsOf = (o: KubeObject) => o.metadata.managedFields?.[0]?.fieldsV1;

test("a Deployment's create owns its selector whole and its ports by containerPort and protocol", () => {
  const { cluster } = newCluster({ controllers: false });
  const d = cluster.create(
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd1', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'd' } },
        template: {
          metadata: { labels: { app: 'd' } },
          spec: {
            nodeSelector: { a: 'b' },
            containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }] }],
          },
        },
      },
    },
    { fieldManager: 'test' },
  );
  assert.deepEqual(fieldsOf(d), {
    'f:spec': {
      'f:progressDeadlineSeconds': {},
      'f:replicas': {},
      'f:revisionHistoryLimit': {},
      'f:selector': {},
      'f:strategy': {
        'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} },
        'f:type': {},
      },
      'f:template': {
        'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
        'f:spec': {
          'f:containers': {
            'k:{"name":"c"}': {
              '.': {},
              'f:image': {},
              'f:imagePullPolicy': {},
              'f:name': {},
              'f:ports': {
                '.': {},
                'k:{"containerPort":80,"protocol":"TCP"}': {
                  '.': {},
                  'f:containerPort': {},
                  'f:protocol': {},
                },
              },
              'f:resources': {},
              'f:terminationMessagePath': {},
              'f:terminationMessagePolicy': {},
            },
          },
          'f:dnsPolicy': {},
          'f:nodeSelector': {},
          'f:restartPolicy': {},
          'f:schedulerName': {},
          'f:securityContext': {},
          'f:terminationGracePeriodSeconds': {},
        },
      },
    },
  });
});

test("a Service's create owns neither what the allocator sets nor the status the strategy resets", () => {
  const { cluster } = newCluster({ controllers: false });
  const s = cluster.create(
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's1', namespace: 'default' },
      spec: { selector: { app: 'd' }, ports: [{ port: 80 }] },
    },
    { fieldManager: 'test' },
  );
  assert.ok((s.spec as { clusterIP?: string }).clusterIP, 'allocated all the same');
  assert.deepEqual(fieldsOf(s), {
    'f:spec': {
      'f:internalTrafficPolicy': {},
      'f:ports': {
        '.': {},
        'k:{"port":80,"protocol":"TCP"}': {
          '.': {},
          'f:port': {},
          'f:protocol': {},
          'f:targetPort': {},
        },
      },
      'f:selector': {},
      'f:sessionAffinity': {},
      'f:type': {},
    },
  });
});

test("a status write owns the annotations it changes, not the labels the Deployment's status strategy puts back", () => {
  const { cluster } = newCluster({ controllers: false });
  const d = cluster.create(
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd1', namespace: 'default', labels: { a: 'b' } },
      spec: {
        selector: { matchLabels: { app: 'd' } },
        template: {
          metadata: { labels: { app: 'd' } },
          spec: { containers: [{ name: 'c', image: 'nginx' }] },
        },
      },
    },
    { fieldManager: 'test' },
  );
  const next = structuredClone(d);
  next.metadata.annotations = { 'deployment.kubernetes.io/revision': '1' };
  next.metadata.labels = { a: 'changed' };
  next.status = { observedGeneration: 1 };
  const written = cluster.update(next, { subresource: 'status', fieldManager: 'kcm' });
  assert.deepEqual(written.metadata.labels, { a: 'b' });
  const entry = written.metadata.managedFields?.find((e) => e.manager === 'kcm');
  // kube-apiserver 1.36 answers the deployment controller's revision write with this entry.
  assert.equal(entry?.subresource, 'status');
  assert.deepEqual(entry?.fieldsV1, {
    'f:metadata': { 'f:annotations': { '.': {}, 'f:deployment.kubernetes.io/revision': {} } },
    'f:status': { 'f:observedGeneration': {} },
  });
});

test('an owner reference is owned whole by its uid, and generateName is the writer’s field', () => {
  const { cluster } = newCluster({ controllers: false });
  const owner = cluster.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'owner', namespace: 'default' },
  });
  const child = cluster.create(
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        generateName: 'child-',
        namespace: 'default',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid! },
        ],
      },
    },
    { fieldManager: 'test' },
  );
  // As kube-apiserver 1.36 records it (differential gc/* and controller/job-creates-pod):
  // OwnerReference is an atomic struct, and stripMetaManager keeps generateName.
  assert.deepEqual(fieldsOf(child), {
    'f:metadata': {
      'f:generateName': {},
      'f:ownerReferences': { '.': {}, [`k:{"uid":"${owner.metadata.uid!}"}`]: {} },
    },
  });
});

// structured-merge-diff's updater takes the fields a write removes from every manager, the
// writer's own entry too; an entry left with nothing goes (a real kube-apiserver's answer).
test('an update that removes fields takes them from every manager, and drops emptied entries', () => {
  const { cluster } = newCluster({ controllers: false });
  const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
  const key = { namespace: 'default', name: 'a' };
  cluster.create(
    { ...CM, metadata: { name: 'a', namespace: 'default', labels: { x: '1' } }, data: { k: 'v' } },
    { fieldManager: 'creator' },
  );
  cluster.patch(CM, key, { metadata: { labels: { y: '2' } } }, 'merge', { fieldManager: 'other' });
  const got = cluster.patch(CM, key, [{ op: 'remove', path: '/metadata/labels' }], 'json', {
    fieldManager: 'remover',
  });
  assert.deepEqual(
    got.metadata.managedFields?.map((e) => [e.manager, e.fieldsV1]),
    [['creator', { 'f:data': { '.': {}, 'f:k': {} } }]],
  );
  cluster.close();
});

test('the update that removes the last finalizer answers the updated object at the version it read', () => {
  const { cluster } = newCluster({ controllers: false });
  const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
  const key = { namespace: 'default', name: 'a' };
  cluster.create(
    { ...CM, metadata: { name: 'a', namespace: 'default', finalizers: ['example.com/keep'] } },
    { fieldManager: 'm' },
  );
  const deleting = cluster.delete(CM, key) as KubeObject;
  const got = cluster.patch(CM, key, [{ op: 'remove', path: '/metadata/finalizers' }], 'json', {
    fieldManager: 'm',
  });
  assert.equal(got.metadata.resourceVersion, deleting.metadata.resourceVersion);
  assert.equal(got.metadata.finalizers, undefined);
  assert.equal(got.metadata.managedFields, undefined);
  assert.throws(() => cluster.get(CM, key), /not found/);
  cluster.close();
});

// getAssociativeKeyDefault: an item that omits a key field is keyed by the field's schema
// default (the v3 documents keep it), and its fields conflict one by one, not its node.
test("an applied Service port without a protocol is keyed by the protocol's default, TCP", () => {
  const { cluster } = newCluster({ controllers: false });
  const S = { apiVersion: 'v1', kind: 'Service' };
  const key = { namespace: 'default', name: 's' };
  const apply = (targetPort: number, fieldManager: string) =>
    cluster.patch(
      S,
      key,
      { ...S, metadata: { name: 's' }, spec: { ports: [{ port: 80, targetPort }] } },
      'apply',
      { fieldManager },
    );
  assert.deepEqual(fieldsOf(apply(8080, 'a')), {
    'f:spec': {
      'f:ports': {
        'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {}, 'f:targetPort': {} },
      },
    },
  });
  assert.throws(
    () => apply(9090, 'b'),
    (e: Error) =>
      e.message ===
      'Apply failed with 1 conflict: conflict with "a": .spec.ports[port=80,protocol="TCP"].targetPort',
  );
  cluster.close();
});
