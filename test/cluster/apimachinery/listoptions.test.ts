/**
 * Watch and list parameters over HTTP as kube-apiserver reads them: WatchList (initial events
 * ended by a bookmark), the ListOptions rules (422), the parameter codec's booleans, and the
 * server's watch time-out cap.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CM } from '../helpers';
import { meta, served } from '../http';
import type { Served } from '../http';

let s: Served;
before(async () => {
  s = await served({ maxWatchSeconds: 1 });
});
after(() => s.close());

describe('WatchList', () => {
  it('sends the current objects, then a bookmark ending them at the list resourceVersion', async () => {
    s.cluster.create({ ...CM, metadata: { name: 'one', namespace: 'default' }, data: {} });
    const list = JSON.parse((await s.get('/api/v1/namespaces/default/configmaps')).body) as {
      metadata: { resourceVersion: string };
    };
    const events = await s.watch(
      '/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
      (evs) => evs.some((e) => e.type === 'ADDED' && meta(e.object).name === 'two'),
      () =>
        setTimeout(() =>
          s.cluster.create({ ...CM, metadata: { name: 'two', namespace: 'default' }, data: {} }),
        ),
    );
    assert.equal(events[0].type, 'ADDED');
    assert.equal(meta(events[0].object).name, 'one');
    assert.equal(events[1].type, 'BOOKMARK');
    assert.deepEqual(meta(events[1].object).annotations, { 'k8s.io/initial-events-end': 'true' });
    assert.equal(meta(events[1].object).resourceVersion, list.metadata.resourceVersion);
    assert.equal(events[2].type, 'ADDED');
    assert.equal(meta(events[2].object).name, 'two');
  });

  it('treats a watch from resourceVersion "" or "0" as a WatchList (SetListOptionsDefaults)', async () => {
    for (const rv of ['', '&resourceVersion=0']) {
      const events = await s.watch(
        `/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true${rv}`,
        (evs) => evs.some((e) => e.type === 'BOOKMARK'),
      );
      assert.ok(events.some((e) => e.type === 'ADDED'));
      const last = events.at(-1)!;
      assert.equal(last.type, 'BOOKMARK');
      assert.deepEqual(meta(last.object).annotations, { 'k8s.io/initial-events-end': 'true' });
    }
  });

  it('reads booleans as the apiserver does (True, 1)', async () => {
    const events = await s.watch(
      '/api/v1/namespaces/default/configmaps?watch=True&sendInitialEvents=1&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=TRUE',
      (evs) => evs.some((e) => e.type === 'BOOKMARK'),
    );
    assert.ok(events.some((e) => e.type === 'ADDED'));
    assert.equal(events.at(-1)!.type, 'BOOKMARK');
  });

  it('sends no initial events for sendInitialEvents=false, only what changes after', async () => {
    const events = await s.watch(
      '/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan',
      (evs) => evs.length > 0,
      () =>
        setTimeout(() =>
          s.cluster.create({ ...CM, metadata: { name: 'three', namespace: 'default' }, data: {} }),
        ),
    );
    assert.deepEqual(
      events.map((e) => [e.type, meta(e.object).name]),
      [['ADDED', 'three']],
    );
  });

  it('rejects sendInitialEvents without resourceVersionMatch=NotOlderThan with a 422', async () => {
    const r = await s.get(
      '/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true',
    );
    assert.equal(r.status, 422);
    const status = JSON.parse(r.body) as { reason: string; message: string; details: object };
    assert.equal(status.reason, 'Invalid');
    assert.equal(
      status.message,
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    );
  });

  it('rejects sendInitialEvents on a list and resourceVersionMatch on a plain watch', async () => {
    const list = await s.get('/api/v1/configmaps?sendInitialEvents=true');
    assert.equal(list.status, 422);
    assert.match(
      list.body,
      /sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list/,
    );
    const w = await s.get('/api/v1/configmaps?watch=true&resourceVersionMatch=NotOlderThan');
    assert.equal(w.status, 422);
    assert.match(
      w.body,
      /resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided/,
    );
  });

  it('ends watches at the server time-out cap, so clients re-watch', async () => {
    const events = await s.watch('/api/v1/configmaps?watch=true&timeoutSeconds=300', () => false);
    assert.ok(
      events.every((e) => e.type === 'ADDED'),
      'the stream ended by itself',
    );
  });
});
