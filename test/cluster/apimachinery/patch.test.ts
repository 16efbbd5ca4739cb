import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isConflict, isInvalid } from '../../../src/cluster/apimachinery/errors';
import type { StatusError } from '../../../src/cluster/apimachinery/errors';
import { kindShape } from '../../../src/cluster/api/apigraph';
import {
  jsonPatch,
  mergePatch,
  strategicMergePatch,
} from '../../../src/cluster/apimachinery/patch';
import { DEPLOY, WIDGET, newCluster, widget, widgetCrd } from '../helpers';

type Obj = Record<string, unknown>;

test('JSON merge patch merges objects and deletes with null', () => {
  assert.deepEqual(mergePatch({ a: 1, b: { c: 2, d: 3 } }, { b: { c: null, e: 4 }, f: [1] }), {
    a: 1,
    b: { d: 3, e: 4 },
    f: [1],
  });
});

test('strategic merge patch merges containers by name and honours $patch: delete', () => {
  const cur = {
    spec: {
      containers: [
        { name: 'a', image: 'x:1' },
        { name: 'b', image: 'y:1' },
      ],
    },
    metadata: { finalizers: ['f1'] },
  };
  const out = strategicMergePatch(
    cur,
    {
      spec: {
        containers: [
          { name: 'a', image: 'x:2' },
          { name: 'b', $patch: 'delete' },
          { name: 'c', image: 'z:1' },
        ],
      },
      metadata: { finalizers: ['f2'] },
    },
    kindShape('v1', 'Pod'),
  ) as { spec: { containers: Obj[] }; metadata: { finalizers: string[] } };
  assert.deepEqual(out.spec.containers, [
    { name: 'a', image: 'x:2' },
    { name: 'c', image: 'z:1' },
  ]);
  assert.deepEqual(out.metadata.finalizers, ['f1', 'f2']);
});

test('patch kinds through the cluster: merge, json, and strategic (refused for custom resources with 415)', () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(widgetCrd());
  cluster.create(widget('w1', 1));
  const key = { namespace: 'default', name: 'w1' };
  assert.equal((cluster.patch(WIDGET, key, { spec: { size: 2 } }, 'merge').spec as Obj).size, 2);
  assert.equal(
    (
      cluster.patch(WIDGET, key, [{ op: 'replace', path: '/spec/size', value: 3 }], 'json')
        .spec as Obj
    ).size,
    3,
  );
  assert.throws(
    () => cluster.patch(WIDGET, key, [{ op: 'test', path: '/spec/size', value: 9 }], 'json'),
    isInvalid,
  );
  assert.throws(
    () => cluster.patch(WIDGET, key, { spec: { size: 4 } }, 'strategic'),
    (e: unknown) => (e as StatusError).code === 415,
  );
  cluster.close();
});

test('a merge patch carrying a stale resourceVersion is a 409 Conflict', () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(widgetCrd());
  const w = cluster.create(widget('w1', 1));
  cluster.patch(WIDGET, { namespace: 'default', name: 'w1' }, { spec: { size: 2 } }, 'merge');
  assert.throws(
    () =>
      cluster.patch(
        WIDGET,
        { namespace: 'default', name: 'w1' },
        { metadata: { resourceVersion: w.metadata.resourceVersion }, spec: { size: 5 } },
        'merge',
      ),
    isConflict,
  );
  cluster.close();
});

test('a patch that violates the schema is 422 and changes nothing', () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(widgetCrd());
  const w = cluster.create(widget('w1', 1));
  assert.throws(
    () =>
      cluster.patch(WIDGET, { namespace: 'default', name: 'w1' }, { spec: { size: 500 } }, 'merge'),
    /spec.size in body should be less than or equal to 100/,
  );
  assert.equal(
    cluster.get(WIDGET, { namespace: 'default', name: 'w1' }).metadata.resourceVersion,
    w.metadata.resourceVersion,
  );
  cluster.close();
});

test('server-side apply creates, records the manager, removes fields it stops applying, and reports conflicts', () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(widgetCrd());
  const key = { namespace: 'default', name: 'ssa' };
  const applied = (spec: Obj) => ({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'ssa', namespace: 'default' },
    spec,
  });
  const created = cluster.patch(WIDGET, key, applied({ size: 1, tags: ['a'] }), 'apply', {
    fieldManager: 'alice',
  });
  assert.equal(created.metadata.managedFields?.[0].manager, 'alice');
  assert.equal(created.metadata.managedFields?.[0].operation, 'Apply');
  const dropped = cluster.patch(WIDGET, key, applied({ size: 1 }), 'apply', {
    fieldManager: 'alice',
  });
  assert.equal((dropped.spec as Obj).tags, undefined);
  cluster.patch(WIDGET, key, { spec: { size: 7 } }, 'merge', { fieldManager: 'bob' });
  assert.throws(
    () => cluster.patch(WIDGET, key, applied({ size: 2 }), 'apply', { fieldManager: 'alice' }),
    (e: unknown) =>
      isConflict(e) &&
      (e as Error).message ===
        'Apply failed with 1 conflict: conflict with "bob" using example.com/v1: .spec.size',
  );
  const forced = cluster.patch(WIDGET, key, applied({ size: 2 }), 'apply', {
    fieldManager: 'alice',
    force: true,
  });
  assert.equal((forced.spec as Obj).size, 2);
  assert.throws(
    () => cluster.patch(WIDGET, key, applied({ size: 2 }), 'apply', {}),
    /fieldManager/,
  );
  cluster.close();
});

test('unknown fields: Strict refuses with the strict decoding message, Warn reports them', () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(widgetCrd());
  assert.throws(
    () => cluster.create(widget('s', 1, { bogus: 1 }), { fieldValidation: 'Strict' }),
    /^Error: Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.bogus"$|Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.bogus"/,
  );
  const warnings: string[] = [];
  cluster.create(widget('w', 1, { bogus: 1 }), { warnings });
  assert.deepEqual(warnings, ['unknown field "spec.bogus"']);
  cluster.close();
});

test('strategic merge patch on a Deployment keeps other containers', () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            { name: 'a', image: 'a:1' },
            { name: 'b', image: 'b:1' },
          ],
        },
      },
    },
  });
  const d = cluster.patch(
    DEPLOY,
    { namespace: 'default', name: 'web' },
    { spec: { template: { spec: { containers: [{ name: 'b', image: 'b:2' }] } } } },
    'strategic',
  );
  const cs = (
    (d.spec as Obj).template as { spec: { containers: Array<{ name: string; image: string }> } }
  ).spec.containers;
  assert.deepEqual(
    cs.map((c) => `${c.name}=${c.image}`),
    ['a=a:1', 'b=b:2'],
  );
  assert.equal(d.metadata.generation, 2);
  cluster.close();
});

test('a write through /scale by the same manager name is another manager for server-side apply', () => {
  const { cluster } = newCluster({ controllers: false });
  const key = { namespace: 'default', name: 'ssa' };
  const applied = (replicas: number) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'ssa', namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'ssa' } },
      template: {
        metadata: { labels: { app: 'ssa' } },
        spec: { containers: [{ name: 'a', image: 'nginx:1' }] },
      },
    },
  });
  cluster.patch(DEPLOY, key, applied(2), 'apply', { fieldManager: 'kubectl' });
  cluster.patch(DEPLOY, key, { spec: { replicas: 3 } }, 'merge', {
    fieldManager: 'kubectl',
    subresource: 'scale',
  });
  assert.throws(
    () => cluster.patch(DEPLOY, key, applied(2), 'apply', { fieldManager: 'kubectl' }),
    (e: unknown) =>
      (e as Error).message ===
      'Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas',
  );
  cluster.close();
});

test('server-side apply: an applied configuration with a stale resourceVersion is a 409 Conflict', () => {
  const { cluster: c } = newCluster({ controllers: false });
  const T = { apiVersion: 'v1', kind: 'ConfigMap' };
  const key = { namespace: 'default', name: 'cm' };
  const created = c.create({ ...T, metadata: { ...key }, data: { a: '1' } });
  c.update({ ...created, data: { a: '2' } });
  const stale = {
    ...T,
    metadata: { ...key, resourceVersion: created.metadata.resourceVersion },
    data: { a: '3' },
  };
  assert.throws(
    () => c.patch(T, key, stale, 'apply', { fieldManager: 'me', force: true }),
    (e: unknown) => isConflict(e) && /the object has been modified/.test((e as Error).message),
  );
  const fresh = { ...T, metadata: { ...key }, data: { a: '3' } };
  const applied = c.patch(T, key, fresh, 'apply', { fieldManager: 'me', force: true });
  assert.equal((applied.data as Record<string, string>).a, '3');
});

test('a __proto__ key in a patch is a key like any other, in merge and strategic patches', () => {
  const target = JSON.parse('{"data":{"__proto__":"a","b":"c"}}') as Obj;
  const patch = JSON.parse('{"data":{"__proto__":"z"}}') as Obj;
  for (const out of [mergePatch(target, patch), strategicMergePatch(target, patch)]) {
    const data = (out as { data: Obj }).data;
    assert.equal(Object.getPrototypeOf(data), Object.prototype);
    assert.deepEqual(Object.entries(data), [
      ['__proto__', 'z'],
      ['b', 'c'],
    ]);
  }
});

test("strategic merge follows the Go types' patchStrategy and patchMergeKey tags of the kind", () => {
  const ns = {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'n', finalizers: ['a'] },
    spec: { finalizers: ['kubernetes'] },
  };
  // metadata.finalizers merges (patchStrategy=merge); NamespaceSpec.finalizers has no strategy.
  const out = strategicMergePatch(
    ns,
    { metadata: { finalizers: ['b'] }, spec: { finalizers: ['other'] } },
    kindShape('v1', 'Namespace'),
  ) as typeof ns;
  assert.deepEqual(out.metadata.finalizers, ['a', 'b']);
  assert.deepEqual(out.spec.finalizers, ['other']);
  const svc = {
    apiVersion: 'v1',
    kind: 'Service',
    spec: {
      ports: [
        { name: 'http', port: 80, targetPort: 8080 },
        { name: 'https', port: 443 },
      ],
    },
  };
  // ServiceSpec.ports merges on port; a field of an element the type lacks still merges as JSON.
  const svcOut = strategicMergePatch(
    svc,
    { spec: { ports: [{ port: 80, targetPort: 9090 }] } },
    kindShape('v1', 'Service'),
  ) as typeof svc;
  assert.deepEqual(svcOut.spec.ports, [
    { name: 'http', port: 80, targetPort: 9090 },
    { name: 'https', port: 443 },
  ]);
});

test('a JSON patch that is not a list is a 400 worded as the handler decodes it', () => {
  assert.throws(
    () => jsonPatch({}, { op: 'add' }),
    (err: StatusError) =>
      err.code === 400 &&
      err.message ===
        'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp',
  );
});

test('a JSON patch operation that fails is a 422 that says no more, with empty details', () => {
  for (const ops of [
    [{ op: 'test', path: '/data/x', value: '1' }],
    [{ op: 'frobnicate', path: '/data' }],
    [{ op: 'remove', path: '/nothing/here' }],
  ]) {
    assert.throws(
      () => jsonPatch({ data: {} }, ops),
      (err: StatusError) =>
        err.code === 422 &&
        err.status.reason === 'Invalid' &&
        err.message === 'the server rejected our request due to an error in our request' &&
        JSON.stringify(err.status.details) === '{}',
    );
  }
});

test('a conflict with another applier names it without a version, as printManager does', () => {
  const { cluster } = newCluster({ controllers: false });
  const cm = (value: string) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a', namespace: 'default', labels: { diff: value } },
  });
  const key = { namespace: 'default', name: 'a' };
  const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
  cluster.patch(CONFIGMAP, key, cm('x'), 'apply', { fieldManager: 'diff-a' });
  assert.throws(
    () => cluster.patch(CONFIGMAP, key, cm('y'), 'apply', { fieldManager: 'diff-b' }),
    (e: StatusError) =>
      isConflict(e) &&
      e.message === 'Apply failed with 1 conflict: conflict with "diff-a": .metadata.labels.diff' &&
      e.status.details?.causes?.[0]?.message === 'conflict with "diff-a"',
  );
  cluster.close();
});
