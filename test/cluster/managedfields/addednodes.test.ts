/**
 * An Update's managedFields own the maps and structs it adds (their `.`), as a kube-apiserver
 * 1.36 records them (each expectation read off one): a ConfigMap's data and labels, a custom
 * resource's spec and nested objects, but not a built-in's non-pointer structs (present in its
 * zero value), nor anything an Apply names (an applied configuration's own field set).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { deployment, newCluster, widgetCrd } from '../helpers';

const fieldsOf = (o: KubeObject, manager: string) =>
  o.metadata.managedFields?.find((e) => e.manager === manager)?.fieldsV1;

test('a created ConfigMap owns its data and labels maps themselves', () => {
  const { cluster } = newCluster({ controllers: false });
  const cm = cluster.create(
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm2', namespace: 'default', labels: { a: 'b' } },
      data: { k: 'v' },
    },
    { fieldManager: 'm' },
  );
  assert.deepEqual(fieldsOf(cm, 'm'), {
    'f:data': { '.': {}, 'f:k': {} },
    'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } },
  });
});

test('a created Deployment owns a pointer struct it sets, not the structs its zero value has', () => {
  const { cluster } = newCluster({ controllers: false });
  const d = deployment('web', 1);
  (d.spec as Record<string, unknown>).strategy = {
    type: 'RollingUpdate',
    rollingUpdate: { maxSurge: 1 },
  };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a FieldsV1 tree, read by path
  const got = fieldsOf(cluster.create(d, { fieldManager: 'm' }), 'm') as Record<string, any>;
  const spec = got['f:spec'];
  assert.equal(spec['.'], undefined, 'spec is in the zero value');
  assert.equal(spec['f:strategy']['.'], undefined, 'so is its strategy');
  // maxUnavailable is the default, recorded with what the writer sent (defaulting comes first).
  assert.deepEqual(spec['f:strategy']['f:rollingUpdate'], {
    '.': {},
    'f:maxSurge': {},
    'f:maxUnavailable': {},
  });
  assert.deepEqual(spec['f:template']['f:metadata']['f:labels'], { '.': {}, 'f:app': {} });
});

test('a created custom resource owns its spec and the objects in it; an update owns what it adds', async () => {
  const { cluster, clock } = newCluster({ controllers: false });
  cluster.create(widgetCrd());
  await clock.advance(0);
  const w = cluster.create(
    {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1', namespace: 'default', labels: { a: 'b' } },
      spec: { size: 1 },
    },
    { fieldManager: 'm' },
  );
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a FieldsV1 tree, read by path
  const got = fieldsOf(w, 'm') as Record<string, any>;
  // color is the CRD's default, owned by the writer as the apiserver records it.
  assert.deepEqual(got['f:spec'], { '.': {}, 'f:color': {}, 'f:size': {} });
  assert.equal(got['f:metadata']['.'], undefined, 'a custom resource’s zero value has metadata');
  const next = structuredClone(w);
  next.metadata.annotations = { n: '1' };
  const updated = cluster.update(next, { fieldManager: 'u' });
  assert.deepEqual(fieldsOf(updated, 'u'), {
    'f:metadata': { 'f:annotations': { '.': {}, 'f:n': {} } },
  });
});

test('an applied configuration owns only its own field set', () => {
  const { cluster } = newCluster({ controllers: false });
  const cm = cluster.patch(
    { apiVersion: 'v1', kind: 'ConfigMap' },
    { namespace: 'default', name: 'applied' },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'applied', labels: { a: 'b' } },
      data: { k: 'v' },
    },
    'apply',
    { fieldManager: 'a' },
  );
  assert.deepEqual(fieldsOf(cm, 'a'), {
    'f:data': { 'f:k': {} },
    'f:metadata': { 'f:labels': { 'f:a': {} } },
  });
});
