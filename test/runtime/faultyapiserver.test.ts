import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createCluster } from '../../src/cluster/builtins';
import { FaultInjector, faultOf, parseFaults } from '../../src/cluster/faults';
import { isConflict } from '../../src/cluster/apimachinery/errors';
import type { KubeObject, WatchEvent } from '../../src/cluster/apimachinery/types';
import { VirtualClock } from '../../src/util/clock';
import { FaultyApiServer } from '../../src/runtime/faultyapiserver';
import { simulate } from '../../src/runtime/simulation';
import { CONFIGMAP, ROOT, cleanup, configMap } from './helpers';

function setup(t: TestContext, yaml: string) {
  const clock = new VirtualClock(0);
  const cluster = createCluster({ clock, controllers: false });
  cleanup(t, () => cluster.close());
  const api = new FaultyApiServer(cluster, new FaultInjector(parseFaults(yaml, 'f.yaml')));
  return { clock, cluster, api };
}

test('an injected error is thrown synchronously, named, and the call is not made', (t) => {
  const { cluster, api } = setup(
    t,
    `faults:\n  - {name: c, match: {verb: create, resource: configmaps}, times: 1, error: {code: 409}}\n`,
  );
  let err: unknown;
  try {
    api.create(configMap('a'));
  } catch (e) {
    err = e;
  }
  assert.ok(isConflict(err));
  assert.equal(faultOf(err), 'c');
  assert.equal(cluster.peek(CONFIGMAP, { namespace: 'default', name: 'a' }), undefined);
  // Spent: the next create goes through, synchronously as without faults.
  const out = api.create(configMap('a')) as KubeObject;
  assert.equal(out.metadata.name, 'a');
});

test('latency delays the answer on the virtual clock and marks it with the fault', async (t) => {
  const { clock, api } = setup(t, `faults:\n  - {name: slow, latencyMs: 1500}\n`);
  const pending = api.create(configMap('b'));
  assert.ok(pending instanceof Promise);
  assert.equal(faultOf(pending), 'slow');
  let done = false;
  void (pending as Promise<KubeObject>).then(() => (done = true));
  await clock.advance(1499);
  assert.equal(done, false);
  await clock.advance(1);
  assert.equal(done, true);
});

test('latency passes by itself while a reconcile keeps the virtual clock frozen', async (t) => {
  const { clock, api } = setup(t, `faults:\n  - {name: slow, latencyMs: 1500}\n`);
  const thaw = clock.freeze();
  try {
    const out = await (api.create(configMap('c')) as Promise<KubeObject>);
    assert.equal(out.metadata.name, 'c');
    assert.equal(clock.now(), 1500);
  } finally {
    thaw();
  }
});

test('watch faults: closeWatch ends it, gone sends the 410, cacheLagMs delivers late', async (t) => {
  const { clock, cluster, api } = setup(
    t,
    `faults:
  - {name: drop, match: {verb: watch, namespace: a}, closeWatch: true}
  - {name: expire, match: {verb: watch, namespace: b}, gone: true}
  - {name: lag, match: {verb: watch, namespace: default}, cacheLagMs: 2000}
`,
  );
  let closed = 0;
  api.watch(
    CONFIGMAP,
    { namespace: 'a', resourceVersion: '1' },
    () => undefined,
    () => closed++,
  );
  const goneEvents: WatchEvent[] = [];
  let goneClosed = 0;
  api.watch(
    CONFIGMAP,
    { namespace: 'b', resourceVersion: '1' },
    (e) => goneEvents.push(e),
    () => goneClosed++,
  );
  const lagged: WatchEvent[] = [];
  // From the store's current version: one from before the server started would be 410 Gone.
  const from = String(cluster.store.resourceVersion);
  const h = api.watch(CONFIGMAP, { namespace: 'default', resourceVersion: from }, (e) =>
    lagged.push(e),
  );
  cleanup(t, () => h.stop());
  await clock.advance(0);
  assert.equal(closed, 1);
  assert.equal(goneClosed, 1);
  assert.deepEqual(
    goneEvents.map((e) => [e.type, (e.object as unknown as { code: number }).code]),
    [['ERROR', 410]],
  );
  cluster.create(configMap('x'));
  await clock.advance(1999);
  assert.equal(lagged.length, 0);
  await clock.advance(1);
  assert.deepEqual(
    lagged.map((e) => e.type),
    ['ADDED'],
  );
});

const SAMPLE = join(ROOT, 'samples/quota-operator');

async function runSample(faults: string) {
  return simulate({
    reconciler: join(SAMPLE, 'reconcilers/webapp.reconciler.ts'),
    manifests: [join(SAMPLE, 'config')],
    durationMs: 120_000,
    isolate: false,
    faults: parseFaults(faults, 'faults.yaml'),
  });
}

test('the sample swallows a 5xx on its status write: the status is never written and no reconcile fails', async () => {
  // A quota refusal of the Deployment update takes the sample down the path whose status write
  // ignores its error; the 500 on status then goes unnoticed.
  const r = await runSample(`faults:
  - name: quota
    match: {verb: update, resource: deployments}
    error: {code: 403}
  - name: status-500
    match: {verb: update, resource: webapps, subresource: status}
    error: {code: 500}
`);
  const calls = r.traces.flatMap((t) => t.calls);
  const statusCalls = calls.filter((c) => c.subresource === 'status');
  assert.ok(statusCalls.length > 0);
  assert.ok(statusCalls.every((c) => c.code === 500 && c.fault === 'status-500'));
  const swallowed = r.traces.filter(
    (t) => t.calls.some((c) => c.fault === 'status-500') && !t.error,
  );
  assert.ok(swallowed.length > 0, 'reconciles that lost their status write yet succeeded');
  // shop (3 replicas wanted, never ready) stays on the swallowing path: none of its reconciles
  // reports the failure; blog (ready) takes the path that returns the error, and it shows.
  const shop = r.traces.filter((t) => t.key === 'default/shop');
  assert.ok(shop.length > 1 && shop.every((t) => !t.error));
  assert.ok(r.traces.some((t) => t.key === 'default/blog' && t.error));
});

test('the sample converges through a single conflict on its Deployment write', async () => {
  const r = await runSample(`faults:
  - name: one-conflict
    match: {verb: update, resource: deployments}
    times: 1
    error: {code: 409}
`);
  const calls = r.traces.flatMap((t) => t.calls);
  assert.equal(calls.filter((c) => c.fault === 'one-conflict' && c.code === 409).length, 1);
  for (const name of ['blog', 'shop']) {
    const last = r.traces.filter((t) => t.key === `default/${name}`).at(-1)!;
    assert.equal(last.error, undefined, `${name} ends without an error`);
    const status = last.calls.find((c) => c.subresource === 'status');
    assert.equal(status?.code, 200, `${name}'s status is written`);
  }
});
