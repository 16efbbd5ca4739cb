/** The cache's reads: copies of what the informers hold, never the objects themselves. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Cache } from '../../src/runtime/cache';
import { CONFIGMAP, WEBAPP, configMap, env, webapp } from './helpers';

test('a cached object read, mutated and read again comes back as the cluster has it', async (t) => {
  const { clock, cluster } = await env(t);
  cluster.create(webapp('shop'));
  const cache = new Cache({ api: cluster, clock });
  t.after(() => cache.stop());
  const key = { namespace: 'default', name: 'shop' };
  // Listed, then updated through a watch event: both ways into the informer's store.
  const first = cache.get(WEBAPP, key);
  (first.spec as { replicas: number }).replicas = 99;
  cluster.update({
    ...cluster.get(WEBAPP, key),
    metadata: { ...first.metadata, labels: { a: 'b' } },
  });
  await clock.advance(0);
  const read = cache.get(WEBAPP, key);
  assert.notEqual(read, cache.peek(WEBAPP, key));
  assert.deepEqual(read, cluster.get(WEBAPP, key));
  read.metadata.labels!.a = 'changed';
  assert.deepEqual(cache.get(WEBAPP, key).metadata.labels, { a: 'b' });
  assert.deepEqual(cache.list(WEBAPP).items, [cluster.get(WEBAPP, key)]);
});

test('an in-process informer keeps the cluster’s own objects, listed or changed; reads still copy', async (t) => {
  const { clock, cluster } = await env(t);
  cluster.create(webapp('shop'));
  const cache = new Cache({ api: cluster, clock });
  t.after(() => cache.stop());
  const key = { namespace: 'default', name: 'shop' };
  // Listed: the stored object itself, not a copy per object.
  assert.equal(cache.peek(WEBAPP, key), cluster.peek(WEBAPP, key));
  cluster.update({
    ...cluster.get(WEBAPP, key),
    metadata: { ...cluster.get(WEBAPP, key).metadata, labels: { a: 'b' } },
  });
  await clock.advance(0);
  // Changed: the watch event carried the new stored object.
  assert.equal(cache.peek(WEBAPP, key), cluster.peek(WEBAPP, key));
  const read = cache.get(WEBAPP, key);
  read.metadata.labels!.a = 'mutated by the reconciler';
  (read.spec as { replicas: number }).replicas = 42;
  assert.deepEqual(cluster.get(WEBAPP, key).metadata.labels, { a: 'b' });
  assert.equal((cluster.get(WEBAPP, key).spec as { replicas: number }).replicas, 1);
});

test('a cache behind the cluster (a delayed watch) reads the version it holds, not the newer one', async (t) => {
  const { clock, cluster } = await env(t);
  cluster.create(webapp('shop'));
  const cache = new Cache({ api: cluster, clock, propagationDelayMs: 1000 });
  t.after(() => cache.stop());
  const key = { namespace: 'default', name: 'shop' };
  const listed = cache.get(WEBAPP, key);
  cluster.update({ ...cluster.get(WEBAPP, key), spec: { image: 'nginx:2', replicas: 3 } });
  await clock.advance(0);
  // The cluster has replaced the object the cache still holds (and dropped its cached text).
  assert.notEqual(cache.peek(WEBAPP, key), cluster.peek(WEBAPP, key));
  assert.deepEqual(cache.get(WEBAPP, key), listed);
  await clock.advance(1000);
  assert.deepEqual(cache.get(WEBAPP, key), cluster.get(WEBAPP, key));
});

test('reads of two types in turn come from each type’s own informer, and a stopped cache starts afresh', async (t) => {
  const { clock, cluster } = await env(t);
  cluster.create(webapp('shop'));
  cluster.create(configMap('settings', { a: 'b' }));
  const cache = new Cache({ api: cluster, clock });
  t.after(() => cache.stop());
  for (let i = 0; i < 2; i++) {
    assert.equal(cache.get(WEBAPP, { namespace: 'default', name: 'shop' }).kind, 'WebApp');
    assert.equal(
      cache.get(CONFIGMAP, { namespace: 'default', name: 'settings' }).kind,
      'ConfigMap',
    );
    assert.equal(cache.getInformer(WEBAPP).type.kind, 'WebApp');
    assert.equal(cache.getInformer({ ...CONFIGMAP }).type.kind, 'ConfigMap');
  }
  const before = cache.getInformer(WEBAPP);
  cache.stop();
  const after = cache.getInformer(WEBAPP);
  assert.notEqual(after, before, 'a new informer after stop()');
  assert.ok(after.hasSynced());
  assert.equal(cache.get(WEBAPP, { namespace: 'default', name: 'shop' }).metadata.name, 'shop');
});
