import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_DEPTH } from '../../src/cluster/endpoints/decode';
import type { KubeObject, WatchEvent } from '../../src/cluster/apimachinery/types';
import { CM, DEPLOY, WIDGET, deployment, flush, newCluster, widget, widgetCrd } from './helpers';

/** `{a:{a:...{a:1}}}` with `levels` objects. */
function nestedObject(levels: number): Record<string, unknown> {
  let v: Record<string, unknown> = { a: 1 };
  for (let i = 1; i < levels; i++) v = { a: v };
  return v;
}

test('a write that is not JSON is refused whole: not stored, no event, no resourceVersion', async () => {
  const { cluster } = newCluster({ controllers: false });
  const events: WatchEvent[] = [];
  const w = cluster.watch(CM, { namespace: 'default' }, (e) => events.push(e));
  await flush();
  events.length = 0;
  const before = cluster.list(CM, { namespace: 'default' }).metadata.resourceVersion;
  const bad = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'big' },
    data: { a: 1n },
  } as unknown as KubeObject;
  assert.throws(() => cluster.create(bad), {
    code: 400,
    message: "couldn't get version/kind; json parse error: json: unsupported type: bigint",
  });
  assert.throws(() => cluster.get(CM, { namespace: 'default', name: 'big' }), { code: 404 });
  await flush();
  assert.deepEqual(events, []);
  assert.equal(cluster.list(CM, { namespace: 'default' }).metadata.resourceVersion, before);
  w.stop();
});

test('an in-process write nested beyond the bound is a 400 and stores nothing', () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(widgetCrd());
  const deep = widget('deep', 1, { extra: nestedObject(6000) });
  assert.throws(() => cluster.create(deep), {
    code: 400,
    message: "couldn't get version/kind; json parse error: exceeded max depth",
  });
  cluster.create(widget('w'));
  assert.throws(
    () =>
      cluster.patch(
        WIDGET,
        { namespace: 'default', name: 'w' },
        { spec: { extra: nestedObject(6000) } },
        'merge',
      ),
    { code: 400 },
  );
  assert.deepEqual(
    cluster.list(WIDGET, { namespace: 'default' }).items.map((o) => o.metadata.name),
    ['w'],
  );
});

test('an object as deep as the bound goes through every verb and the watch', async () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(widgetCrd());
  const events: string[] = [];
  const w = cluster.watch(WIDGET, { namespace: 'default' }, (e) => events.push(JSON.stringify(e)));
  // Widget -> spec -> extra: three levels above the nested value.
  const deep = nestedObject(MAX_DEPTH - 3);
  cluster.create(widget('deep', 1, { extra: deep }));
  const key = { namespace: 'default', name: 'deep' };
  assert.equal(cluster.getJSON(WIDGET, key).length > 0, true);
  assert.match(cluster.listJSON(WIDGET, { namespace: 'default' }), /"deep"/);
  cluster.patch(WIDGET, key, { spec: { size: 2 } }, 'merge');
  cluster.patch(
    WIDGET,
    key,
    {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'deep' },
      spec: { size: 3, extra: deep },
    },
    'apply',
    { fieldManager: 'deep', force: true },
  );
  const got = cluster.get(WIDGET, key);
  assert.equal((got.spec as { size: number }).size, 3);
  assert.deepEqual((got.spec as { extra: unknown }).extra, deep);
  await flush();
  assert.equal(events.length, 3);
  cluster.delete(WIDGET, key);
  w.stop();
});

test('an update handed its decoded object stores that object; otherwise the caller’s is copied', () => {
  const { cluster } = newCluster({ controllers: false });
  const t = cluster.typeOf(CM);
  const key = { namespace: 'default', name: 'h' };
  const cm = (v: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'h', namespace: 'default' },
    data: { v },
  });
  cluster.create(cm('1'));
  const given = cm('2');
  const copied = cluster.updateAs(t, given, {});
  assert.notEqual(cluster.peek(CM, key), given);
  assert.notEqual(copied, cluster.peek(CM, key));
  given.data = { v: 'changed by the caller' };
  assert.deepEqual(cluster.get(CM, key).data, { v: '2' });

  const handed = cm('3');
  const out = cluster.updateAs(t, handed, { owned: true, returnStored: true });
  assert.equal(cluster.peek(CM, key), handed);
  assert.equal(out, handed);
  assert.deepEqual(cluster.get(CM, key).data, { v: '3' });
  // A no-op update answers the stored object too.
  assert.equal(cluster.updateAs(t, cm('3'), { owned: true, returnStored: true }), handed);
});

test('a replaced object’s JSON length is known without serializing it again; its versions replay as they were', async () => {
  const { cluster } = newCluster({ controllers: false });
  const key = { namespace: 'default', name: 'r' };
  const cm = (v: string) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'r', namespace: 'default' },
    data: { v },
  });
  const created = cluster.create(cm('1'));
  const first = cluster.peek(CM, key)!;
  cluster.update(cm('2'));
  const second = cluster.peek(CM, key)!;
  cluster.update(cm('3'));
  const stringify = JSON.stringify;
  let serialized = 0;
  JSON.stringify = ((...args: Parameters<typeof stringify>) => {
    serialized++;
    return stringify(...args);
  }) as typeof stringify;
  let lengths: number[];
  try {
    lengths = [first, second, cluster.peek(CM, key)!].map((o) => cluster.jsonLength(o));
  } finally {
    JSON.stringify = stringify;
  }
  assert.equal(serialized, 0);
  assert.deepEqual(lengths, [
    stringify(first).length,
    stringify(second).length,
    stringify(cluster.peek(CM, key)).length,
  ]);
  // A copy's length is computed.
  const copy = cluster.get(CM, key);
  assert.equal(cluster.jsonLength(copy), stringify(copy).length);

  const events: WatchEvent[] = [];
  const w = cluster.watch(
    CM,
    { namespace: 'default', resourceVersion: created.metadata.resourceVersion },
    (e) => events.push(e),
  );
  await flush();
  w.stop();
  assert.deepEqual(
    events.map((e) => [e.type, e.object.data, e.object.metadata.resourceVersion]),
    [
      ['MODIFIED', { v: '2' }, second.metadata.resourceVersion],
      ['MODIFIED', { v: '3' }, cluster.peek(CM, key)!.metadata.resourceVersion],
    ],
  );
  cluster.close();
});

test('a patch the caller keeps is not aliased by the stored object; a handed-over one is stored as patched', () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(deployment('d', 1));
  const key = { namespace: 'default', name: 'd' };
  // A merge patch's list replaces the object's: the stored object must not be that very list.
  const patch = { metadata: { finalizers: ['example.com/a'] } };
  cluster.patch(DEPLOY, key, patch, 'merge');
  patch.metadata.finalizers.push('example.com/changed-by-the-caller');
  assert.deepEqual(cluster.peek(DEPLOY, key)?.metadata.finalizers, ['example.com/a']);

  // Handed over, the patched result is stored as it is.
  const t = cluster.typeOf(DEPLOY);
  const out = cluster.patchAs(t, key, { metadata: { labels: { handed: 'over' } } }, 'merge', {
    owned: true,
    returnStored: true,
  });
  assert.equal(out, cluster.peek(DEPLOY, key));
  assert.equal(out.metadata.labels?.handed, 'over');
});

test('deletecollection answers the list it deleted from: the objects as listed, at the list’s resourceVersion', () => {
  const { cluster } = newCluster({ controllers: false });
  const made = ['a', 'b'].map((name) =>
    cluster.create({
      ...CM,
      metadata: { name, namespace: 'default', labels: { sweep: 'yes' } },
      data: { k: name },
    }),
  );
  const before = cluster.list(CM, { namespace: 'default' }).metadata.resourceVersion;
  const answer = cluster.deleteCollection(CM, { namespace: 'default', labelSelector: 'sweep=yes' });
  assert.equal(answer.metadata.resourceVersion, before);
  assert.deepEqual(
    answer.items.map((o) => [o.metadata.name, o.metadata.resourceVersion]),
    made.map((o) => [o.metadata.name, o.metadata.resourceVersion]),
  );
  // They are gone, and the store moved on past the list.
  assert.equal(
    cluster.list(CM, { namespace: 'default', labelSelector: 'sweep=yes' }).items.length,
    0,
  );
  assert.ok(
    Number(cluster.list(CM, { namespace: 'default' }).metadata.resourceVersion) > Number(before),
  );
  cluster.close();
});
