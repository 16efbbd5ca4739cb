// The informer and the runtime against an API server whose calls return promises (as a remote
// one does), on the virtual clock: sync before workers start, resume a closed watch from the last
// resourceVersion, relist on 410 Gone (client-go's reflector).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isForbidden, newForbidden, newGone } from '../../src/cluster/apimachinery/errors';
import type { Cluster } from '../../src/cluster/cluster';
import type {
  DeleteOptions,
  KubeObject,
  ListOptions,
  ObjectKey,
  PatchType,
  TypeRef,
  WatchEvent,
  WatchOptions,
} from '../../src/cluster/apimachinery/types';
import type { ApiServer, WatchHandle } from '../../src/runtime/apiserver';
import { Informer } from '../../src/runtime/informer';
import { Manager } from '../../src/runtime/manager';
import { newControllerManagedBy } from '../../src/runtime/builder';
import { ignoreNotFound } from '../../src/cluster/apimachinery/errors';
import { CONFIGMAP, WEBAPP, cleanup, configMap, env, webapp } from './helpers';

/** The in-process cluster behind promises; its watches can be ended "by the server". */
class AsyncApi implements ApiServer {
  lists = 0;
  readonly watches: Array<{ opts: WatchOptions; end(err?: unknown): void }> = [];
  constructor(private readonly cluster: Cluster) {}
  get clock() {
    return this.cluster.clock;
  }
  private later<T>(f: () => T): Promise<T> {
    return Promise.resolve().then(f);
  }
  get(type: TypeRef, key: ObjectKey) {
    return this.later(() => this.cluster.get(type, key));
  }
  list(type: TypeRef, opts?: ListOptions) {
    this.lists++;
    return this.later(() => this.cluster.list(type, opts));
  }
  create(obj: KubeObject) {
    return this.later(() => this.cluster.create(obj));
  }
  update(obj: KubeObject, opts?: { subresource?: 'status' }) {
    return this.later(() => this.cluster.update(obj, opts));
  }
  patch(type: TypeRef, key: ObjectKey, p: unknown, pt: PatchType, o?: { subresource?: 'status' }) {
    return this.later(() => this.cluster.patch(type, key, p, pt, o));
  }
  delete(type: TypeRef, key: ObjectKey, opts?: DeleteOptions) {
    return this.later(() => this.cluster.delete(type, key, opts));
  }
  watch(
    type: TypeRef,
    opts: WatchOptions,
    onEvent: (e: WatchEvent) => void,
    onClose?: (err?: unknown) => void,
  ): WatchHandle {
    const h = this.cluster.watch(type, opts, onEvent);
    this.watches.push({
      opts,
      end: (err) => {
        h.stop();
        onClose?.(err);
      },
    });
    return h;
  }
  resources() {
    return this.cluster.resources();
  }
}

test('an informer over a promise API syncs when its list arrives', async (t) => {
  const e = await env(t, { stepper: false });
  e.cluster.create(configMap('a'));
  const api = new AsyncApi(e.cluster);
  const inf = new Informer({ api, type: CONFIGMAP, clock: e.clock });
  cleanup(t, () => inf.stop());
  const added: string[] = [];
  inf.addEventHandler({ onAdd: (o) => added.push(o.metadata.name!) });
  inf.start();
  assert.equal(inf.hasSynced(), false);
  await inf.waitForSync();
  assert.equal(inf.hasSynced(), true);
  assert.deepEqual(added, ['a']);
});

test('a watch the server closes is resumed from the last resourceVersion, without a relist', async (t) => {
  const e = await env(t, { stepper: false });
  const api = new AsyncApi(e.cluster);
  const inf = new Informer({ api, type: CONFIGMAP, clock: e.clock });
  cleanup(t, () => inf.stop());
  const seen: string[] = [];
  inf.addEventHandler({ onAdd: (o) => seen.push(`add ${o.metadata.name}`) });
  inf.start();
  await inf.waitForSync();
  e.cluster.create(configMap('before'));
  await e.clock.advance(0);
  const rv = inf.lastSyncResourceVersion();
  // The server ends the watch; a change lands before the informer watches again.
  api.watches[0].end();
  e.cluster.create(configMap('during'));
  await e.clock.advance(0);
  assert.equal(api.lists, 1, 'no relist');
  assert.equal(api.watches.length, 2);
  assert.equal(api.watches[1].opts.resourceVersion, rv);
  assert.deepEqual(seen, ['add before', 'add during']);
});

test('a watch that fails with 410 Gone relists: deletions missed meanwhile are dispatched', async (t) => {
  const e = await env(t, { stepper: false });
  e.cluster.create(configMap('stays'));
  e.cluster.create(configMap('goes'));
  const api = new AsyncApi(e.cluster);
  const inf = new Informer({ api, type: CONFIGMAP, clock: e.clock });
  cleanup(t, () => inf.stop());
  const deleted: string[] = [];
  inf.addEventHandler({ onDelete: (o) => deleted.push(o.metadata.name!) });
  inf.start();
  await inf.waitForSync();
  // The watch closes, its resume is refused with 410, and a delete lands before the relist.
  api.watches[0].end();
  api.watches[1].end(newGone('too old resource version: 1 (5)'));
  e.cluster.delete(CONFIGMAP, { namespace: 'default', name: 'goes' });
  await e.clock.advance(0);
  await new Promise((r) => setImmediate(r));
  assert.equal(api.lists, 2, 'relisted');
  assert.ok(inf.getByKey('default/stays'));
  assert.equal(inf.getByKey('default/goes'), undefined);
  assert.deepEqual(deleted, ['goes']);
});

test('a field selector is sent with the list and with the watch resumed after a close', async (t) => {
  const e = await env(t, { stepper: false });
  e.cluster.create(configMap('a'));
  e.cluster.create(configMap('b'));
  const api = new AsyncApi(e.cluster);
  const inf = new Informer({
    api,
    type: CONFIGMAP,
    clock: e.clock,
    fieldSelector: 'metadata.name=b',
  });
  cleanup(t, () => inf.stop());
  inf.start();
  await inf.waitForSync();
  api.watches[0].end();
  e.cluster.create(configMap('c'));
  e.cluster.update({ ...configMap('b', { x: '1' }) });
  await e.clock.advance(0);
  assert.deepEqual(
    inf.list().map((o) => [o.metadata.name, o.data]),
    [['b', { x: '1' }]],
  );
  assert.deepEqual(
    api.watches.map((w) => w.opts.fieldSelector),
    ['metadata.name=b', 'metadata.name=b'],
  );
});

test('onError hears each failure before the retry, and an informer it stops is not retried', async (t) => {
  const e = await env(t, { stepper: false });
  const api = new AsyncApi(e.cluster);
  api.list = () => Promise.reject(newForbidden({ group: '', resource: 'configmaps' }, '', 'no'));
  const heard: unknown[] = [];
  const inf = new Informer({
    api,
    type: CONFIGMAP,
    clock: e.clock,
    onError: (err) => {
      heard.push(err);
      if (heard.length === 2) inf.stop();
    },
  });
  cleanup(t, () => inf.stop());
  inf.start();
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setImmediate(r));
    await e.clock.advance(1000);
  }
  assert.equal(heard.length, 2);
  assert.ok(heard.every((err) => isForbidden(err)));
});

test('a Manager over a promise API: workers wait for the caches, writes are awaited', async (t) => {
  const e = await env(t, { stepper: false });
  e.cluster.create(webapp('shop'));
  const api = new AsyncApi(e.cluster);
  const mgr = new Manager({ api, stepper: false, clock: e.clock });
  cleanup(t, () => mgr.stop());
  newControllerManagedBy(mgr)
    .for(WEBAPP)
    .owns(CONFIGMAP)
    .complete(async (ctx, req) => {
      const app = await ctx.client.get(WEBAPP, req).catch(ignoreNotFound);
      if (!app) return {};
      const cm = await ctx.client.get(CONFIGMAP, req).catch(ignoreNotFound);
      if (!cm) {
        const child = configMap(req.name, { image: 'nginx' });
        child.metadata.ownerReferences = [
          {
            apiVersion: app.apiVersion,
            kind: app.kind,
            name: req.name,
            uid: app.metadata.uid!,
            controller: true,
          },
        ];
        await ctx.client.create(child);
      }
      return {};
    });
  mgr.start();
  for (let i = 0; i < 10 && !(mgr.traces().length >= 2 && mgr.idle()); i++) {
    await e.clock.advance(0);
    await new Promise((r) => setImmediate(r));
  }
  const traces = mgr.traces();
  const calls = traces.map((t) => t.calls.map((c) => `${c.verb} ${c.kind} ${c.code} ${c.source}`));
  assert.deepEqual(calls[0], [
    'get WebApp 200 cache',
    'get ConfigMap 404 cache',
    'create ConfigMap 201 server',
  ]);
  // The child's watch event is an owner-triggered reconcile that finds it in the cache.
  assert.deepEqual(calls[1], ['get WebApp 200 cache', 'get ConfigMap 200 cache']);
  assert.ok(e.cluster.peek(CONFIGMAP, { namespace: 'default', name: 'shop' }));
});
