import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { isNotFound } from '../../../src/cluster/apimachinery/errors';
import { newCluster, widgetCrd } from '../helpers';

type Obj = Record<string, unknown>;

test('a cluster-scoped custom resource ignores namespaces', () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(widgetCrd({ scope: 'Cluster' }));
  const w = cluster.create({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'global', namespace: 'default' },
    spec: { size: 1 },
  });
  assert.equal(w.metadata.namespace, undefined);
  assert.equal(
    cluster.get({ apiVersion: 'example.com/v1', kind: 'Widget' }, { name: 'global' }).metadata.name,
    'global',
  );
  assert.equal(cluster.resources().find((r) => r.kind === 'Widget')!.namespaced, false);
  cluster.close();
});

test('a CRD without a status subresource counts status changes in generation', () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(widgetCrd({ status: false }));
  const w = cluster.create({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w' },
    spec: { size: 1 },
    status: { phase: 'x' },
  });
  assert.deepEqual(w.status, { phase: 'x' });
  w.status = { phase: 'y' };
  assert.equal(cluster.update(w).metadata.generation, 2);
  assert.throws(() => cluster.update(w, { subresource: 'status' }), isNotFound);
  cluster.close();
});

test('a CRD scale subresource maps Scale onto the spec and status paths', () => {
  const { cluster } = newCluster({ controllers: false });
  const crd = widgetCrd();
  const v = ((crd.spec as Obj).versions as Array<Obj>)[0];
  v.subresources = {
    status: {},
    scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.observedGeneration' },
  };
  cluster.create(crd);
  cluster.create({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w' },
    spec: { size: 2 },
  });
  const type = { apiVersion: 'example.com/v1', kind: 'Widget' };
  assert.equal(
    (cluster.getScale(type, { namespace: 'default', name: 'w' }).spec as Obj).replicas,
    2,
  );
  cluster.patch(type, { namespace: 'default', name: 'w' }, { spec: { replicas: 5 } }, 'merge', {
    subresource: 'scale',
  });
  assert.equal((cluster.get(type, { namespace: 'default', name: 'w' }).spec as Obj).size, 5);
  cluster.close();
});

test('an invalid CRD is refused with field paths', () => {
  const { cluster } = newCluster({ controllers: false });
  const crd = widgetCrd();
  crd.metadata.name = 'wrong.example.com';
  assert.throws(
    () => cluster.create(crd),
    /metadata.name: Invalid value: "wrong.example.com": must be spec.names.plural\+"."\+spec.group/,
  );
  cluster.close();
});

test('events.k8s.io/v1 Events and core Events are one store seen two ways', () => {
  const { cluster } = newCluster({ controllers: false });
  const ev: KubeObject = {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'e1', namespace: 'default' },
    eventTime: '2026-01-01T00:00:00.000000Z',
    reportingController: 'example.com/ctl',
    reportingInstance: 'ctl-1',
    action: 'Reconcile',
    reason: 'Done',
    note: 'all good',
    type: 'Normal',
    regarding: { kind: 'ConfigMap', name: 'x', namespace: 'default' },
  };
  cluster.create(ev);
  const core = cluster.get(
    { apiVersion: 'v1', kind: 'Event' },
    { namespace: 'default', name: 'e1' },
  );
  assert.equal(core.message, 'all good');
  assert.deepEqual(core.involvedObject, { kind: 'ConfigMap', name: 'x', namespace: 'default' });
  const back = cluster.get(
    { apiVersion: 'events.k8s.io/v1', kind: 'Event' },
    { namespace: 'default', name: 'e1' },
  );
  assert.equal(back.note, 'all good');
  cluster.close();
});

test('recordEvent aggregates repeats into one Event with a count', async () => {
  const { cluster } = newCluster({ controllers: false });
  const cm = cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
  for (let i = 0; i < 3; i++)
    cluster.recordEvent(cm, 'Warning', 'Broken', 'it broke', 'my-controller');
  const evs = cluster.list(
    { apiVersion: 'v1', kind: 'Event' },
    { namespace: 'default', fieldSelector: 'involvedObject.name=x' },
  ).items;
  assert.equal(evs.length, 1);
  assert.equal(evs[0].count, 3);
  assert.deepEqual(evs[0].source, { component: 'my-controller' });
  cluster.close();
});

test("a scale subresource's replicas paths are validated after the schema: an int64 from 0, worded as the validator words it", () => {
  const { cluster } = newCluster({ controllers: false });
  const crd = widgetCrd();
  const v = (crd.spec as { versions: Obj[] }).versions[0]!;
  v.subresources = {
    status: {},
    scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.size' },
  };
  const spec = (v.schema as { openAPIV3Schema: { properties: { spec: Obj } } }).openAPIV3Schema
    .properties.spec;
  // A schema that lets any value through, so the scale check is what refuses it.
  spec.properties = { ...(spec.properties as Obj), size: { 'x-kubernetes-int-or-string': true } };
  cluster.create(crd);
  const invalid = (size: unknown) => {
    try {
      cluster.create({ ...widgetNamed('w'), spec: { size } });
    } catch (err) {
      return (err as Error).message;
    }
    return 'created';
  };
  assert.equal(
    invalid('many'),
    'Widget.example.com "w" is invalid: .spec.size: Invalid value: 0: .spec.size accessor error: many is of the type string, expected int64',
  );
  assert.equal(
    invalid(-1),
    'Widget.example.com "w" is invalid: .spec.size: Invalid value: -1: should be a non-negative integer',
  );
  assert.equal(invalid(2), 'created');
  cluster.close();
});

function widgetNamed(name: string): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'default' } };
}

// apiextensions-apiserver's storage codec prunes and defaults what it reads back by the storage
// version's schema: an object written at another version (None conversion) comes back without
// the fields only that version knows and with the storage version's defaults (crd/other-version).
test("a custom resource written at another version is kept as its storage version's schema says", () => {
  const { cluster } = newCluster({ controllers: false });
  const crd = widgetCrd();
  const versions = (crd.spec as Obj).versions as Obj[];
  versions.push({
    name: 'v2',
    served: true,
    storage: false,
    schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
  });
  cluster.create(crd);
  const v2 = { apiVersion: 'example.com/v2', kind: 'Widget' };
  const created = cluster.create({
    ...v2,
    metadata: { name: 'w', namespace: 'default' },
    spec: { size: 1, anything: true },
  });
  assert.equal(created.apiVersion, 'example.com/v2');
  assert.deepEqual(created.spec, { size: 1, color: 'red' });
  const v1 = { apiVersion: 'example.com/v1', kind: 'Widget' };
  assert.deepEqual(cluster.get(v1, { namespace: 'default', name: 'w' }).spec, {
    size: 1,
    color: 'red',
  });
  // An unstructured list's continue is written even when empty.
  assert.match(cluster.listJSON(v1, { namespace: 'default' }), /"metadata":\{[^}]*"continue":""/);
  cluster.close();
});
