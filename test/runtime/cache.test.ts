/** The cache's reads: copies of what the informers hold, never the objects themselves. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Cache } from '../../src/runtime/cache';
import { WEBAPP, env, webapp } from './helpers';

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
