/**
 * Lists as kube-apiserver encodes them: a built-in kind's items are Go structs with an empty
 * TypeMeta (no apiVersion, no kind), a custom resource's are unstructured and keep theirs.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { served, type Served } from '../../http';
import { widget, widgetCrd } from '../../helpers';

let s: Served;
before(async () => {
  s = await served();
  s.cluster.create(widgetCrd());
  s.cluster.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', labels: { x: 'y' } },
  });
  s.cluster.create(widget('w'));
});
after(() => s.close());

test("a built-in kind's list items carry no apiVersion or kind", async () => {
  const a = await s.get('/api/v1/namespaces/default/configmaps');
  const list = JSON.parse(a.body) as { kind: string; apiVersion: string; items: object[] };
  assert.equal(list.kind, 'ConfigMapList');
  assert.equal(list.apiVersion, 'v1');
  assert.equal(list.items.length, 1);
  assert.equal('kind' in list.items[0], false);
  assert.equal('apiVersion' in list.items[0], false);
  // The object itself, read alone, still has them.
  const one = JSON.parse((await s.get('/api/v1/namespaces/default/configmaps/c')).body);
  assert.equal(one.kind, 'ConfigMap');
});

test("a custom resource's list items keep their apiVersion and kind", async () => {
  const a = await s.get('/apis/example.com/v1/namespaces/default/widgets');
  const list = JSON.parse(a.body) as { items: Record<string, unknown>[] };
  assert.equal(list.items[0].kind, 'Widget');
  assert.equal(list.items[0].apiVersion, 'example.com/v1');
});

test("deletecollection lists the deleted built-ins as a list's items, without apiVersion or kind", async () => {
  const a = await s.call('DELETE', '/api/v1/namespaces/default/configmaps?labelSelector=x%3Dy');
  assert.equal(a.status, 200);
  const list = JSON.parse(a.body) as { kind: string; items: Record<string, unknown>[] };
  assert.equal(list.kind, 'ConfigMapList');
  assert.equal(list.items.length, 1);
  assert.equal('kind' in list.items[0], false);
  assert.equal((list.items[0].metadata as { name: string }).name, 'c');
});

test('a list at a resourceVersion that is not a number is the cacher’s 400', async () => {
  const a = await s.get('/api/v1/namespaces/default/configmaps?resourceVersion=abc');
  assert.equal(a.status, 400);
  assert.equal(
    (JSON.parse(a.body) as { message: string }).message,
    'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
  );
});
