import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCluster } from '../../src/cluster/builtins';
import type { KubeObject, WatchEvent } from '../../src/cluster/apimachinery/types';
import { CM, EVENT, bigConfigMap, flush, newCluster } from './helpers';

test('watch events arrive asynchronously, in commit order, never inside the write', async () => {
  const { cluster } = newCluster();
  const got: string[] = [];
  let inWrite = false;
  const w = cluster.watch(
    CM,
    { namespace: 'default', resourceVersion: String(cluster.store.resourceVersion) },
    (e) => {
      assert.equal(inWrite, false);
      got.push(`${e.type}:${e.object.metadata.name}:${e.object.metadata.resourceVersion}`);
    },
  );
  inWrite = true;
  const a = cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
  a.data = { x: '1' };
  const a2 = cluster.update(a);
  const d = cluster.delete(CM, { namespace: 'default', name: 'a' });
  inWrite = false;
  assert.deepEqual(got, []);
  await flush();
  assert.deepEqual(got, [
    `ADDED:a:${a.metadata.resourceVersion}`,
    `MODIFIED:a:${a2.metadata.resourceVersion}`,
    `DELETED:a:${d.metadata.resourceVersion}`,
  ]);
  w.stop();
  cluster.close();
});

test('a watch without resourceVersion starts with the current objects as ADDED', async () => {
  const { cluster } = newCluster();
  cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
  const got: WatchEvent[] = [];
  const w = cluster.watch(CM, { namespace: 'default' }, (e) => got.push(e));
  cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } });
  await flush();
  assert.deepEqual(
    got.map((e) => `${e.type}:${e.object.metadata.name}`),
    ['ADDED:a', 'ADDED:b'],
  );
  w.stop();
  cluster.close();
});

test('a watch resumes from a resourceVersion and replays what it missed', async () => {
  const { cluster } = newCluster();
  const a = cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
  cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } });
  cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
  const got: string[] = [];
  const w = cluster.watch(
    CM,
    { namespace: 'default', resourceVersion: a.metadata.resourceVersion },
    (e) => got.push(`${e.type}:${e.object.metadata.name}`),
  );
  await flush();
  assert.deepEqual(got, ['ADDED:b', 'ADDED:c']);
  w.stop();
  cluster.close();
});

test('a watch from a resourceVersion older than the window gets a 410 Expired ERROR event', async () => {
  const cluster = createCluster({ watchWindow: 5, controllers: false });
  for (let i = 0; i < 20; i++)
    cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` } });
  const got: WatchEvent[] = [];
  let closed = false;
  cluster.watch(
    CM,
    { resourceVersion: '2' },
    (e) => got.push(e),
    () => (closed = true),
  );
  await flush();
  assert.equal(got.length, 1);
  assert.equal(got[0].type, 'ERROR');
  const st = got[0].object as unknown as { code: number; reason: string; message: string };
  assert.equal(st.code, 410);
  assert.equal(st.reason, 'Expired');
  assert.match(st.message, /^too old resource version: 2 \(\d+\)$/);
  assert.ok(closed);
  cluster.close();
});

test('label-selected watches see an object leave the selection as DELETED', async () => {
  const { cluster } = newCluster();
  const got: string[] = [];
  const w = cluster.watch(
    CM,
    {
      namespace: 'default',
      labelSelector: 'app=web',
      resourceVersion: String(cluster.store.resourceVersion),
    },
    (e) =>
      got.push(
        `${e.type}:${e.object.metadata.name}:${e.object.metadata.labels?.app}:${e.object.metadata.resourceVersion}`,
      ),
  );
  const a = cluster.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a', labels: { app: 'web' } },
  });
  a.metadata.labels = { app: 'db' };
  const a2 = cluster.update(a);
  a2.metadata.labels = { app: 'web' };
  const a3 = cluster.update(a2);
  await flush();
  // The DELETED carries the content that matched, at the version of the change that unmatched it.
  assert.deepEqual(got, [
    `ADDED:a:web:${a.metadata.resourceVersion}`,
    `DELETED:a:web:${a2.metadata.resourceVersion}`,
    `ADDED:a:web:${a3.metadata.resourceVersion}`,
  ]);
  w.stop();
  cluster.close();
});

test('bookmarks arrive on the clock when asked for, the last 2 s before timeoutSeconds ends the watch', async () => {
  const { cluster, clock } = newCluster({ bookmarkIntervalMs: 1000 });
  const got: string[] = [];
  let closed = false;
  cluster.watch(
    CM,
    {
      namespace: 'default',
      resourceVersion: String(cluster.store.resourceVersion),
      allowWatchBookmarks: true,
      timeoutSeconds: 3,
    },
    (e) => got.push(e.type),
    () => (closed = true),
  );
  await clock.advance(2500);
  // At 1 s (the interval, and 2 s before the deadline), then none (cacheWatcher.nextBookmarkTime).
  assert.deepEqual(got, ['BOOKMARK']);
  assert.equal(closed, false);
  await clock.advance(1000);
  await flush();
  assert.ok(closed);
  cluster.close();
});

test('16 writers on one object: exactly one success per resourceVersion, no lost update, every change watched once in order', async () => {
  const { cluster } = newCluster();
  cluster.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'counter' },
    data: { n: '0' },
  });
  const seen: number[] = [];
  const w = cluster.watch(
    CM,
    {
      namespace: 'default',
      fieldSelector: 'metadata.name=counter',
      resourceVersion: String(cluster.store.resourceVersion),
    },
    (e) => {
      seen.push(Number((e.object.data as { n: string }).n));
    },
  );
  const successes = new Map<string, number>();
  let conflicts = 0;
  const writer = async (id: number) => {
    for (let done = 0; done < 20;) {
      const cur = cluster.get(CM, { namespace: 'default', name: 'counter' });
      await Promise.resolve(); // interleave with other writers between read and write
      (cur.data as { n: string }).n = String(Number((cur.data as { n: string }).n) + 1);
      try {
        const out = cluster.update(cur);
        successes.set(
          cur.metadata.resourceVersion!,
          (successes.get(cur.metadata.resourceVersion!) ?? 0) + 1,
        );
        assert.ok(out);
        done++;
      } catch {
        conflicts++;
      }
      void id;
    }
  };
  await Promise.all(Array.from({ length: 16 }, (_, i) => writer(i)));
  await flush();
  const final = cluster.get(CM, { namespace: 'default', name: 'counter' });
  assert.equal((final.data as { n: string }).n, '320');
  assert.ok([...successes.values()].every((n) => n === 1));
  assert.ok(conflicts > 0);
  assert.deepEqual(
    seen,
    Array.from({ length: 320 }, (_, i) => i + 1),
  );
  w.stop();
  cluster.close();
});

test('the watch window is bounded by bytes too: a resourceVersion whose changes were too large to keep is 410 Expired', async () => {
  const cluster = createCluster({ controllers: false, watchWindowBytes: 1024 * 1024 });
  const { created: first, update } = bigConfigMap(cluster, 300);
  for (let i = 0; i < 10; i++) update(i);
  // Three of these fit in 1 MiB: the first update's resourceVersion fell out of the window.
  assert.ok(cluster.store.oldestResumable > Number(first.metadata.resourceVersion));
  assert.ok(cluster.store.oldestResumable >= cluster.store.resourceVersion - 3);
  const got: WatchEvent[] = [];
  cluster.watch(CM, { resourceVersion: first.metadata.resourceVersion! }, (e) => got.push(e));
  const recent: WatchEvent[] = [];
  cluster.watch(CM, { resourceVersion: String(cluster.store.resourceVersion - 2) }, (e) =>
    recent.push(e),
  );
  await flush();
  assert.equal(got[0].type, 'ERROR');
  assert.equal((got[0].object as unknown as { code: number }).code, 410);
  assert.deepEqual(
    recent.map((e) => e.type),
    ['MODIFIED', 'MODIFIED'],
  );
  cluster.close();
});

test("watchers of one version share a change's object, a copy of the store's; another version gets its own", async () => {
  const { cluster } = newCluster();
  const got: WatchEvent[][] = [[], [], []];
  const opts = { namespace: 'default', resourceVersion: String(cluster.store.resourceVersion) };
  const ws = [
    cluster.watch(CM, opts, (e) => got[0].push(e)),
    cluster.watch(CM, opts, (e) => got[1].push(e)),
  ];
  cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
  cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } });
  await flush();
  assert.equal(got[0].length, 2);
  for (let i = 0; i < 2; i++) {
    assert.equal(got[0][i].object, got[1][i].object);
    const stored = cluster.peek(CM, {
      namespace: 'default',
      name: got[0][i].object.metadata.name!,
    });
    assert.notEqual(got[0][i].object, stored);
    assert.deepEqual(got[0][i].object, stored);
  }
  for (const w of ws) w.stop();
  cluster.close();
});

test('a watcher of another version of the type gets its own copy, at its version', async () => {
  const { cluster } = newCluster();
  const opts = { namespace: 'default', resourceVersion: String(cluster.store.resourceVersion) };
  const core: WatchEvent[] = [];
  const events: WatchEvent[] = [];
  const ws = [
    cluster.watch(EVENT, opts, (e) => core.push(e)),
    cluster.watch({ apiVersion: 'events.k8s.io/v1', kind: 'Event' }, opts, (e) => events.push(e)),
  ];
  cluster.create({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'e1', namespace: 'default' },
    involvedObject: { kind: 'ConfigMap', namespace: 'default', name: 'a' },
    reason: 'Tested',
    message: 'm',
    type: 'Normal',
  } as KubeObject);
  await flush();
  assert.equal(core.length, 1);
  assert.equal(events.length, 1);
  assert.notEqual(core[0].object, events[0].object);
  assert.equal(core[0].object.apiVersion, 'v1');
  assert.equal(events[0].object.apiVersion, 'events.k8s.io/v1');
  for (const w of ws) w.stop();
  cluster.close();
});

test('a reader that shares (sharedObjects) is handed the stored objects; others get copies', async () => {
  const { cluster } = newCluster();
  cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
  const key = { namespace: 'default', name: 'a' };
  const [listed] = cluster.list(CM, { namespace: 'default', sharedObjects: true }).items;
  assert.equal(listed, cluster.peek(CM, key));
  assert.notEqual(cluster.list(CM, { namespace: 'default' }).items[0], cluster.peek(CM, key));
  const shared: KubeObject[] = [];
  const copies: KubeObject[] = [];
  const from = { namespace: 'default', resourceVersion: String(cluster.store.resourceVersion) };
  const w1 = cluster.watch(CM, { ...from, sharedObjects: true }, (e) => shared.push(e.object));
  const w2 = cluster.watch(CM, from, (e) => copies.push(e.object));
  cluster.update({ ...cluster.get(CM, key), data: { x: '1' } });
  await flush();
  w1.stop();
  w2.stop();
  assert.equal(shared[0], cluster.peek(CM, key));
  assert.notEqual(copies[0], cluster.peek(CM, key));
  assert.deepEqual(copies[0], shared[0]);
});

test('the initial-events-end bookmark is the kind’s empty internal object in the version watched: structs there, empty, and what conversion sets', async () => {
  const { cluster } = newCluster({ controllers: false });
  const got: WatchEvent[] = [];
  const DEPLOY = { apiVersion: 'apps/v1', kind: 'Deployment' };
  const w = cluster.watch(
    DEPLOY,
    { namespace: 'default', sendInitialEvents: true, allowWatchBookmarks: true },
    (e) => got.push(e),
  );
  await flush();
  const bookmark = got.find((e) => e.type === 'BOOKMARK')!;
  const o = bookmark.object as unknown as Record<string, unknown>;
  assert.equal(o.kind, 'Deployment');
  // The internal Deployment's replicas is an int32, converted to apps/v1's pointer: 0.
  assert.deepEqual(o.spec, {
    replicas: 0,
    selector: null,
    template: { metadata: {}, spec: { containers: null } },
    strategy: {},
  });
  assert.deepEqual(Object.keys(o.metadata as object).sort(), ['annotations', 'resourceVersion']);
  w.stop();
  // A DaemonSet's conversion writes its template generation as an annotation, beside the watch's.
  const ds: WatchEvent[] = [];
  const w2 = cluster.watch(
    { apiVersion: 'apps/v1', kind: 'DaemonSet' },
    { namespace: 'default', sendInitialEvents: true, allowWatchBookmarks: true },
    (e) => ds.push(e),
  );
  await flush();
  assert.deepEqual(ds.find((e) => e.type === 'BOOKMARK')!.object.metadata.annotations, {
    'deprecated.daemonset.template.generation': '0',
    'k8s.io/initial-events-end': 'true',
  });
  w2.stop();
  cluster.close();
});

test("a watch from before the server's start is 410 Gone, as its watch cache starts at startup; from then on it resumes", async () => {
  const cluster = createCluster({ controllers: false });
  // The bootstrap objects (the kubernetes Service, priority classes, flow control) came first.
  const started = Number(cluster.list(CM, {}).metadata.resourceVersion);
  assert.ok(started > 1);
  const got: WatchEvent[] = [];
  cluster.watch(CM, { resourceVersion: '1' }, (e) => got.push(e));
  await flush();
  assert.equal(got[0]?.type, 'ERROR');
  assert.equal((got[0]!.object as unknown as { code: number }).code, 410);
  cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after' } });
  const resumed: string[] = [];
  const w = cluster.watch(CM, { resourceVersion: String(started) }, (e) =>
    resumed.push(`${e.type}:${e.object.metadata.name}`),
  );
  await flush();
  assert.deepEqual(resumed, ['ADDED:after']);
  w.stop();
  cluster.close();
});
